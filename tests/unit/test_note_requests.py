"""Reading a request about one note as a whole (rag/answer/note_requests.py)."""

from __future__ import annotations

import pytest

from rag.answer.note_requests import note_asked, note_asked_by_name


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("Summarize the ACME note", "ACME"),
        ("Can you summarise my Garden Plan 2027 note?", "Garden Plan 2027"),
        ("Give me a short summary of [[Dune]]", "Dune"),
        ("Summarize [[68 Bits of Unsolicited Advice|68 Bits]]", "68 Bits of Unsolicited Advice"),
        ("What is the ACME note about?", "ACME"),
        ("What's [[Dune#Plot]] about?", "Dune"),
        ("What's in my Important Project note?", "Important Project"),
        ("What does the Sourdough note say?", "Sourdough"),
        ("Tell me about the Sourdough note.", "Sourdough"),
        ('Summarize the "Garden Plan 2027" note', "Garden Plan 2027"),
        ("Fasse die Notiz ACME zusammen", "ACME"),
        ("Was steht in der Notiz ACME?", "ACME"),
    ],
)
def test_the_name_of_the_note_asked_about_is_read(question: str, name: str) -> None:
    assert note_asked(question) == name


@pytest.mark.parametrize(
    "question",
    [
        "Tell me about sourdough",  # a topic: "note" is needed after "tell me about"
        "What does the Sourdough note say about hydration?",  # a part of the note: the search's
        "How long does the loaf rest in the fridge?",
        "Which notes link to ACME?",
    ],
)
def test_questions_naming_no_whole_note_are_read_as_none(question: str) -> None:
    assert note_asked(question) is None


def test_a_name_said_to_be_a_notes_is_told_from_one_that_may_be_a_topic() -> None:
    assert note_asked_by_name("Summarize the Old idea note") == "Old idea"
    assert note_asked_by_name("What is [[Dune]] about?") == "Dune"
    assert note_asked_by_name("Summarize ACME.") is None  # may be a topic: a note of that name is read, none said
    assert note_asked("Summarize ACME.") == "ACME"
    assert note_asked_by_name("Summarize my notes on composting") is None
