"""Reading replies for the answer eval: facts matched normalised, refusals, links, the sources list, proposals."""

from __future__ import annotations

import asyncio

import pytest

from app.eval.golden import GoldenItem
from app.eval.judge import AnswerJudge, parse_grade
from app.eval.matching import cited_links, found_facts, is_refusal_reply, split_sources, tokens, without_links
from app.eval.shown_proposals import shown_proposals
from core.edits import ProposedEdit
from edits.messages.entries import proposal_entries
from rag.answer.context import REFUSAL
from tests.scripted_llm import ScriptedLLMServer, Turn


@pytest.mark.parametrize(
    ("text", "wording"),
    [
        ("It rests **14 hours** in the fridge at 4°C.", "4 °C"),
        ("Use 2% salt.", "2 %"),
        ("The model is `bge-small-en-v1.5`.", "bge-small-en-v1.5"),
        ("Grandma uses BERGKÄSE.", "Bergkäse"),
        ("The “split shifts” start in January.", "split shifts"),
        ("The goal is 1:49:00.", "1:49"),
        ("It’s planted on 8 November 2026.", "8 November"),
    ],
)
def test_a_fact_matches_whatever_the_case_markup_and_spacing(text: str, wording: str) -> None:
    assert found_facts(text, [[wording]]) == [True]


@pytest.mark.parametrize(
    ("text", "wording"),
    [
        ("It rests 14 hours.", "4"),  # numbers are whole: 4 is not in 14
        ("Use 2 g of salt.", "2 %"),  # the percent sign is part of the fact
        ("Use 0.75 % salt.", "75 %"),
        ("The loaf was good.", "loaf was bad"),
        ("Sources: Sourdough", "sourdough bread"),  # words must follow each other
    ],
)
def test_a_fact_does_not_match_a_near_miss(text: str, wording: str) -> None:
    assert found_facts(text, [[wording]]) == [False]


def test_any_accepted_wording_counts_and_each_fact_is_judged_alone() -> None:
    text = "Bake 20 min with the lid on."
    assert found_facts(text, [["20 minutes", "20 min"], ["25 minutes"]]) == [True, False]


def test_tokens_keep_numbers_whole_and_unit_signs_apart() -> None:
    assert tokens("Ferment 3,5 kg at 18–20 °C (€2.10/m³)") == [
        "ferment",
        "3,5",
        "kg",
        "at",
        "18",
        "20",
        "°",
        "c",
        "€",
        "2.10",
        "m3",
    ]


@pytest.mark.parametrize(
    "reply",
    [
        REFUSAL,
        f"**{REFUSAL}**",
        f"{REFUSAL}\n\n(No language model is configured, so replies are passages from your notes.)",
        "I could not find anything about a race result in your notes.",
        "Your notes don't mention the cassette's price.",
        "The notes do not cover this.",
        "There is no information about plum cake in the notes.",
        "Sorry, I can't find that.",
        "Not in the notes.",
        "“Not mentioned in your notes.”",
        "Based on the information provided in the notes, I couldn't find this in your notes.",
    ],
)
def test_refusals_are_recognised_in_the_service_wording_and_common_paraphrases(reply: str) -> None:
    assert is_refusal_reply(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "The loaf rests 14 hours [[Sourdough#Final recipe]].",
        "I found it: the notes say 14 hours.",
        "No. 5 is the bake step.",
        "Not mentioning salt, the recipe uses 10 g of it.",
        "Based on the notes, the loaf rests 14 hours; I couldn't find the bake time.",
    ],
)
def test_answers_are_not_refusals(reply: str) -> None:
    assert not is_refusal_reply(reply)


def test_links_are_read_with_heading_alias_and_block_but_not_inside_code() -> None:
    text = "See [[Sourdough#Final recipe|the recipe]], ![[Half Marathon Plan#^race-goal]] and `[[Not a link]]`."
    links = cited_links(text)
    assert [(link.target, link.subpath, link.alias) for link in links] == [
        ("Sourdough", ("Final recipe",), "the recipe"),
        ("Half Marathon Plan", ("^race-goal",), None),
    ]
    assert links[0].text == "Sourdough#Final recipe"


def test_a_link_is_no_fact_but_its_alias_is_text() -> None:
    text = "It rests [[Sourdough#14 hours]] and [[Garlic|42 cloves]]."
    assert without_links(text) == "It rests  and 42 cloves."


def test_the_sources_list_is_split_from_the_reply() -> None:
    reply = "It rests 14 hours [[Sourdough#Final recipe]].\n\nSources:\n- [[Sourdough#Final recipe]]\n- [[Garlic]]"
    body, sources = split_sources(reply)
    assert body == "It rests 14 hours [[Sourdough#Final recipe]]."
    assert sources.splitlines() == ["Sources:", "- [[Sourdough#Final recipe]]", "- [[Garlic]]"]
    assert split_sources("Sources: none here") == ("Sources: none here", "")


def test_the_sentences_quoted_under_a_refusal_are_neither_its_answer_nor_its_sources() -> None:
    reply = (
        f'{REFUSAL}\n\nClosest in your notes:\n- "The cold retard takes 14 hours." [[Sourdough#Final recipe]]'
        "\n\nNotes searched:\n- [[Sourdough#Final recipe]]"
    )
    body, listed = split_sources(reply)
    assert body == REFUSAL
    assert listed.splitlines() == ["Notes searched:", "- [[Sourdough#Final recipe]]"]


def _proposal(**fields: object) -> ProposedEdit:
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    base = {
        "id": "a1b2c3d4",
        "conversation_id": "c",
        "operation": "add tag",
        "path": "Areas/Cooking/Sourdough.md",
        "new_path": None,
        "base_hash": "h",
        "new_text": "x",
        "diff": "--- a\n+++ b\n@@ -1,3 +1,4 @@\n tags:\n+  - baking-log\n   - recipe\n",
        "created_at": now,
        "expires_at": now,
    }
    return ProposedEdit(**(base | fields))  # type: ignore[arg-type]


def test_proposals_are_read_back_from_the_entries_the_gate_writes() -> None:
    moved = _proposal(
        id="e5f6a7b8", operation="move", path="Inbox/a`b.md", new_path="Archive/a`b.md", diff="--- a\n+++ b\n"
    )
    reply = "I proposed it.\n\n" + "\n\n".join(proposal_entries([_proposal(), moved])) + "\n\nReply **yes**."
    shown = shown_proposals(reply)
    assert [(p.id, p.operation, p.path, p.new_path) for p in shown] == [
        ("a1b2c3d4", "add tag", "Areas/Cooking/Sourdough.md", None),
        ("e5f6a7b8", "move", "Inbox/a`b.md", "Archive/a`b.md"),
    ]
    assert shown[0].added == ("  - baking-log",)
    assert shown[1].added == ()


@pytest.mark.parametrize(
    ("text", "grade"),
    [
        ('{"score": 0.75, "reason": "one fact missing"}', 0.75),
        ('```json\n{"score": 1, "reason": "ok"}\n```', 1.0),
        ('{"score": 7}', 1.0),  # clamped
        ("I would give it 0.5 out of 1.", 0.5),
        ("no idea", None),
    ],
)
def test_the_judge_score_is_read_from_json_or_the_first_number_in_range(text: str, grade: float | None) -> None:
    assert parse_grade(text) == grade


def test_the_judge_is_told_the_reply_a_yes_or_no_item_expects() -> None:
    item = GoldenItem(
        id="emulator",
        kind="answer",
        question="Is Wine an emulator?",
        expected=("Wine Compatibility Layer.md",),
        evidence=("it is not an emulator",),
        answer_is="no",
    )

    async def grade(base_url: str) -> float | None:
        judge = AnswerJudge(base_url, model=None, api_key=None, timeout_seconds=10)
        try:
            return await judge.grade(item, "No.")
        finally:
            await judge.aclose()

    with ScriptedLLMServer(lambda _request: Turn.text('{"score": 1, "reason": "ok"}')) as server:
        graded = asyncio.run(grade(server.base_url))
        prompt = server.chat_requests[-1].messages[-1]["content"]

    assert graded == 1.0
    assert "Key facts:\n- the reply to the question is 'no'\n\nAnswer:\nNo." in prompt
