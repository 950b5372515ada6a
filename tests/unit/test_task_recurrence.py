"""The Tasks plugin's common recurrence rules: which are read, and the next date each gives (as rrule gives it)."""

from __future__ import annotations

from datetime import date

import pytest

from edits.text.recurrence import Recurrence, add_months, next_date, parse_recurrence

MON, TUE, WED, FRI, SUN = 0, 1, 2, 4, 6

RULES = [
    ("every day", Recurrence("day")),
    ("every 3 days", Recurrence("day", 3)),
    ("Every  Week", Recurrence("week")),
    ("every 2 weeks when done", Recurrence("week", 2, is_when_done=True)),
    ("every month", Recurrence("month")),
    ("every 6 months", Recurrence("month", 6)),
    ("every year", Recurrence("year")),
    ("every 1 years", Recurrence("year")),
    ("every weekday", Recurrence("week", weekdays=frozenset({0, 1, 2, 3, 4}))),
    ("every Monday", Recurrence("week", weekdays=frozenset({MON}))),
    ("every sunday when done", Recurrence("week", weekdays=frozenset({SUN}), is_when_done=True)),
    ("every Tuesday, Friday", Recurrence("week", weekdays=frozenset({TUE, FRI}))),
    ("every week on Monday", Recurrence("week", weekdays=frozenset({MON}))),
    ("every 3 weeks on Wed and Fri", Recurrence("week", 3, frozenset({WED, FRI}))),
]


@pytest.mark.parametrize(("text", "rule"), RULES, ids=[r[0] for r in RULES])
def test_common_rules_are_read(text: str, rule: Recurrence) -> None:
    assert parse_recurrence(text) == rule


UNSUPPORTED = [
    "every month on the last",
    "every month on the 1st",
    "every month on the last Friday",
    "every January on the 15th",
    "every April and December on the 1st and 24th",
    "every two weeks",  # rrule reads no number words: the plugin ignores the rule too
    "every 0 days",
    "every 2 weekdays",  # rrule: every second week, Monday to Friday; left to the plugin
    "every hour",
    "every",
    "each week",
    "when done",
]


@pytest.mark.parametrize("text", UNSUPPORTED)
def test_other_rules_are_not_guessed(text: str) -> None:
    assert parse_recurrence(text) is None


NEXT = [
    ("every day", date(2024, 2, 28), date(2024, 2, 29)),
    ("every 10 days", date(2024, 12, 25), date(2025, 1, 4)),
    ("every week", date(2024, 3, 4), date(2024, 3, 11)),
    ("every 2 weeks", date(2021, 10, 30), date(2021, 11, 13)),  # the plugin's docs: Mow the lawn
    ("every weekday", date(2024, 3, 8), date(2024, 3, 11)),  # Friday -> Monday
    ("every weekday", date(2024, 3, 9), date(2024, 3, 11)),  # a Saturday reference -> Monday
    ("every weekday", date(2024, 3, 5), date(2024, 3, 6)),
    ("every Sunday", date(2021, 4, 25), date(2021, 5, 2)),  # the plugin's docs: take out the trash
    ("every Monday", date(2024, 3, 6), date(2024, 3, 11)),  # from a Wednesday
    ("every Tuesday, Friday", date(2024, 3, 5), date(2024, 3, 8)),
    ("every week on Monday", date(2024, 3, 4), date(2024, 3, 11)),
    ("every 2 weeks on Monday", date(2024, 3, 4), date(2024, 3, 18)),
    ("every 2 weeks on Monday", date(2024, 3, 6), date(2024, 3, 18)),  # rrule counts weeks from the base's week
    ("every month", date(2021, 10, 31), date(2021, 11, 30)),  # the plugin's docs: moved earlier, not skipped
    ("every month", date(2022, 1, 31), date(2022, 2, 28)),
    ("every month", date(2024, 1, 31), date(2024, 2, 29)),
    ("every 3 months", date(2022, 1, 31), date(2022, 4, 30)),  # the plugin's docs: non-existent date
    ("every 2 months", date(2024, 12, 15), date(2025, 2, 15)),
    ("every year", date(2024, 2, 29), date(2025, 2, 28)),
    ("every 4 years", date(2024, 2, 29), date(2028, 2, 29)),
]


@pytest.mark.parametrize(("text", "base", "expected"), NEXT, ids=[f"{r[0]} from {r[1]}" for r in NEXT])
def test_the_next_date_is_the_rules_first_date_after_the_base(text: str, base: date, expected: date) -> None:
    rule = parse_recurrence(text)
    assert rule is not None
    assert next_date(rule, base) == expected


def test_months_are_added_across_years_and_clamped_to_the_months_last_day() -> None:
    assert add_months(date(2023, 11, 30), 3) == date(2024, 2, 29)
    assert add_months(date(2023, 3, 31), -1) == date(2023, 2, 28)
    assert add_months(date(2023, 5, 15), 0) == date(2023, 5, 15)
