"""Answers dating against today: what comes next given only days gone by, how something went that is still to come.

Asked "When is my next dentist appointment?" over sample_vault on 2026-12-06, the 0.5B answered "The next dentist
appointment is on 2026-11-20.", from the task "Rebook dentist 📅 2026-11-20" of an old daily note: a date the notes
hold, so every other check let it through, but one gone by, which no "next" can be. Code knows today: an answer to a
question asking when something next comes that dates it only before today is withheld (its lines are then quoted as
the closest, for the user to judge).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from rag.answer.attribution import Passage, said_beyond, terms_of
from rag.answer.dates import dates_in, whole_days
from rag.answer.excerpts import sentences_of
from rag.answer.quote_words import holds_name, names_written

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


# A question on how something went: "What was my finish time at …?", "Did I win?", "Wie war …?". Not one on what
# was meant to happen ("What was my goal time?", "When was the race planned?"), which a plan answers.
_ASKS_HOW_IT_WENT = re.compile(r"\b(?:was|were|did|had|war|waren|hatte|hatten)\b", re.IGNORECASE)
_MEANT = re.compile(
    r"\b(?:goals?|targets?|aim\w*|plan\w*|intend\w*|meant|supposed|schedul\w*|expect\w*|hop(?:e|ed|ing)|want\w*"
    r"|going|would|will|ziel\w*|geplant|wollte\w*|sollte\w*)\b",
    re.IGNORECASE,
)


def reports_on_days_to_come(answer: str, question: str, passages: Sequence[Passage], today: date) -> bool:
    """Return True when `answer` says how something went that the notes date only after `today`, by a plan's figures.

    Asked "What was my finish time at the Leipzig Half Marathon 2027?" on 2026-12-07, the 0.5B answered "1:49",
    from the plan's "Run the Leipzig Half Marathon on 11 April 2027 in under 1:49:00": a figure the notes hold, but
    a goal for a day to come, which no note can have the result of. Judged so when the question asks how it went
    (not what was meant) of something it names (a run of capitalised words: "Leipzig Half Marathon"), every sentence
    naming it with a whole date dates it after today, and each of the answer's numbers is in a passage so dating it.
    """
    if not _ASKS_HOW_IT_WENT.search(question) or _MEANT.search(question):
        return False
    names = names_written(question)
    to_come: list[Passage] = []
    for passage in passages:
        days = [
            day
            for sentence in sentences_of(passage.text)
            if holds_name(sentence, names)
            for day in whole_days(sentence)
        ]
        if any(day <= today for day in days):
            return False  # a day gone by: it may have happened, and a note say how
        if days:
            to_come.append(passage)
    figures = {term for term in said_beyond(answer, question) if term[0].isdigit()}
    held = [terms_of(passage.text, bare_numbers=True) for passage in to_come]
    return bool(figures and held) and all(any(figure in terms for terms in held) for figure in figures)
