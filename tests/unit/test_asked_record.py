"""The record of the note a question names, quoted in place of an answer withheld (rag/answer/records.asked_record)."""

from __future__ import annotations

from agent.opening_check import answer_check
from rag.answer.attribution import Passage
from rag.answer.context import REFUSAL
from rag.answer.records import asked_record, dated_records_asked

# kepano-obsidian's Steph Ango: a note of base views, its record added as the question asks for a row of it
CLIPPINGS = Passage(
    "[[Steph Ango#Clippings]]", "| Title | Author |\n| --- | --- |\n| [[Buy wisely]] | [[Steph Ango]] |"
)
RECORD = Passage("[[Steph Ango]]", "Steph Ango\ntwitter: kepano")
TWITTER = "What is Steph Ango's Twitter handle?"


def test_the_record_of_the_note_named_is_found_by_a_row_the_question_asks_for() -> None:
    assert asked_record(TWITTER, [CLIPPINGS, RECORD]) == RECORD
    assert asked_record("What is Steph Ango's phone number?", [CLIPPINGS, RECORD]) is None  # no row asked
    assert asked_record("What is his Twitter handle?", [CLIPPINGS, RECORD]) is None  # the note is not named
    section = Passage("[[Steph Ango#Links]]", "Steph Ango\ntwitter: kepano")
    assert asked_record(TWITTER, [section]) is None  # a section is no record


def test_an_answer_withheld_is_replaced_by_the_record_quoted() -> None:
    # the 1.5B (stop 59): a bare link, withheld; the row it should have read is the answer
    check = answer_check(TWITTER, [CLIPPINGS, RECORD])
    assert check.feed("[[Steph Ango]]") + check.finish() == ""
    assert check.withheld_reply.startswith("Here is what [[Steph Ango]] says:")
    assert "twitter: kepano" in check.withheld_reply
    # the right answer is shown as written
    check = answer_check(TWITTER, [CLIPPINGS, RECORD])
    assert check.feed("kepano") + check.finish() == "kepano"
    # with no row asked for, the refusal stays
    check = answer_check("What is Steph Ango's phone number?", [CLIPPINGS, RECORD])
    assert check.feed("2026-12-07") + check.finish() == ""
    assert check.withheld_reply == REFUSAL


def test_an_author_of_another_book_is_withheld_and_the_book_named_quoted() -> None:
    # the 0.5B on kepano-obsidian (stop 60): "Kevin Kelly" is Out of Control's author (rag/answer/named_subject.py)
    machine = Passage("[[The Machine Stops]]", "The Machine Stops\nauthor: [[E. M. Forster]]\nyear: 1909")
    other = Passage("[[Out of Control]]", "Out of Control\nyear: 1992\nauthor: [[Kevin Kelly]]")
    check = answer_check("Who wrote The Machine Stops, and in which year was it published?", [machine, other])

    assert check.feed("Kevin Kelly, 1909") + check.finish() == ""
    assert check.withheld_reply.startswith("Here is what [[The Machine Stops]] says:")
    assert "author: [[E. M. Forster]]" in check.withheld_reply


# kepano-obsidian's trip and a place of it: the place's only date is one the note keeps about itself
TRIP = Passage(
    "[[2023 Japan Trip]]",
    "2023 Japan Trip\ncategories: [[Trips]]\nstart: 2023-09-12\nend: 2023-09-30\nloc: [[Kyoto]], [[Japan]]",
)
PLACE = Passage("[[Fushimi Inari]]", "Fushimi Inari\nloc: [[Kyoto]], [[Japan]]\nrating: 7\ncreated: 2023-09-12")
TRIPS = Passage("[[Kyoto#Trips]]", "| Trip | Start | End |\n| --- | --- | --- |\n| [[2023 Japan Trip]] | 2023-09-12 |")


def test_asked_when_the_dated_records_holding_every_word_asked_about_are_found() -> None:
    assert dated_records_asked("When was I in Kyoto?", [TRIPS, PLACE, TRIP]) == [TRIP]
    assert dated_records_asked("When did I book the hotel in Kyoto?", [TRIPS, PLACE, TRIP]) == []  # "book", "hotel"
    assert dated_records_asked("Where was I in Kyoto?", [TRIP]) == []  # not asked when
    assert dated_records_asked("When was I in Kyoto?", [PLACE]) == []  # "created:" dates the note, not a visit
    meeting = Passage(
        "[[2023-09-12 Meeting with Steph]]", "2023-09-12 Meeting with Steph\ndate: 2023-09-12\npeople: [[Steph Ango]]"
    )
    assert dated_records_asked("When did I meet Steph?", [meeting]) == [meeting]


def test_a_refusal_of_when_is_replaced_by_the_dated_record_quoted() -> None:
    # the 0.5B on kepano-obsidian (stop 61) refused "When was I in Kyoto?" with the trip's record read
    check = answer_check("When was I in Kyoto?", [TRIPS, PLACE, TRIP])
    assert check.feed(REFUSAL) + check.finish() == ""
    assert check.withheld_reply.startswith("Here is what [[2023 Japan Trip]] says:")
    assert "start: 2023-09-12" in check.withheld_reply
    # a right answer is shown as written
    check = answer_check("When was I in Kyoto?", [TRIPS, PLACE, TRIP])
    answer = "From 2023-09-12 to 2023-09-30."
    assert check.feed(answer) + check.finish() == answer
    # a near miss keeps its refusal
    check = answer_check("When did I book the hotel in Kyoto?", [TRIPS, PLACE, TRIP])
    assert check.feed(REFUSAL) + check.finish() == REFUSAL
