"""A note's properties beside its passages, when the question asks what they say.

A note with body text is chunked by its sections, which leave its properties out: kepano-obsidian's book notes keep
the author and year in properties above a "Quotes" section, sample_vault's garlic note "planted: 2026-11-08" and
"cloves: 42" above its prose. Asked "Who wrote The Machine Stops, and in which year was it published?", the model read
the quotes and never the year.

Indexing the properties as a chunk of their own was tried (docs/benchmarks.md, stop 44): retrieval gained, but the
record took one of a note's slots from the section that answers, and the 0.5B answered other questions with its
figures ("goal_time: 1:49:00" asked when the race is). So the record is added where code can tell it is asked for:
after the passages of a note already found, outside the note's share of passages, only the rows whose key names what
the question asks for (a key that is a word of the question and not of the title: "in which year" asks for
`year: 1909`, "who wrote" for `author:`; a longer key sharing one word, as `loaves_baked: 31` with "How is the loaf
baked?", only when its figure is of a kind asked, an amount or a time). A date is shown only when the question asks
for a day ("Below which moisture does the pump start?" asks nothing of `started: 2026-05-03`), and a date the note
keeps about itself (`created:`, `last:` …) only when the question asks about the keeping: the 0.5B gave a book's
`created:` as its publication date.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from core.domain import Chunk, SearchHit
from rag.answer.citations import note_of
from rag.answer.dates import day_keys
from rag.answer.excerpts import question_stems, stem
from rag.answer.question_kind import asks_for_amount_anywhere, asks_only_yes_or_no, asks_when
from rag.answer.records import record_text
from rag.answer.secrets import redact_secrets
from rag.answer.who_answers import asks_who
from rag.chunks.chunking import property_rows
from rag.notes.frontmatter import frontmatter_aliases, read_frontmatter
from rag.notes.property_keys import KEEPING_VERBS, is_keeping_key
from rag.notes.scanner import split_lines

logger = logging.getLogger(__name__)

_WORD = re.compile(r"[^\W_]+")  # "loaves_baked" is two words, "2026-11-08" three
MAX_RECORDS = 2  # notes whose properties join one question's passages: a record is asked for by one or two notes
# A record is no chunk of the index: an index two below the first chunk's is never taken for its neighbour
# (rag/answer/adjacent_chunks.py joins chunks one apart) nor for a chunk already among the passages.
RECORD_INDEX = -2
# Question words asking for a property of another name, as book, film and recipe templates name them.
_ASKED_BY = {
    "author": frozenset(stem(word) for word in ("wrote", "written", "writer", "authored")),
    "director": frozenset(stem(word) for word in ("directed", "direct")),
    "rating": frozenset(stem(word) for word in ("rated", "rate", "stars", "score")),
}
# What a question asking yes or no asks of a note's properties too: how it stands. Asked "Did I file the tax return?",
# the 1.5B read the task note's "[x] Download the annual statement" and said "Yes"; its `status: in-progress` is a
# property, which its passages leave out.
_STATE_KEYS = frozenset({stem("status")})
# A date a note keeps about itself (`created:`, `last:` …) is shown only when the question asks about the keeping by
# such a verb: "Which questions help me judge whether something will last?" is not asking for kepano's `last:` rows.
_KEEPING_VERBS = frozenset(stem(word) for word in KEEPING_VERBS)


@dataclass(frozen=True, slots=True)
class PropertyRecords:
    """Adds the properties record of each note the passages come from, when the question asks what it says."""

    note_text: Callable[[str], str | None]  # a note's indexed markdown by path (None: not indexed)
    redact: bool = True  # mask credentials in property values, as in every hit (REDACT_SECRETS)

    def add(self, hits: Sequence[SearchHit], question: str) -> list[SearchHit]:
        """Return `hits` with a record hit after the last hit of each note whose properties the question asks about."""
        asked = question_stems(question)
        if not asked:
            return list(hits)
        added: dict[str, SearchHit] = {}
        seen: set[str] = set()
        for hit in hits:
            path = hit.chunk.path
            if path in seen or len(added) >= MAX_RECORDS:
                continue
            seen.add(path)
            # A note without body text is chunked with its properties: its passage is the record already.
            if not any(record_text(other.chunk.text) for other in hits if other.chunk.path == path):
                record = self._record(hit, question, asked)
                if record is not None:
                    added[path] = record
        if not added:
            return list(hits)
        last_of = {hit.chunk.path: position for position, hit in enumerate(hits)}
        result: list[SearchHit] = []
        for position, hit in enumerate(hits):
            result.append(hit)
            if last_of[hit.chunk.path] == position and hit.chunk.path in added:
                result.append(added[hit.chunk.path])
        return result

    def _record(self, hit: SearchHit, question: str, asked: frozenset[str]) -> SearchHit | None:
        """Return the record of `hit`'s note when a row of it holds a question word its title does not, else None."""
        text = self.note_text(hit.chunk.path)
        if not text or not text.startswith("---"):
            return None
        try:  # the properties alone: the body's links, tasks and headings are not wanted here
            frontmatter = read_frontmatter(split_lines(text))
        except Exception:  # a note the indexer read is one the parser reads; this is only an extra passage
            logger.debug("properties of %s not read", hit.chunk.path, exc_info=True)
            return None
        title = hit.chunk.title
        wanted = _with_key_names(asked) - _stems(title) - _stems(" ".join(frontmatter_aliases(frontmatter.data)))
        if asks_only_yes_or_no(question):  # "Did I file the tax return?" of a task note whose `status:` is in-progress
            wanted |= _STATE_KEYS
        keeping = bool(asked & _KEEPING_VERBS)
        dates, amounts = asks_when(question), asks_for_amount_anywhere(question)
        who = asks_who(question)
        # Only the rows asked for: the rest of a record gave the 0.5B figures of its own to answer with. A row's value
        # repeating the title says nothing (a daily note's "date: 2026-11-08").
        rows = []
        for row in property_rows(frontmatter.data):
            key, _, value = row.partition(": ")
            value = value.strip()
            if (
                (
                    keeping
                    if is_keeping_key(key)
                    else _is_asked(key, value, wanted, amounts=amounts) or (who and _names_role(value, wanted))
                )
                and (dates or not day_keys(value))
                and not _repeats(value, title)
            ):
                rows.append(row)
        if not rows:
            return None
        shown = "\n".join([title, *rows])
        chunk = Chunk(
            path=hit.chunk.path,
            title=title,
            heading_path=(),
            anchor=f"[[{note_of(hit.chunk.anchor)}]]",
            text=redact_secrets(shown) if self.redact else shown,
            tags=hit.chunk.tags,
            line_start=1,
            line_end=frontmatter.body_start,  # the closing "---", on the line before the body
            index=RECORD_INDEX,
        )
        return replace(hit, chunk=chunk)


def _is_asked(key: str, value: str, wanted: frozenset[str], *, amounts: bool) -> bool:
    """Return True when a property's `key` names what the question asks for.

    A key that is one word of the question ("port", "year", "cloves") is asked; a longer key sharing one word with it
    only when its value is of a kind the question asks for: "How is the loaf baked?" asks no count of
    `loaves_baked: 31`, "What did the physiotherapist diagnose in my left knee?" none of `sessions_left: 3`.
    Values are not read for words: "home" of "the home server" is in a URL.
    """
    words = _stems(key)
    if not words & wanted:
        return False
    return len(words) == 1 or amounts or not _FIGURE.fullmatch(value)


def _names_role(value: str, wanted: frozenset[str]) -> bool:
    """Return True when `value` gives someone the role asked for, in brackets after the name: "Brigitte Sommer (chair)".

    Asked "Who chairs the allotment association?", the 0.5B refused: the meeting note lists its `attendees:` with
    their roles, a row whose key says nothing of chairing. Only for a question asking who, and only a role in brackets:
    other words of a value are not read (see `_is_asked`).
    """
    return any(_stems(role) & wanted for role in _ROLE.findall(value))


_ROLE = re.compile(r"\(([^()]{1,40})\)")  # "(chair)", "(nature officer)"


def _with_key_names(asked: frozenset[str]) -> frozenset[str]:
    """Return `asked` with the property names its words ask for ("who wrote" asks for the `author:`)."""
    named = (key for key, words in _ASKED_BY.items() if asked & words)
    return asked | frozenset(stem(key) for key in named)


# A value that is a figure: "31", "1:49:00", "5:10/km", "3.1 kg".
_FIGURE = re.compile(r"[\d.,:/+\- ]*\d[\d.,:/+\- ]*(?:\s?[^\W\d]{1,6})?")


def _repeats(value: str, title: str) -> bool:
    return bool(value) and value.casefold() in title.casefold()


def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(word.casefold()) for word in _WORD.findall(text) if len(word) > 3)
