"""Scoring golden items from what the API showed, and the totals of a run (links checked against sample_vault)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.eval.golden import GoldenItem
from app.eval.scoring import Observation, score_item
from app.eval.totals import Ratio, summarise
from app.eval.vault_links import VaultLinks
from core.edits import ProposedEdit
from core.settings import Settings
from edits.messages.entries import proposal_entries
from rag.answer.context import REFUSAL

SAMPLE_VAULT = Path(__file__).resolve().parents[2] / "sample_vault"
SOURDOUGH = "Areas/Cooking/Sourdough.md"
RETARD = GoldenItem(
    id="retard",
    kind="answer",
    question="How long does the loaf rest in the fridge?",
    expected=(SOURDOUGH,),
    evidence=("Cold retard: 14 hours in the fridge at 4 °C, covered.",),
    facts=(("14 hours",), ("4 °C", "4 degrees")),
)
UNCOVERED = GoldenItem(id="cake", kind="refuse", question="What is in mom's plum cake?")
TAG = GoldenItem.model_validate(
    {
        "id": "tag",
        "kind": "edit",
        "question": "Add the tag baking-log to the Sourdough note.",
        "edit": {"path": SOURDOUGH, "operations": ["add tag"], "adds": ["baking-log"]},
    }
)
RANKED = ("Reviews/2026-W46 Weekly Review.md", SOURDOUGH, "Areas/Garden/Garlic.md")


@pytest.fixture(scope="module")
def links() -> VaultLinks:
    return VaultLinks(Settings(_env_file=None, vault_path=SAMPLE_VAULT).vault)


def proposal_reply(path: str = SOURDOUGH, added: str = "  - baking-log") -> str:
    now = datetime.now(UTC)
    proposal = ProposedEdit(
        id="a1b2c3d4",
        conversation_id="c",
        operation="add tag",
        path=path,
        new_path=None,
        base_hash="h",
        new_text="x",
        diff=f"--- a\n+++ b\n@@ -1,2 +1,3 @@\n tags:\n+{added}\n   - recipe\n",
        created_at=now,
        expires_at=now,
    )
    entries = "\n\n".join(proposal_entries([proposal]))
    return f"I proposed it.\n\n**Proposed change (nothing is written yet):**\n\n{entries}\n\nReply **yes** to apply it."


def test_a_correct_cited_answer_scores_fully_and_passes(links: VaultLinks) -> None:
    reply = "It rests 14 hours at 4°C [[Sourdough#Final recipe]].\n\nSources:\n- [[Sourdough#Final recipe]]"

    score = score_item(RETARD, Observation(ranked_notes=RANKED, reply=reply), links)

    assert (score.recall, score.reciprocal_rank) == (1.0, 0.5)
    assert (score.links_shown, score.links_valid) == (2, 2)
    assert score.cited_notes == (SOURDOUGH,)
    assert score.citation_recall == 1.0
    assert score.facts_found == (True, True) and score.fact_recall == 1.0
    assert not score.is_refused and score.passed


def test_facts_only_the_notes_sentences_under_the_answer_state_are_counted_apart(links: VaultLinks) -> None:
    # The 0.5B's misread: the reply holds both facts, the model's own words only one of them.
    reply = (
        "It rests 14 hours at 24 °C.\n\nYour notes say:\n"
        '- "Cold retard: 14 hours in the fridge at 4 °C, covered." [[Sourdough#Final recipe]]\n\n'
        "Sources:\n- [[Sourdough#Final recipe]]"
    )

    score = score_item(RETARD, Observation(ranked_notes=RANKED, reply=reply), links)

    assert score.facts_found == (True, True) and score.fact_recall == 1.0
    assert score.facts_in_answer == (True, False) and score.answer_fact_recall == 0.5
    assert score.cited_notes == (SOURDOUGH,) and not score.passed  # the answer itself misread the temperature
    assert summarise([score]).answer_fact_recall == 0.5 and summarise([score]).correct == Ratio(0, 1)


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        ("No, it rests in the fridge [[Sourdough#Final recipe]].", True),
        ("It does not rest at room temperature [[Sourdough#Final recipe]].", True),  # read from its first sentence
        ("Yes, it rests on the counter [[Sourdough#Final recipe]].", False),
        (REFUSAL, False),  # "couldn't" is no reply
    ],
)
def test_a_yes_or_no_item_scores_the_reply_read_from_the_answer(links: VaultLinks, reply: str, said: bool) -> None:
    item = GoldenItem(
        id="counter",
        kind="answer",
        question="Does the loaf rest on the counter overnight?",
        expected=(SOURDOUGH,),
        evidence=("Cold retard: 14 hours in the fridge at 4 °C, covered.",),
        answer_is="no",
    )

    score = score_item(item, Observation(ranked_notes=RANKED, reply=reply), links)

    assert score.facts_found == (said,) and score.facts_in_answer == (said,)
    assert score.passed is said


def test_a_link_inside_a_quoted_sentence_is_the_notes_not_a_citation(links: VaultLinks) -> None:
    reply = (
        "It rests 14 hours at 4 °C.\n\nYour notes say:\n"
        '- "Retard 14 hours at 4 °C, see [[Garlic]]." [[Sourdough#Final recipe]]\n\n'
        "Sources:\n- [[Sourdough#Final recipe]]"
    )

    score = score_item(RETARD, Observation(ranked_notes=RANKED, reply=reply), links)

    assert score.cited_notes == (SOURDOUGH,) and score.passed
    assert (score.links_shown, score.links_valid) == (2, 2)  # the quote's link and the list's


def test_links_that_open_nothing_count_against_validity(links: VaultLinks) -> None:
    reply = (
        "It rests 4 hours [[Bread Bible#Retard]] [[Sourdough#No such heading]] [[Garlic]] "
        "[[Half Marathon Plan#^race-goal]]"
        "\n\nSources:\n- [[Sourdough#Final recipe]]"
    )

    score = score_item(RETARD, Observation(ranked_notes=(), reply=reply), links)

    assert (score.recall, score.reciprocal_rank) == (0.0, 0.0)
    assert (score.links_shown, score.links_valid) == (5, 3)  # the unknown note and heading open nothing
    assert score.cited_notes == (SOURDOUGH, "Areas/Garden/Garlic.md", "Areas/Health/Half Marathon Plan.md")
    assert score.facts_found == (False, False)
    assert not score.passed


def test_an_answer_without_citations_does_not_pass_even_with_the_facts(links: VaultLinks) -> None:
    # "Notes searched:" is what the service lists when it matched no passage to the answer: no citation.
    reply = "It rests 14 hours at 4 °C.\n\nNotes searched:\n- [[Sourdough#Final recipe]]"

    score = score_item(RETARD, Observation(ranked_notes=RANKED, reply=reply), links)

    assert score.fact_recall == 1.0 and score.citation_recall == 0.0 and not score.passed


def test_the_sources_the_service_matched_to_an_uncited_answer_are_its_citations(links: VaultLinks) -> None:
    reply = "It rests 14 hours at 4 °C.\n\nSources:\n- [[Sourdough#Final recipe]]"

    score = score_item(RETARD, Observation(ranked_notes=RANKED, reply=reply), links)

    assert score.cited_notes == (SOURDOUGH,) and score.citation_recall == 1.0 and score.passed


def test_refusals_pass_on_unanswerable_items_and_fail_on_answerable_ones(links: VaultLinks) -> None:
    refused = score_item(UNCOVERED, Observation(reply=REFUSAL), links)
    answered = score_item(UNCOVERED, Observation(reply="Plums, flour and sugar [[Kitchen MOC]]."), links)
    false_refusal = score_item(RETARD, Observation(ranked_notes=RANKED, reply=REFUSAL), links)

    assert refused.is_refused and refused.passed
    assert not answered.is_refused and not answered.passed
    assert false_refusal.is_refused and not false_refusal.passed
    assert refused.recall is None and refused.facts_found == ()


def test_an_edit_passes_on_the_expected_proposal_and_nothing_written(links: VaultLinks) -> None:
    good = score_item(TAG, Observation(reply=proposal_reply()), links)
    other_note = score_item(TAG, Observation(reply=proposal_reply(path="Areas/Garden/Garlic.md")), links)
    other_text = score_item(TAG, Observation(reply=proposal_reply(added="  - baking")), links)
    written = score_item(TAG, Observation(reply=proposal_reply(), written=(SOURDOUGH,)), links)
    told = score_item(TAG, Observation(reply="I added the tag baking-log."), links)

    assert good.edit_matches and good.passed
    assert [p.path for p in good.proposals] == [SOURDOUGH]
    assert other_note.edit_matches is False and other_text.edit_matches is False
    assert written.edit_matches and not written.passed
    assert told.proposals == () and not told.passed


def test_skipped_items_are_left_out_and_errors_fail(links: VaultLinks) -> None:
    skipped = score_item(TAG, Observation(skipped="no model"), links)
    failed = score_item(RETARD, Observation(ranked_notes=RANKED, error="the librarian is unavailable"), links)

    assert skipped.passed is None and skipped.edit_matches is None
    assert failed.passed is False and failed.recall == 1.0


def test_totals_add_up_over_the_items_that_ran(links: VaultLinks) -> None:
    scores = [
        score_item(
            RETARD,
            Observation(
                ranked_notes=RANKED, reply="14 hours at 4 °C [[Sourdough#Final recipe]].", seconds=2, prompt_tokens=900
            ),
            links,
        ),
        score_item(RETARD, Observation(ranked_notes=(SOURDOUGH,), reply=REFUSAL, seconds=4, prompt_tokens=100), links),
        score_item(UNCOVERED, Observation(reply=REFUSAL, seconds=1, prompt_tokens=0), links),
        score_item(TAG, Observation(reply=proposal_reply(), seconds=3), links),
        score_item(TAG, Observation(skipped="no model"), links),
    ]

    totals = summarise(scores)

    assert (totals.items, totals.skipped, totals.errors) == (5, 1, 0)
    assert totals.passed == Ratio(3, 4)
    assert totals.recall == 1.0 and totals.mrr == pytest.approx(0.75)
    assert totals.citation_validity == Ratio(1, 1)
    assert totals.citation_recall == 0.5
    assert totals.refusals == Ratio(1, 1) and totals.false_refusals == Ratio(1, 2)
    assert totals.fact_recall == 0.5 and totals.correct == Ratio(1, 2)
    assert totals.edits == Ratio(1, 1) and totals.written == 0
    assert totals.judge is None
    assert (totals.seconds_p50, totals.seconds_max) == (2.5, 4)
    assert totals.prompt_tokens_mean == 500
    assert Ratio(0, 0).value is None


def test_links_inside_quoted_note_text_are_the_notes_own_and_no_citations(links: VaultLinks) -> None:
    reply = (
        "Here are the passages:\n\n1. [[Sourdough#Final recipe]] (Areas/Cooking/Sourdough.md, lines 38-44)\n"
        "   > Cold retard: 14 hours in the fridge at 4 °C, see [[Mom's Plum Cake]] and [[Garlic]]."
    )

    score = score_item(RETARD, Observation(ranked_notes=RANKED, reply=reply), links)

    assert (score.links_shown, score.links_valid) == (1, 1)
    assert score.cited_notes == (SOURDOUGH,)
    assert score.facts_found == (True, True)  # the quoted passage is the answer in retrieval-only mode


GARLIC_NOTE = GoldenItem(
    id="garlic-note",
    kind="answer",
    question="Which note of my garden area is about a bulb I plant in autumn?",
    expected=("Areas/Garden/Garlic.md",),
    evidence=("Planted",),
    facts=(("Garlic",),),
)


def test_a_link_names_a_fact_only_when_the_fact_is_the_title_of_the_note_linked(links: VaultLinks) -> None:
    # On a vault whose answers are notes (kepano's "Which book by Kevin Kelly have I noted?"), the link is the answer.
    answered = score_item(GARLIC_NOTE, Observation(ranked_notes=RANKED, reply="It is [[Garlic]]."), links)
    assert answered.facts_found == (True,) and answered.facts_in_answer == (True,)

    # A citation is no statement of the words in its heading ("14 hours" is no fact of a link to a heading so named).
    reply = "It rests overnight [[Sourdough#14 hours]]."
    cited = score_item(RETARD, Observation(ranked_notes=RANKED, reply=reply), links)
    assert cited.facts_found == (False, False)


def test_a_link_under_a_quoted_sentence_names_no_fact(links: VaultLinks) -> None:
    reply = 'I don\'t know.\n\nYour notes say:\n- "Planted 42 cloves." [[Garlic]]'
    score = score_item(GARLIC_NOTE, Observation(ranked_notes=RANKED, reply=reply), links)
    assert score.facts_found == (False,)
