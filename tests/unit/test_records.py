"""A note's properties passage is one record: each row is about what the others name."""

from __future__ import annotations

from rag.answer.attribution import Passage
from rag.answer.evidence import evidence_for, is_borne_out
from rag.answer.records import record_text

BOOK = Passage(
    "[[Out of Control]]",
    "Out of Control\ncategories: [[Books]]\npages: 528\nyear: 1992\nauthor: [[Kevin Kelly]]\ncreated: 2023-09-12",
)
QUESTION = "Which book by Kevin Kelly have I noted, and when was it published?"


def test_a_row_of_a_record_naming_what_was_asked_bears_an_answer_out() -> None:
    right = "Out of Control was published in 1992."

    assert is_borne_out(right, [BOOK], question=QUESTION)
    assert [item.text for item in evidence_for(right, [BOOK], question=QUESTION)] == ["year: 1992"]


def test_prose_with_a_labelled_line_is_no_record_and_its_rows_stay_sentences() -> None:
    prose = "Reading\nI finished two books this month and liked both.\nNote: author Kevin Kelly\nyear: 1992"
    assert record_text(prose) == ""  # a line of prose: the note's own text, not its properties
    assert record_text(BOOK.text).splitlines()[0] == "categories: [[Books]]"
    # The same figure in prose unrelated to the question is no evidence for it.
    diary = Passage("[[Diary]]", "Diary\nMoved house in 1992, the year the garden was planted.\nWeather: rain")
    assert not is_borne_out("It was published in 1992.", [diary], question=QUESTION)


def test_a_row_holding_the_rest_of_the_answer_is_quoted_however_little_it_is() -> None:
    machine = Passage("[[The Machine Stops]]", "The Machine Stops\nauthor: [[E. M. Forster]]\nyear: 1909")
    question = "Who wrote The Machine Stops, and in which year was it published?"

    shown = [item.text for item in evidence_for("E. M. Forster, 1909", [machine], question=question)]
    assert shown == ["year: 1909", "author: [[E. M. Forster]]"]  # one name: less than a further sentence needs
    assert [item.text for item in evidence_for("It came out in 1909.", [machine], question=question)] == ["year: 1909"]


def test_a_sentence_of_prose_holding_as_little_still_needs_more() -> None:
    # Only a record's row is shown for one word: in prose, "Forster" beside other words is chance.
    prose = Passage("[[Reading]]", "Reading\nThe Machine Stops came out in 1909.\nI read Forster on the train.")
    question = "Who wrote The Machine Stops, and in which year was it published?"

    shown = [item.text for item in evidence_for("E. M. Forster, 1909", [prose], question=question)]
    assert shown == ["The Machine Stops came out in 1909."]
