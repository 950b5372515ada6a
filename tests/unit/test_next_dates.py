"""Answers dating against today (rag/answer/next_dates.py): the next of something gone by, how a day to come went."""

from __future__ import annotations

from datetime import date

import pytest

from rag.answer.attribution import Passage
from rag.answer.next_dates import dates_only_gone_by, reports_on_days_to_come

TODAY = date(2026, 12, 6)


@pytest.mark.parametrize(
    ("answer", "question", "gone_by"),
    [
        # sample_vault, the 0.5B: the task "Rebook dentist 📅 2026-11-20" of an old daily note
        ("The next dentist appointment is on 2026-11-20.", "When is my next dentist appointment?", True),
        ("The upcoming review was on 3 November 2026.", "What date is the upcoming design review?", True),
        ("It is on 2027-01-12.", "When is my next dentist appointment?", False),  # to come
        ("On 2026-11-20, and again on 2027-01-12.", "When is my next checkup?", False),  # one of them to come
        ("On 20 November.", "When is my next dentist appointment?", False),  # no year: not judged here
        ("The race was on 2026-11-01.", "When was the race?", False),  # no "next" asked
        ("I'll know by next week.", "When is my next dentist appointment?", False),  # no date given
    ],
)
def test_a_date_gone_by_is_no_answer_to_when_something_next_comes(answer: str, question: str, gone_by: bool) -> None:
    assert dates_only_gone_by(answer, question, TODAY) is gone_by


# sample_vault's Half Marathon Plan, its goal and an older race
RACE_PLAN = Passage(
    "[[Half Marathon Plan#Goal]]",
    "Run the Leipzig Half Marathon on **11 April 2027** in **under 1:49:00**, which is an even 5:10 per kilometre. "
    "My only previous half was Halle in 2024 in 1:58:41, before I ran regularly. The goal is based on my 10 km "
    "personal best of 49:32 at the Auensee autumn run on 18 October 2026; the usual race-time calculators put the "
    "equivalent half at 1:49–1:50, so 1:49 is ambitious but fair.",
)
RACE_RUN = Passage("[[Running Log]]", "Ran the Leipzig Half Marathon on 5 April 2026 in 1:55:02. Legs gone at km 18.")
FINISH_TIME = "What was my finish time at the Leipzig Half Marathon 2027?"


@pytest.mark.parametrize(
    ("answer", "question", "passages", "today", "reports"),
    [
        # the 0.5B on sample_vault, 2026-12-07: the goal's figure given as the result of a race still to come
        ("1:49", FINISH_TIME, [RACE_PLAN], date(2026, 12, 7), True),
        ("You finished in under 1:49:00.", FINISH_TIME, [RACE_PLAN], date(2026, 12, 7), True),
        ("1:49", FINISH_TIME, [RACE_PLAN], date(2027, 5, 1), False),  # the day has come: a note may say how it went
        # a note dates it on a day gone by too: how that went may be written
        ("1:55:02", "What was my time at the Leipzig Half Marathon?", [RACE_PLAN, RACE_RUN], date(2026, 12, 7), False),
        ("The notes don't say.", FINISH_TIME, [RACE_PLAN], date(2026, 12, 7), False),  # no figure given
        ("1:49", "What was my goal time at the Leipzig Half Marathon?", [RACE_PLAN], date(2026, 12, 7), False),
        ("1:49", "What is my target for the Leipzig Half Marathon?", [RACE_PLAN], date(2026, 12, 7), False),
        ("49:32", "What was my time at the Auensee autumn run?", [RACE_PLAN], date(2026, 12, 7), False),  # gone by
        ("1:49", "What was my finish time?", [RACE_PLAN], date(2026, 12, 7), False),  # names nothing to date
    ],
)
def test_how_a_day_to_come_went_is_no_plan_figure(
    answer: str, question: str, passages: list[Passage], today: date, reports: bool
) -> None:
    assert reports_on_days_to_come(answer, question, passages, today) is reports
