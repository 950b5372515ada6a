"""An answer naming another candidate than the notes' decision, asked which was chosen (rag/answer/choices.py)."""

from __future__ import annotations

import pytest

from agent.answer_footer import refusal_footer
from agent.opening_check import answer_check
from agent.state import AgentState
from rag.answer.attribution import Passage
from rag.answer.choices import chose_otherwise, passed_over
from rag.answer.context import REFUSAL, format_note
from rag.answer.quoted_evidence import CLOSEST_HEADING
from rag.answer.yes_no import NOT_SO

# sample_vault's Embedding Model Choice: the candidates' table, then the decision under its own heading
CANDIDATES = Passage(
    "[[Embedding Model Choice#Candidates]]",
    "| Model | Dims |\n| --- | --- |\n| BAAI/bge-small-en-v1.5 | 384 |\n| nomic-ai/nomic-embed-text-v1.5 | 768 |\n"
    "| intfloat/multilingual-e5-small | 384 |",
)
DECISION = Passage(
    "[[Embedding Model Choice#Decision]]",
    "**BAAI/bge-small-en-v1.5.** Nomic is two points better on Recall@5, but takes 3.6 times as long to index.",
)
CHOSEN = "Which embedding model did I choose for the librarian, and why not nomic?"


@pytest.mark.parametrize(
    ("answer", "is_other"),
    [
        ("1. nomic-ai/nomic-embed-text-v1.5", True),  # the 0.5B (stop 59): a row of the candidates' table
        ("intfloat/multilingual-e5-small", True),
        ("Nomic-embed-text was chosen.", True),
        ("BAAI/bge-small-en-v1.5", False),
        ("I chose bge-small because nomic takes 3.6 times as long to index.", False),
        ("The small BGE model.", False),
        ("nomic", False),  # the question's own word: it names nothing new
        ("No.\nThe note [[Embedding Model Choice#Decision]] says which.", False),  # no name given
    ],
)
def test_a_candidate_other_than_the_decision_is_no_answer_to_which_was_chosen(answer: str, is_other: bool) -> None:
    assert bool(chose_otherwise(answer, [CANDIDATES, DECISION], question=CHOSEN)) is is_other


def test_a_decision_is_read_from_its_heading_or_a_record_and_only_when_a_choice_is_asked() -> None:
    record = Passage("[[Embedding Model Choice]]", "status: decided\nchosen_model: BAAI/bge-small-en-v1.5")
    assert chose_otherwise("nomic-ai/nomic-embed-text-v1.5", [CANDIDATES, record], question="Which model did I pick?")
    # a passage cut inside the Decision section: its first sentence is not the decision
    cut = Passage("[[Embedding Model Choice#Decision]]", "… Nomic is two points better on Recall@5.")
    assert not chose_otherwise("nomic-ai/nomic-embed-text-v1.5", [CANDIDATES, cut], question=CHOSEN)
    # no choice asked: the table answers
    best = "Which embedding model scored best on Recall@5?"
    assert not chose_otherwise("nomic-ai/nomic-embed-text-v1.5", [CANDIDATES, DECISION], question=best)


def test_the_other_candidate_is_withheld_and_the_decision_quoted_first() -> None:
    check = answer_check(CHOSEN, [CANDIDATES, DECISION])
    assert check.feed("1. nomic-ai/nomic-embed-text-v1.5\n2. nomic-ai/nomic-embed-text-v1.5") + check.finish() == ""

    passages = [CANDIDATES, DECISION]
    state: AgentState = {
        "messages": [{"role": "user", "content": CHOSEN}, {"role": "assistant", "content": REFUSAL}],
        "context": "\n\n".join(format_note(source=p.source, path="x.md", text=p.text) for p in passages),
        "allowed": [p.source for p in passages],
    }
    footer = refusal_footer(REFUSAL, state, withheld="1. nomic-ai/nomic-embed-text-v1.5")
    assert footer.startswith(f'\n\n{CLOSEST_HEADING}\n- "**BAAI/bge-small-en-v1.5.** Nomic is two points better')


@pytest.mark.parametrize(
    ("question", "is_passed_over"),
    [
        ("Did I choose nomic as the librarian's embedding model?", True),
        ("Did I pick intfloat/multilingual-e5-small?", False),  # not weighed in the decision: the table alone
        ("Did I choose bge-small as the librarian's embedding model?", False),  # the decision
        ("Did I choose a model for the librarian?", False),  # no candidate named
        ("Is nomic better on Recall@5?", False),  # no choice asked
    ],
)
def test_a_decision_passes_over_the_candidate_it_weighs_and_sets_aside(question: str, is_passed_over: bool) -> None:
    assert bool(passed_over([CANDIDATES, DECISION], question=question)) is is_passed_over


def test_a_yes_to_whether_the_candidate_set_aside_was_chosen_is_denied_by_the_decision() -> None:
    # the 1.5B over sample_vault's yes-or-no set (stop 60)
    question = "Did I choose nomic as the librarian's embedding model?"
    check = answer_check(question, [CANDIDATES, DECISION])
    wrong = "Yes\nThe note [[Embedding Model Choice#Decision]] states that the librarian has chosen nomic."
    assert check.feed(wrong) + check.finish() == ""
    assert check.withheld_reply.startswith(NOT_SO) and "BAAI/bge-small-en-v1.5" in check.withheld_reply

    check = answer_check(question, [CANDIDATES, DECISION])
    right = "No. The note [[Embedding Model Choice#Decision]] chose BAAI/bge-small-en-v1.5."
    assert check.feed(right) + check.finish() == right
