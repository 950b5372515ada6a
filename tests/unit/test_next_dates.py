"""An answer to when something next comes that dates it only before today (rag/answer/next_dates.py)."""

from __future__ import annotations

from datetime import date

import pytest

from rag.answer.next_dates import dates_only_gone_by

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
