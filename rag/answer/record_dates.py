"""Dates of a note's properties given for what they do not date.

Many notes are records: a book's or a podcast episode's properties, shown as `key: value` rows
(rag/answer/records.py). Asked "Which book by Kevin Kelly have I noted, and when was it published?" over
kepano-obsidian, Qwen2.5-Coder 0.5B answered in one run "Out of Control was published on 2023-09-12", the book
note's `created:` and `last:` date, and in another "… on 2021-04-15", the podcast episode's `published:` date, where
the book's record says `year: 1992`. The word test passes both (the date is a note's), and dates are no figures to
the rival test (rag/answer/rival_figures.py). Two readings catch them:

- A date a note keeps about itself ("created:", "last:", "date modified:", as templates and the Linter plugin write
  them) says when the user wrote or touched the note, so it does not answer a question asking when something came
  to be (published, released, born, founded, …), unless the question asks about the keeping too (created, added,
  last, …). Asked when the user read a book, the `created:` date may be the answer, so no other question is judged.
- A date the answer gives for a record it names by title ("Out of Control") that only other records' rows give.

Either way the answer is withheld (only when the passages read give the date nowhere else: not in a sentence, not
under another key), and the named record's own dated rows ("year: 1992") are shown first under the refusal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import Passage
from rag.answer.citations import note_of
from rag.answer.dates import day_keys, days_meet
from rag.answer.excerpts import question_stems, stem
from rag.answer.records import PROPERTY_ROW, record_text
from rag.answer.rival_figures import Rival

_YEAR = re.compile(r"^[12]\d{3}$")

# Keys under which a note dates itself, as templates and plugins name them (lower case, words spaced).
KEEPING_KEYS = frozenset(
    {
        "created", "created at", "created on", "creation date", "date created", "date added", "added",
        "modified", "modified at", "date modified", "last modified", "updated", "updated at", "date updated",
        "last updated", "edited", "last edited", "lastmod", "last", "mtime", "ctime",
        "erstellt", "geändert", "aktualisiert",
    }
)  # fmt: skip


def _stems(*words: str) -> frozenset[str]:
    return frozenset(stem(word) for word in words)


# Words of a question asking when what a note is about came to be, in English and German.
_COMING_ABOUT = _stems(
    "publish", "published", "publication", "release", "released", "born", "birth", "founded", "premiere",
    "premiered", "launch", "launched", "established", "invented", "died", "death",
    "erschienen", "veröffentlicht", "geboren", "gegründet", "gestorben",
)  # fmt: skip
# Words of a question asking about the note's keeping, which such a date may answer.
_KEEPING_WORDS = _stems(
    "create", "created", "creation", "add", "added", "modify", "modified", "update", "updated", "edit", "edited",
    "change", "changed", "last", "lastly", "erstellt", "geändert", "aktualisiert", "zuletzt",
)  # fmt: skip


def misdated(answer: str, passages: Sequence[Passage], *, question: str) -> list[str]:
    """Return the days `answer` gives that the passages' properties give for something else (date terms, in order).

    A note's keeping date given for when something came to be, or another record's date given for a record the
    answer names (see the module's docstring); [] for none.
    """
    asks_keeping = bool(question_stems(question) & _KEEPING_WORDS)
    asks_coming_about = bool(question_stems(question) & _COMING_ABOUT) and not asks_keeping
    named = _named_records(answer, passages)
    found = []
    for day in sorted(day_keys(answer)):
        places = [(passage, line) for passage in passages for line in _lines_giving(passage.text, day)]
        if not places:
            continue
        kept_only = asks_coming_about and all(_is_keeping_row(line) for _, line in places)
        others_only = bool(named) and all(
            passage not in named and record_text(passage.text) and PROPERTY_ROW.match(line) for passage, line in places
        )
        if kept_only or others_only:
            found.append(day)
    return found


def record_date_rivals(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the dated rows ("year: 1992") of the records `answer` names, or else of those holding its misdates.

    What the refusal shows first. Keeping dates only when the question asks about the keeping.
    """
    wrong = misdated(answer, passages, question=question)
    if not wrong:
        return []
    asks_keeping = bool(question_stems(question) & _KEEPING_WORDS)
    holding = [passage for passage in passages if any(_lines_giving(passage.text, day) for day in wrong)]
    rivals = []
    for passage in _named_records(answer, passages) or holding:
        for row in PROPERTY_ROW.finditer(passage.text):
            value = row["value"].strip()
            dated = _YEAR.match(value) or day_keys(value)
            if dated and not day_keys(value) & set(wrong) and (asks_keeping or not _is_keeping_row(row[0])):
                rivals.append(Rival(value, row[0].strip(), passage.source))
    return rivals


def _named_records(answer: str, passages: Sequence[Passage]) -> list[Passage]:
    """Return the passages that are records whose note's title `answer` names, as a whole word or words."""
    named = []
    for passage in passages:
        title = note_of(passage.source).rsplit("/", 1)[-1]
        if title and record_text(passage.text) and re.search(rf"(?<!\w){re.escape(title)}(?!\w)", answer, re.I):
            named.append(passage)
    return named


def _lines_giving(text: str, day: str) -> list[str]:
    return [line for line in text.splitlines() if days_meet(frozenset({day}), day_keys(line))]


def _is_keeping_row(line: str) -> bool:
    row = PROPERTY_ROW.match(line)
    return row is not None and _normal_key(row["key"]) in KEEPING_KEYS


def _normal_key(key: str) -> str:
    """Return a property's key as compared: lower case, words spaced ("Date_Created" -> "date created")."""
    return " ".join(re.split(r"[\s_\-]+", key.casefold())).strip()
