"""The closest sentences by meaning fill the places the word test leaves under a refusal."""

from __future__ import annotations

from collections.abc import Sequence

from agent.answer_footer import refusal_footer
from agent.state import AgentState
from rag.answer.attribution import Passage
from rag.answer.closest_meaning import closest_in_meaning
from rag.answer.context import REFUSAL, format_note
from rag.answer.quoted_evidence import Evidence

# The 1.5B refused this over vaultofknowledge with the note that answers it first; the word test quoted only the
# API documentation's sentence.
QUESTION = "How did I get the retired Sela theme on a brand-new WordPress.com site?"
NOTE = "[[How I revived Sela#For a new site (my trick)]]"
DOCS = "The documentation for changing theme is here: https://developer.wordpress.com/docs/api/1.1/post/sites/"
TRICK = (
    "I just replaced `sequential` with `sela` and visited the URL, and voila, it built me a new site with that theme."
)
TEXT = f"{DOCS}\n\n{TRICK}\nThis requires sending a POST request, with the site authentication.\n- Sela: retired"


def by_meaning(question: str, texts: Sequence[str]) -> list[float]:
    """A stand-in for the embedder: the bundled MiniLM's cosines for these sentences and this question."""
    scores = {"documentation": 0.392, "voila": 0.702, "POST request": 0.228}
    return [next((score for key, score in scores.items() if key in text), 0.0) for text in texts]


def test_sentences_are_ranked_by_meaning_leaving_out_those_shown_short_and_saying_nothing_new() -> None:
    passages = [Passage(NOTE, TEXT)]

    filled = closest_in_meaning(QUESTION, passages, by_meaning, besides=[Evidence(DOCS, NOTE)], limit=1)

    assert [item.text for item in filled] == [TRICK]
    two = closest_in_meaning(QUESTION, passages, by_meaning, besides=[], limit=3)
    assert [item.text for item in two] == [
        TRICK,
        DOCS,
        "This requires sending a POST request, with the site authentication.",
    ]
    assert closest_in_meaning(QUESTION, passages, by_meaning, besides=[], limit=0) == []
    assert closest_in_meaning(QUESTION, [Passage("", TEXT)], by_meaning, besides=[], limit=2) == []  # no note


def test_the_refusal_quotes_the_word_tests_sentence_then_the_closest_in_meaning() -> None:
    state: AgentState = {
        "messages": [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": REFUSAL}],
        "context": format_note(source=NOTE, path="x.md", text=TEXT),
        "allowed": [NOTE],
    }

    words_only = refusal_footer(REFUSAL, state)
    filled = refusal_footer(REFUSAL, state, similarity=by_meaning)

    assert "voila" not in words_only and "documentation" in words_only
    assert filled.index("documentation") < filled.index("voila")
