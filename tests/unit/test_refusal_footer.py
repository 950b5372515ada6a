"""What follows the model's refusal: the closest sentences of the best hits, then the notes searched."""

from __future__ import annotations

from agent.answer_footer import refusal_footer
from agent.state import AgentState
from rag.answer.context import REFUSAL, format_note
from rag.answer.quoted_evidence import CLOSEST_HEADING

QUESTION = "When did I stop having coffee in the day to sleep better?"
# Ranked as sample_vault's were: the sleep note first, which words the change unlike the question; a BM25 note,
# sixth, shares "stop" and "coffee".
PASSAGES = [
    ("[[Sleep#What I changed in October]]", "No caffeine after 12:00, from 3 October. Asleep 20 minutes sooner."),
    ("[[Half Marathon Plan#Principles]]", "Easy runs at conversation pace."),
    ("[[Half Marathon Plan#Fuelling practice]]", "A gel every 40 minutes on long runs."),
    ("[[Sourdough#Final recipe]]", "Bake at 250 °C."),
    ("[[Garlic]]", "Planted 40 cloves."),
    ("[[BM25 Explained#Why BM25 still matters]]", '"Stop drinking coffee" does not match "caffeine cut-off".'),
]


def state(passages: list[tuple[str, str]]) -> AgentState:
    context = "\n\n".join(format_note(source=source, path="x.md", text=text) for source, text in passages)
    return {
        "messages": [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": REFUSAL}],
        "context": context,
        "allowed": [source for source, _ in passages],
    }


def test_the_closest_sentences_come_only_from_the_notes_searched_listed_under_them() -> None:
    footer = refusal_footer(REFUSAL, state(PASSAGES))

    assert "BM25" not in footer  # a sixth hit sharing two of the question's words is chance
    assert footer.endswith(
        "Notes searched:\n- [[Sleep#What I changed in October]]\n- [[Half Marathon Plan#Principles]]\n"
        "- [[Half Marathon Plan#Fuelling practice]]"
    )


def test_a_sentence_of_a_note_searched_that_speaks_to_the_question_is_quoted_first() -> None:
    moved = [PASSAGES[-1], *PASSAGES[:-1]]  # the BM25 note searched first

    footer = refusal_footer(REFUSAL, state(moved))

    assert footer.startswith(
        f'\n\n{CLOSEST_HEADING}\n- \u201c"Stop drinking coffee" does not match "caffeine cut-off".\u201d '
        "[[BM25 Explained#Why BM25 still matters]]\n\nNotes searched:\n"
    )


def test_the_settings_turn_each_part_off_and_a_refusal_naming_notes_gets_nothing() -> None:
    moved = [PASSAGES[-1], *PASSAGES[:-1]]

    assert CLOSEST_HEADING not in refusal_footer(REFUSAL, state(moved), show_evidence=False)
    only_closest = refusal_footer(REFUSAL, state(moved), show_sources=False)
    assert only_closest.startswith(f"\n\n{CLOSEST_HEADING}") and "Notes searched:" not in only_closest
    assert refusal_footer(f"{REFUSAL} The closest is [[Sleep]].", state(moved)) == ""
