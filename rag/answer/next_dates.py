"""Answers to a question about what comes next that give only days gone by ("When is my next dentist appointment?").

Asked "When is my next dentist appointment?" over sample_vault on 2026-12-06, the 0.5B answered "The next dentist
appointment is on 2026-11-20.", from the task "Rebook dentist 📅 2026-11-20" of an old daily note: a date the notes
hold, so every other check let it through, but one gone by, which no "next" can be. Code knows today: an answer to a
question asking when something next comes that dates it only before today is withheld (its lines are then quoted as
the closest, for the user to judge).
"""

from __future__ import annotations

import re
from datetime import date

from rag.answer.dates import dates_in

# A question asking when something comes next: "When is my next …?", "What date is the upcoming …?", "When's the
# coming …?", "Wann ist mein nächster …?".
_ASKS_NEXT = re.compile(
    r"^\W*(?:when|what\s+(?:date|day|time)|which\s+(?:date|day)|wann)\b[^?]*\b(?:next|upcoming|coming|nächste[nrs]?)\b",
    re.IGNORECASE,
)


def dates_only_gone_by(answer: str, question: str, today: date) -> bool:
    """Return True when `question` asks when something next comes and `answer` gives whole dates, all before today."""
    if not _ASKS_NEXT.search(question):
        return False
    days = []
    for written in dates_in(answer)[0]:
        if written.year is None or written.day is None:
            return False  # "in March", "on 20 November": no whole date to judge by
        try:
            days.append(date(written.year, written.month, written.day))
        except ValueError:  # "31 February": not a day at all, for other checks to judge
            return False
    return bool(days) and max(days) < today
