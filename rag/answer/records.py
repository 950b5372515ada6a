"""A note's properties as a passage shows them: one record, each row of which is about what the others name.

A note without body text is found and answered by its properties (rag/chunks/chunking.property_rows): the title,
then `key: value` rows. Read sentence by sentence, "year: 1992" shares no word with "Which book by Kevin Kelly have
I noted, and when was it published?", so the answer check withheld the right "Out of Control was published in
1992." for want of a sentence about the question; the record's "author: [[Kevin Kelly]]" says the row is about it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import Passage
from rag.answer.citations import heading_in
from rag.answer.dates import dates_in
from rag.answer.excerpts import question_stems
from rag.answer.question_kind import asks_when
from rag.notes.property_keys import KEEPING_KEYS, normal_key

# A property row: "created: 2023-09-12", "date modified: …", "Aliases: …"; a key of a few words, then its value.
PROPERTY_ROW = re.compile(r"^\s*(?P<key>[^\W\d_][\w \-]{0,40}?)\s*:\s+(?P<value>\S.*)$", re.MULTILINE)
RECORD_MIN_ROWS = 2  # property rows that make a passage a record, with no line of its own but headings
_HEADING = re.compile(r"^\s*#{1,6}\s")


def record_text(text: str) -> str:
    """Return the rows of `text` when it is a note's properties record (its title line and headings aside), else ""."""
    lines = [line for line in text.splitlines()[1:] if line.strip() and not _HEADING.match(line)]
    rows = [line for line in lines if PROPERTY_ROW.match(line)]
    return "\n".join(rows) if len(rows) >= RECORD_MIN_ROWS and len(rows) == len(lines) else ""


def asked_record(question: str, passages: Sequence[Passage]) -> Passage | None:
    """Return the properties record of the note `question` names by its title, when a row's key is a question word.

    Asked "What is Steph Ango's Twitter handle?" over kepano-obsidian, the record "Steph Ango / twitter: kepano" was
    among the passages (rag/answer/property_records.py), and the 1.5B answered with a bare "[[Steph Ango]]", which was
    withheld: the row itself is the answer, quoted in place of a refusal or an answer withheld
    (agent/opening_check.py). None when no such record was read.
    """
    asked = question_stems(question)
    named = question.casefold()
    for passage in passages:
        if heading_in(passage.source):
            continue  # a section, not the note's record
        title, _, rest = passage.text.strip().partition("\n")
        lines = [line for line in rest.splitlines() if line.strip()]
        rows = [row for line in lines if (row := PROPERTY_ROW.match(line))]
        if not rows or len(rows) != len(lines) or title.strip().casefold() not in named:
            continue
        if any(question_stems(row["key"].replace("_", " ")) & asked for row in rows):
            return passage
    return None


MAX_DATED_RECORDS = 2


def dated_records_asked(question: str, passages: Sequence[Passage]) -> list[Passage]:
    """Return the records that answer a question asking when: each holds every word the question asks about, and dates.

    Asked "When was I in Kyoto?" over kepano-obsidian, the 0.5B refused, though it read the trip's record
    ("2023 Japan Trip / start: 2023-09-12 / end: 2023-09-30 / loc: [[Kyoto]], [[Japan]]"). A record whose title and
    rows hold every word of the question (but "when" and the like) and that dates something in a row of its own
    is quoted in place of such a refusal. A date the note keeps about itself ("created:", "last:") dates nothing
    asked, and a question with a word no record holds ("When did I book the hotel in Kyoto?") gets none.
    """
    asked = question_stems(question)
    if not asked or not asks_when(question):
        return []
    found = []
    for passage in passages:
        if heading_in(passage.source):
            continue  # a section, not the note's record
        title, _, rest = passage.text.strip().partition("\n")
        rows = record_text(passage.text)
        if not rows or not asked <= question_stems(f"{title} {rest}".replace("[[", " ").replace("]]", " ")):
            continue
        if dated_keys(passage):
            found.append(passage)
    return found[:MAX_DATED_RECORDS]


def dated_keys(record: Passage) -> list[str]:
    """Return the keys of `record`'s rows dating something, not the note itself ("start", "end"; not "created")."""
    rows = PROPERTY_ROW.finditer(record_text(record.text))
    return [row["key"] for row in rows if not is_keeping_key(row["key"]) and dates_in(row["value"])[0]]


def is_keeping_key(key: str) -> bool:
    """Return True for a key whose date the note keeps about itself: "created", "last", "date modified"."""
    return normal_key(key) in KEEPING_KEYS
