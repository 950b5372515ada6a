"""A note whose `status:` says what a question asks was done is not done (rag/answer/undone_notes.py)."""

from __future__ import annotations

import pytest

from rag.answer.attribution import Passage
from rag.answer.undone_notes import undone_notes_asked

TAX = Passage("[[File the tax return]]", "File the tax return\nstatus: in-progress")


@pytest.mark.parametrize(
    "question",
    ["Did I file the tax return?", "Have I filed my tax return yet?", "Is the tax return done?"],
)
def test_a_question_whether_the_note_named_was_done_reads_its_status(question: str) -> None:
    rows = undone_notes_asked([TAX], question=question)

    assert [(row.figure, row.sentence, row.source) for row in rows] == [
        ("status: in-progress", "status: in-progress", "[[File the tax return]]")
    ]


def test_a_finished_status_another_note_or_another_question_deny_nothing() -> None:
    done = Passage("[[File the tax return]]", "File the tax return\nstatus: Done")
    other = Passage("[[Renew passport]]", "Renew passport\nstatus: open")
    paused = Passage("[[Balcony Irrigation]]", "Balcony Irrigation\nstatus: paused")

    assert undone_notes_asked([done], question="Did I file the tax return?") == []
    assert undone_notes_asked([other], question="Did I file the tax return?") == []  # not the note named
    assert undone_notes_asked([TAX], question="What is left to do for the tax return?") == []  # not "was it done"
    # Asked whether it is in the state its status names: that is no denial.
    assert undone_notes_asked([paused], question="Has the balcony irrigation been paused?") == []


def test_a_follow_up_is_read_by_its_last_line() -> None:
    assert undone_notes_asked([TAX], question="What do I owe?\nDid I file the tax return?")
