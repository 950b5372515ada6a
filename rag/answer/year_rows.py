"""A figure the notes give for another year than the question asks about: a row keyed by that year.

Asked "How many tomato plants of each variety did I grow in 2026, …?", the 0.5B answered "8 tomato plants of each
variety", the tomato note's property `plants_2027: 8`: next year's plan, borne out word for word. A row whose key
names a year ("plants_2027", "total_km_2026"), or a passage whose heading does ("## 2027 plan"), gives its figures
for that year; a question naming another year and not that one asks for something else. An answer's number found
only in such rows is given for another year. A row or passage naming no year says nothing either way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import Passage
from rag.answer.question_parts import PART_NUMBER
from rag.answer.records import PROPERTY_ROW
from rag.answer.rival_figures import BARE_NUMBER, Rival

_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")  # on to a key's word too: "plants_2027"


def given_for_another_year(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the rows giving the answer's numbers for another year than the question names ([]: none, or not so).

    Only when every line of `passages` holding one of the answer's numbers (not the question's) gives it for a year,
    none of them the asked one.
    """
    asked = set(_YEAR.findall(question))
    if not asked:
        return []
    # A part's own "1. " is no figure of it.
    numbers = set(BARE_NUMBER.findall(PART_NUMBER.sub("", answer))) - set(BARE_NUMBER.findall(question))
    if not numbers:
        return []
    rivals = []
    for passage in passages:
        heading = set(_YEAR.findall(passage.source.partition("#")[2]))
        for line in passage.text.splitlines():
            row = PROPERTY_ROW.match(line)
            # What the line gives: a property row's value (its key's year is no figure of it), else the line.
            given = numbers & set(BARE_NUMBER.findall(row["value"] if row else line))
            if not given:
                continue
            years = (set(_YEAR.findall(row["key"])) if row else set()) or heading
            if not years or years & asked:
                return []  # given for no year, or for the one asked
            rivals.append(Rival(figure=min(given), sentence=line.strip(), source=passage.source))
    return rivals
