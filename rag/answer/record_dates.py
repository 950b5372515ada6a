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
- A date the answer gives for a note it names by title ("Out of Control"), or the question does when the answer
  names none ("When was Out of Control published?" "2021-04-15"), that only other records' rows give: the 0.5B's
  "Kevin Kelly wrote The Machine Stops in 1992.", the year of Out of Control's record.

Either way the answer is withheld (only when the passages read give the date nowhere else: not in a sentence, not
under another key; a base's table giving it in its `last` column gives it under that key), and the named record's
own dated rows ("year: 1992") are shown first under the refusal. A year is judged as a day is: "2023", asked what
year Blade Runner came out, where the note says `year: 1982` and `last: 2023-09-14`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import Passage, terms_of
from rag.answer.citations import note_of, note_title
from rag.answer.dates import dates_in, day_keys, days_meet
from rag.answer.excerpts import question_stems, stem
from rag.answer.records import PROPERTY_ROW, is_keeping_key, record_text
from rag.answer.rival_figures import Rival
from rag.chunks.pieces import TABLE_DIVIDER, table_cells
from rag.notes.inline import WIKILINK
from rag.notes.property_keys import KEEPING_KEYS, KEEPING_VERBS, normal_key

_YEAR = re.compile(r"^[12]\d{3}$")
_YEAR_IN_TEXT = re.compile(r"(?<![\d.,:/-])(?:1[5-9]|20)\d\d(?![\d.,:/-]\d|\d)")


def _stems(*words: str) -> frozenset[str]:
    return frozenset(stem(word) for word in words)


# Words of a question asking when what a note is about came to be, in English and German.
_COMING_ABOUT = _stems(
    "publish", "published", "publication", "release", "released", "born", "birth", "founded", "premiere",
    "premiered", "launch", "launched", "established", "invented", "died", "death", "debut", "debuted", "aired",
    "recorded", "filmed",
    "erschienen", "veröffentlicht", "geboren", "gegründet", "gestorben",
)  # fmt: skip
_COMES_OUT = re.compile(r"\bc[oa]me\s+out\b|\bkam\s+\w+\s+heraus\b", re.IGNORECASE)  # "When did it come out?"
# Words of a question asking about the note's keeping, which such a date may answer.
# "last" too ("When did I last read it?"), which property_records leaves out: "things that last" asks no date.
_KEEPING_WORDS = _stems(*KEEPING_VERBS, "add", "change", "last", "lastly", "zuletzt")


def misdated(answer: str, passages: Sequence[Passage], *, question: str) -> list[str]:
    """Return the days and years `answer` gives that the passages' properties give for something else, in order.

    A note's keeping date given for when something came to be, or another record's date given for a note the
    answer names (see the module's docstring); [] for none. A date the question gives is not judged, and no keeping
    date is, in an answer also giving a date the notes give under another key ("published in 1992; you added it on
    2023-09-12" labels both).
    """
    asks_keeping = bool(question_stems(question) & _KEEPING_WORDS)
    asks_coming_about = bool(question_stems(question) & _COMING_ABOUT or _COMES_OUT.search(question))
    asks_coming_about = asks_coming_about and not asks_keeping
    named = _notes_named(answer, passages, question=question)
    # A named record dating itself ("year: 1992") is what the answer's date is for; else a record linking a named
    # note may be ("Kevin Kelly's book …": the book's record links the author).
    by_link = not any(_title(passage) in named and _dated_rows(passage, keeping=False) for passage in passages)
    asked = set(_dates_given(question))
    given = {
        term: [(passage, line, key) for passage in passages for line, key in _keys_giving(passage.text, term)]
        for term in _dates_given(answer)
        if term not in asked
    }
    gives_another = any(key not in KEEPING_KEYS for places in given.values() for _, _, key in places)
    found = []
    for term, places in given.items():
        if not places:
            continue
        kept_only = asks_coming_about and not gives_another and all(key in KEEPING_KEYS for _, _, key in places)
        others_only = bool(named) and all(
            not _is_named(passage, named, by_link=by_link) and record_text(passage.text) and PROPERTY_ROW.match(line)
            for passage, line, _ in places
        )
        if kept_only or others_only:
            found.append(term)
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
    named = _notes_named(answer, passages, question=question)
    records = [passage for passage in passages if record_text(passage.text)]
    for passage in [passage for passage in records if _title(passage) in named] or holding:
        for row, value in _dated_rows(passage, keeping=asks_keeping):
            if not any(_gives(value, term) for term in wrong):
                rivals.append(Rival(value, row, passage.source))
    return rivals


def _dated_rows(passage: Passage, *, keeping: bool) -> list[tuple[str, str]]:
    """Return the rows of `passage`'s record giving a date or a year, and their values; keeping dates if `keeping`."""
    rows = []
    for row in PROPERTY_ROW.finditer(record_text(passage.text)):
        value = row["value"].strip()
        if (_YEAR.match(value) or day_keys(value)) and (keeping or not _is_keeping_row(row[0])):
            rows.append((row[0].strip(), value))
    return rows


def _notes_named(answer: str, passages: Sequence[Passage], *, question: str) -> set[str]:
    """Return the titles of the notes read that `answer` names, or else that `question` names (lower case)."""
    return _named_notes(answer, passages) or _named_notes(question, passages)


def _named_notes(text: str, passages: Sequence[Passage]) -> set[str]:
    """Return the titles of the notes read that `text` names, as a whole word or words (lower case).

    An answer's names first; an answer naming none ("2021-04-15") is of the notes the question names ("When was
    Out of Control published?"). A note read only by a section ("The Machine Stops#Quotes") is named too.
    """
    named = set()
    for passage in passages:
        title = _title(passage)
        if title and re.search(rf"(?<!\w){re.escape(title)}(?!\w)", text, re.IGNORECASE):
            named.add(title)
    return named


def _is_named(passage: Passage, named: set[str], *, by_link: bool) -> bool:
    """Return True when `passage` is of a note `named` holds, or (`by_link`) a record linking one.

    A book's record ("author: [[Kevin Kelly]]") is what "Kevin Kelly's book was published in 1992." is about.
    """
    if _title(passage) in named:
        return True
    if not by_link:
        return False
    linked = {note_title(match[0]).casefold() for match in WIKILINK.finditer(record_text(passage.text))}
    return bool(linked & named)


def _title(passage: Passage) -> str:
    """Return the title of the note `passage` is of, lower case ("" for none)."""
    return note_title(passage.source).casefold()


def _dates_given(answer: str) -> list[str]:
    """Return the days `answer` gives ("2023-09-14"), then the years it gives apart from them ("in 2023"), in order."""
    dates, rest = dates_in(answer)
    days = sorted({date.term for date in dates if date.day is not None and date.year is not None})
    return days + sorted(set(_YEAR_IN_TEXT.findall(rest)))


def _gives(text: str, term: str) -> bool:
    """Return True when `text` gives the day `term` ("2023-09-14"), or the year `term` ("2023"), alone or in a date."""
    if len(term) == len("2023"):
        return term in terms_of(text, bare_numbers=True)
    return days_meet(frozenset({term}), day_keys(text))


def _lines_giving(text: str, day: str) -> list[str]:
    return [line for line, _ in _keys_giving(text, day)]


def _keys_giving(text: str, day: str) -> list[tuple[str, str]]:
    """Return the lines of `text` giving `day`, each with the key it is given under ("" for none).

    A property row's key ("created"), or a table row's column heading: a base's view of notes shows their
    properties so ("| [[Blade Runner]] | 7 | 2023-09-14 |" under "| Name | rating | last |").
    """
    rows = text.splitlines()
    found = []
    for number, line in enumerate(rows):
        if not _gives(line, day):
            continue
        if row := PROPERTY_ROW.match(line):
            found.append((line, normal_key(row["key"])))
        elif line.lstrip().startswith("|"):
            found.append((line, _column_heading(rows, number, day)))
        else:
            found.append((line, ""))
    return found


def _column_heading(rows: Sequence[str], number: int, day: str) -> str:
    """Return the heading of the column of table row `number` whose cell gives `day` ("" when none is found)."""
    divider = next((at for at in range(number - 1, -1, -1) if TABLE_DIVIDER.match(rows[at])), None)
    if divider is None or divider == 0:  # no table, or no heading row above its divider
        return ""
    headings, cells = table_cells(rows[divider - 1]), table_cells(rows[number])
    at = next((index for index, cell in enumerate(cells) if _gives(cell, day)), None)
    return normal_key(headings[at]) if at is not None and at < len(headings) else ""


def _is_keeping_row(line: str) -> bool:
    row = PROPERTY_ROW.match(line)
    return row is not None and is_keeping_key(row["key"])


MISDATED_CAUTION = "The notes give this date for something else:"


def misdated_places(answer: str, passages: Sequence[Passage], *, question: str) -> list[str]:
    """Return each date `misdated` finds with where the notes give it: "1992 (year: 1992, in Out of Control)".

    For the caution under an answer whose opening was shown before the date was written ("Kevin Kelly wrote The
    Machine Stops" was borne out, then "in 1992" followed).
    """
    places = []
    for term in misdated(answer, passages, question=question):
        where = next(
            (
                f"{line.strip()}, in {note_of(passage.source)}"
                for passage in passages
                for line in _lines_giving(passage.text, term)
            ),
            "",
        )
        places.append(f"{term} ({where})" if where else term)
    return places
