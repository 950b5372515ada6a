"""Dates read as one term each, however written: an answer's date meets a note's only on the whole date."""

from __future__ import annotations

import pytest

from rag.answer.attribution import Passage, terms_of
from rag.answer.dates import Date, dates_in, day_keys, days_meet
from rag.answer.evidence import evidence_for, is_borne_out

TRIPS = Passage(
    "[[Kyoto#Trips]]",
    "| Date | Who | Where |\n| --- | --- | --- |\n| 2023-09-12 | Steph Ango | Kyoto, Hotel Kanra |",
)


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("2023-09-12", "2023-09-12"),
        ("on 12 September 2023", "2023-09-12"),
        ("September 12, 2023", "2023-09-12"),
        ("Sept. 5th, 2021", "2021-09-05"),
        ("am 12. März 2023", "2023-03-12"),
        ("the 3rd of March", "03-03"),
        ("May 3", "05-03"),
        ("in September 2023", "2023-09"),
        ("the 2023-09 review", "2023-09"),
    ],
)
def test_a_date_however_written_is_one_term(text: str, term: str) -> None:
    dates, rest = dates_in(text)
    assert [date.term for date in dates] == [term]
    assert not any(character.isdigit() for character in rest)


@pytest.mark.parametrize("text", ["you may 3 times", "2023-45-12", "at 10:30, 5 apples", "version 2.3 May", "40 May"])
def test_numbers_that_are_no_date_stay_numbers(text: str) -> None:
    dates, rest = dates_in(text)
    assert dates == []
    assert rest == text


def test_a_notes_date_also_says_its_year_month_and_day_an_answers_says_only_itself() -> None:
    assert Date(2023, 9, 12).parts() == {"2023", "2023-09", "09-12"}
    assert terms_of("2023-09-12", bare_numbers=True) >= {"2023-09-12", "2023", "2023-09", "09-12"}
    assert terms_of("2026-12-04") == {"2026-12-04"}  # not 2026, 12 and 4


def test_a_date_in_the_answer_meets_the_same_date_written_otherwise_in_a_note() -> None:
    question = "When did I stay in Kyoto?"
    assert evidence_for("You stayed there on 12 September 2023.", [TRIPS], question=question)
    assert evidence_for("In September 2023.", [TRIPS], question=question)


def test_another_date_sharing_a_number_with_a_notes_date_is_no_evidence() -> None:
    # Recorded from the 0.5B on kepano-obsidian: today's date, from its prompt, given as a phone number. Read as
    # numbers, its "12" met the trip row's "2023-09-12", and that row was shown as its evidence.
    question = "What is Steph Ango's phone number?"
    answer = "The phone number of Steph Ango is 2026-12-04."
    assert evidence_for(answer, [TRIPS], question=question) == []
    assert not is_borne_out(answer, [TRIPS], question=question)


def test_the_days_a_text_gives_are_keyed_as_date_terms() -> None:
    assert day_keys("Sun 15 Nov: long run") == frozenset({"11-15"})
    assert day_keys("[[2026-11-15#Log]] and 3 December 2026") == frozenset({"2026-11-15", "2026-12-03"})
    assert day_keys("In September 2023, nothing.") == frozenset()  # a month is no day


def test_a_day_without_a_year_meets_its_month_and_day_in_any_year_and_whole_dates_only_their_own() -> None:
    asked = day_keys("How far did I run on 2026-11-15?")

    assert days_meet(asked, day_keys("Sun 15 Nov: long run"))
    assert days_meet(day_keys("on 15 November"), day_keys("[[2026-11-15#Log]]"))
    assert not days_meet(asked, day_keys("15 November 2025: long run"))
    assert not days_meet(asked, day_keys("Sat 14 Nov"))


def test_a_date_with_a_time_after_it_is_that_day() -> None:
    # A property holding a date and a time is shown so ("created: 2023-09-12T10:00:00", rag/chunks/chunking).
    assert day_keys("created: 2023-09-12T10:00:00") == {"2023-09-12"}
    assert day_keys("build 2023-09-12Tx") == frozenset()
