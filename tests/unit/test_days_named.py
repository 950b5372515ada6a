"""The days a question names, relative to today (rag/answer/days_named.py)."""

from __future__ import annotations

from datetime import date

import pytest

from rag.answer.days_named import days_named, listed_days, past_weekday, period_named

TODAY = date(2026, 12, 5)  # a Saturday


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("What did I do last week?", date(2026, 11, 23), date(2026, 11, 29)),  # Monday to Sunday before this one
        ("Was habe ich letzte Woche gemacht?", date(2026, 11, 23), date(2026, 11, 29)),
        ("Summarize last month.", date(2026, 11, 1), date(2026, 11, 30)),
        ("What happened this month?", date(2026, 12, 1), date(2026, 12, 31)),
        ("What did I write yesterday?", date(2026, 12, 4), date(2026, 12, 4)),
        ("What did I do on 2026-11-16?", date(2026, 11, 16), date(2026, 11, 16)),
        ("Summarize the week of 2026-11-11.", date(2026, 11, 9), date(2026, 11, 15)),  # a Wednesday's week
        ("Was war in der Woche vom 11. November 2026?", date(2026, 11, 9), date(2026, 11, 15)),
    ],
)
def test_the_days_a_question_names_are_read(question: str, first: date, last: date) -> None:
    assert days_named(question, TODAY) == (first, last)


def test_last_weekend_is_the_one_before_this_week() -> None:
    assert days_named("What did I do last weekend?", TODAY) == (date(2026, 11, 28), date(2026, 11, 29))
    assert days_named("What is planned for the weekend?", TODAY) == (TODAY, date(2026, 12, 6))


def test_a_date_without_a_year_asked_of_the_past_is_the_last_one_gone_by() -> None:
    january = date(2027, 1, 4)

    assert days_named("What did I do on 28 December?", january, past=True) == (date(2026, 12, 28), date(2026, 12, 28))
    assert days_named("What is due on 28 December?", january) == (date(2027, 12, 28), date(2027, 12, 28))
    assert days_named("What did I do on 2 January?", january, past=True) == (date(2027, 1, 2), date(2027, 1, 2))


def test_last_month_in_january_is_last_years_december() -> None:
    assert days_named("What did I do last month?", date(2027, 1, 10)) == (date(2026, 12, 1), date(2026, 12, 31))


def test_a_question_naming_no_day_names_none() -> None:
    assert days_named("How do I fix the greenhouse door?", TODAY) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What did I do on Monday?", date(2026, 11, 30)),  # the Monday gone by; days_named takes the coming one
        ("What did I do on Saturday?", date(2026, 11, 28)),  # today is one: the one before it
        ("What is planned for next Monday?", None),  # qualified: days_named says which
        ("What did I do last Friday?", None),
        ("What did I do on 2026-11-16, a Monday?", None),  # a written date says which
        ("How is the garden?", None),
    ],
)
def test_a_week_day_named_alone_is_also_the_one_gone_by(question: str, expected: date | None) -> None:
    assert past_weekday(question, TODAY) == expected


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("What did I do from 2026-11-09 to 2026-11-12?", date(2026, 11, 9), date(2026, 11, 12)),
        ("What happened between 9 November and 12 November?", date(2026, 11, 9), date(2026, 11, 12)),
        ("Summarize 2026-11-09 – 2026-11-11.", date(2026, 11, 9), date(2026, 11, 11)),
        ("Which tasks are due 2026-11-09 until 2026-11-20?", date(2026, 11, 9), date(2026, 11, 20)),
        # Two days asked apart are no span: the first one counts, as before.
        ("What is due on 2026-11-09 and what on 2026-11-12?", date(2026, 11, 9), date(2026, 11, 9)),
        ("What did I do to the fence on 2026-11-09 and 2026-11-12?", date(2026, 11, 9), date(2026, 11, 9)),
        ("What was due from 2026-11-12 to 2026-11-09?", date(2026, 11, 12), date(2026, 11, 12)),  # backwards
    ],
)
def test_two_dates_joined_into_a_span_name_the_days_from_one_to_the_other(
    question: str, first: date, last: date
) -> None:
    assert days_named(question, TODAY) == (first, last)


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("What did I do from 9 to 12 November?", date(2026, 11, 9), date(2026, 11, 12)),
        ("What happened 9-12 Nov 2025?", date(2025, 11, 9), date(2025, 11, 12)),
        ("Was war vom 9. bis 12. November?", date(2026, 11, 9), date(2026, 11, 12)),
        ("Summarize November 9-12.", date(2026, 11, 9), date(2026, 11, 12)),
        ("What did I write from the 9th to the 12th of November?", date(2026, 11, 9), date(2026, 11, 12)),
        ("What happened Nov 9 – 12, 2025?", date(2025, 11, 9), date(2025, 11, 12)),  # the year after the second
        ("What happened between November 9 and 12?", date(2026, 11, 9), date(2026, 11, 12)),
        # Not spans: "and" without "between" asks of two days (the date written counts), a number past the date's
        # day, a decimal.
        ("What did I do on 9 and 12 November?", date(2026, 11, 12), date(2026, 11, 12)),
        ("What did I do on 14 - 12 November?", date(2026, 11, 12), date(2026, 11, 12)),
        ("Which tasks cost 3.5 - 12 November?", date(2026, 11, 12), date(2026, 11, 12)),
    ],
)
def test_a_span_whose_month_is_written_once_is_read_whole(question: str, first: date, last: date) -> None:
    assert days_named(question, TODAY) == (first, last)


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("What did I do on Friday last week?", date(2026, 11, 27)),  # not the coming Friday
        ("Was habe ich am Freitag letzte Woche gemacht?", date(2026, 11, 27)),
        ("What is planned for Monday of next week?", date(2026, 12, 7)),
        ("What did I do on Tuesday this week?", date(2026, 12, 1)),
    ],
)
def test_a_week_day_named_with_its_week_is_that_weeks(question: str, day: date) -> None:
    assert days_named(question, TODAY) == (day, day)
    assert past_weekday(question, TODAY) is None  # the week says which: no other day is looked up


def test_a_week_named_in_another_sentence_is_not_the_week_days() -> None:
    question = "What did I do on Friday? And what is planned next week?"

    assert days_named(question, TODAY) == (date(2026, 12, 11), date(2026, 12, 11))  # the coming one, as alone
    assert past_weekday(question, TODAY) == date(2026, 12, 4)  # and the one gone by, not next week's


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        # Asked of the past on 18 November: the first day says the year (the 25th alone would be last year's).
        ("What did I do from 9 to 25 November?", date(2026, 11, 9), date(2026, 11, 25)),
        ("What did I do from 9 November to 25 November?", date(2026, 11, 9), date(2026, 11, 25)),
        ("What did I do November 1-30?", date(2026, 11, 1), date(2026, 11, 30)),
        ("What did I do from 28 December to 3 January?", date(2025, 12, 28), date(2026, 1, 3)),
        ("What did I do between the 9th and the 12th November?", date(2026, 11, 9), date(2026, 11, 12)),
        # A time of day or a sum of money is no day.
        ("Who was at the meeting November 9 - 11 am?", date(2026, 11, 9), date(2026, 11, 9)),
        ("Was war am 12. November 12 - 14 Uhr?", date(2026, 11, 12), date(2026, 11, 12)),
        ("What costs $5 - 12 November?", date(2026, 11, 12), date(2026, 11, 12)),
    ],
)
def test_a_span_asked_of_the_past_takes_its_year_from_its_first_day(question: str, first: date, last: date) -> None:
    assert days_named(question, date(2026, 11, 18), past=True) == (first, last)


@pytest.mark.parametrize(
    ("question", "first", "listed"),
    [
        ("What did I do on 9 and 12 November?", date(2026, 11, 12), {date(2026, 11, 9)}),
        ("What did I do on 9, 10 and 12 November?", date(2026, 11, 12), {date(2026, 11, 9), date(2026, 11, 10)}),
        ("Was habe ich am 9. und 12. November gemacht?", date(2026, 11, 12), {date(2026, 11, 9)}),
        ("What did I do on November 9 and 12?", date(2026, 11, 9), {date(2026, 11, 12)}),
        ("What did I do on 2026-11-09 and 2026-11-12?", date(2026, 11, 9), {date(2026, 11, 12)}),
        # A week day unqualified: the coming one and the one gone by, as the first is read.
        ("What did I do on Monday and Friday?", date(2026, 12, 7), {date(2026, 12, 4), date(2026, 12, 11)}),
        ("What did I do on 12 November?", date(2026, 11, 12), set()),
        ("Did the $5 and 12 November payments go through?", date(2026, 11, 12), set()),  # a sum, not a day
        ("What is on November 9 and 11 am?", date(2026, 11, 9), set()),  # a time of day
    ],
)
def test_the_days_a_question_lists_are_each_read(question: str, first: date, listed: set[date]) -> None:
    assert days_named(question, TODAY, past=True) == (first, first)
    assert listed_days(question, TODAY, past=True, gone_by=True) == listed


def test_the_days_listed_beside_a_span_are_read_and_its_own_are_not_listed_again() -> None:
    assert listed_days("What did I do between 9 and 12 November?", TODAY, past=True) == set()
    assert listed_days("What did I do from 28 December to 3 January?", TODAY, past=True) == set()  # its end
    assert listed_days("What did I do from 9 to 12 November and on 20 November?", TODAY, past=True) == {
        date(2026, 11, 20)
    }


def test_a_week_day_listed_is_the_coming_one_unless_the_one_gone_by_is_asked_for_too() -> None:
    assert listed_days("What is due on Monday and Friday?", TODAY) == {date(2026, 12, 11)}
    assert listed_days("What is due today and on Friday?", TODAY) == {date(2026, 12, 11)}  # "today" came first
    assert listed_days("What did I do on Monday and Friday?", TODAY, gone_by=True) == {
        date(2026, 12, 4),
        date(2026, 12, 11),
    }


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("Which notes did I create in 2023?", date(2023, 1, 1), date(2023, 12, 31)),
        ("What did I change this year?", date(2026, 1, 1), date(2026, 12, 31)),
        ("Which notes did I add last year?", date(2025, 1, 1), date(2025, 12, 31)),
        ("What notes were created in March?", date(2026, 3, 1), date(2026, 3, 31)),  # the last March begun
        ("What notes were created in December?", date(2026, 12, 1), date(2026, 12, 31)),
        ("Which notes did I create on 28 December?", date(2025, 12, 28), date(2025, 12, 28)),  # the last gone by
        ("Which notes did I create last week?", date(2026, 11, 23), date(2026, 11, 29)),
    ],
)
def test_a_period_gone_by_is_read_as_a_year_or_a_month_alone_too(question: str, first: date, last: date) -> None:
    assert period_named(question, TODAY) == (first, last)


def test_a_question_naming_no_period_or_a_word_like_a_month_names_none() -> None:
    assert period_named("Which notes did I create recently?", TODAY) is None
    assert period_named("What did I write in may be a draft?", TODAY) is None  # "may" in lower case is a verb
