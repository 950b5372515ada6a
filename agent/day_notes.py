"""The notes of the days a question names ("What did I do on 2026-11-16?", "What happened yesterday?").

A search ranks chunks by their words and meaning, and a date is hardly either: asked "What did I do on 2026-11-16?"
over sample_vault, the search's best chunk was 2026-11-11's daily note, and the day's own Plan and Log were not
among the six passages; "What did I write yesterday?" names no word of the day's note at all. The notes of the
days a question names are found by name: the daily note of each day (the Daily notes plugin's folder and format)
and every note whose file name holds one of the days in ISO form ("2026-11-16 1-on-1 Priya"), or a week or a
month all of whose days are named ("2026-W46 Weekly Review" for "last week", "2026-11" for "last month"). The
search then
reads them apart and fuses them with its own results by rank (`Retriever.search_for(..., among=...)`), and the
relevance floor does not refuse a question whose days have notes.
"""

from __future__ import annotations

import logging
import re
from calendar import monthrange
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import PurePosixPath
from typing import Any

from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from agent.tools.vault_tasks import templates_folder_or_none
from core.domain import SearchHit
from core.errors import InvalidRequest, NotFound
from rag.answer.dates import day_keys, days_in_title, days_meet
from rag.answer.days_named import LATEST_ENTRY, days_named, listed_days, past_weekday
from rag.answer.topic_passages import asks_about_days_alone
from rag.follow_up import Query
from rag.notes.obsidian_config import daily_note_path
from rag.retrieve import Retriever

_log = logging.getLogger(__name__)
# The days looked up at most: two months of daily notes. A longer span ("in 2025") is no day to look up.
MAX_DAYS = 62
# A week's or a month's own note: "2026-W46 Weekly Review", "2026-11" (the Periodic Notes plugin's formats).
_ISO_PERIOD = re.compile(r"(?<!\d)\d{4}-(?:W\d{2}(?!\d)|\d{2}(?!-?\d))")
# The days a note's name gives: 2026-11-16, and a week's 2026-W46 or a month's 2026-11.


def periods_first(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """Return `hits` with those of a week's or a month's own note first ("2026-W46 Weekly Review"), else in order.

    For a request about the days alone: a week's (month's) note is among their notes only when all its days are
    asked about, and it is the user's own summary of them. Asked "Summarize the week of 2026-11-09.", the search put
    a heading line of Wednesday's note first and the weekly review's "Wins" fifth; the first passage gets the most
    room.
    """
    return sorted(hits, key=lambda hit: -_period_length(PurePosixPath(hit.chunk.path).stem))


def _period_length(name: str) -> int:
    """Return how many days the period a note's `name` gives spans: a month 31, a week 7, else 0 (a month first)."""
    period = _ISO_PERIOD.search(name)
    if period is None:
        return 0
    return 7 if "W" in period.group() else 31


def days_label(days: Sequence[str]) -> str:
    """Return ISO `days` (sorted) as a prompt names them: "2026-11-10", "2026-11-09 to 2026-11-15", "A and B"."""
    if len(days) <= 1:
        return "".join(days)
    first, last = date.fromisoformat(days[0]), date.fromisoformat(days[-1])
    if (last - first).days == len(days) - 1:
        return f"{days[0]} to {days[-1]}"
    return " and ".join(days) if len(days) == 2 else f"{', '.join(days[:-1])} and {days[-1]}"


# A question about what was, not what is to be: "What did I cook on 2026-11-15?", "How far did I run yesterday?".
_PAST = re.compile(
    r"\b(?:did|was|were|had|happened|went|made|wrote|cooked|ate|met|ran|spent|bought|finished|"
    r"war|waren|hatte|habe\s+ich|hast|bin\s+ich|passiert)\b",
    re.IGNORECASE,
)


def asks_of_past_days(question: str) -> bool:
    """Return True when `question` asks what was on the days it names (past tense), not what is to do on them."""
    return bool(_PAST.search(question))


def holds_day(passage_note: str, text: str, days: Sequence[str]) -> bool:
    """Return True when a passage says something of one of `days` (ISO dates), by its note's name or its text.

    Its note is named by one, or its text gives one ("Sat 14 Nov" in a running log's week; a date without a year
    matches its month and day).
    """
    return bool(days_in_title(passage_note) & set(days)) or days_meet(day_keys(text), frozenset(days))


def of_other_days(note: str, days: Sequence[str]) -> bool:
    """Return True when the note named `note` is named by ISO dates, none of which is among `days` (ISO dates).

    "2026-11-10" or "2026-11-10 Allotment Committee" (or "Entry of 10th Nov, 2026") is of another day than
    2026-10-20; "Running Log" is of none.
    """
    dated = [found for found in days_in_title(note) if len(found) == len("2026-11-10")]  # no week, no month
    return bool(dated) and set(dated).isdisjoint(days)


@dataclass(frozen=True, slots=True)
class NamedDays:
    """The days a question names (ISO dates, sorted) and the vault paths of their notes (sorted)."""

    days: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    # The days are the ones meant: a date, "yesterday", "last Friday", a week. Not a week day named alone ("Friday's
    # potluck" may be any Friday's), whose notes are read but whose date an answer need not keep to.
    is_definite: bool = True
    # The question asks what was on them (past tense), all of them today or before: an answer draws on them.
    is_past: bool = False
    # All of them after today: notes of other days may plan them ("From January 2027 it changes to split shifts" in
    # a meeting note of 2026-11-16), as a day's own note records it once it has come.
    is_future: bool = False

    @property
    def meant(self) -> tuple[str, ...]:
        """Return the days when they are the ones meant (`is_definite`), else none."""
        return self.days if self.is_definite else ()

    def as_record(self) -> dict[str, Any]:
        """Return these days as the agent's checkpoint keeps them: plain JSON, no class of ours."""
        return {
            "days": list(self.days),
            "paths": list(self.paths),
            "is_definite": self.is_definite,
            "is_past": self.is_past,
            "is_future": self.is_future,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | None) -> NamedDays:
        """Return the days `as_record` gave (none for a missing record: a checkpoint of an older turn)."""
        if not record:
            return cls()
        return cls(
            tuple(record.get("days", ())),
            tuple(record.get("paths", ())),
            is_definite=bool(record.get("is_definite", True)),
            is_past=bool(record.get("is_past", False)),
            is_future=bool(record.get("is_future", False)),
        )


def is_about_days_alone(days: NamedDays, question: str) -> bool:
    """Return True for a request about the days alone whose notes were found: they cover it, and are all it reads."""
    return bool(days.paths) and asks_about_days_alone(question)


def passages_for(retriever: Retriever, query: Query, days: NamedDays, *, k: int, alone: bool) -> list[SearchHit]:
    """Return the passages of a question naming `days`: their notes beside what its words find, or them alone.

    `alone` (`is_about_days_alone`): a month's or a week's own note first, the user's summary of the days asked
    about, in up to half the passages, then their days' notes. Searched among thirty daily notes, "Summarize last
    month." found six lines of their Plans, none of the weekly reviews.
    """
    hits = retriever.search_for(query, k=k, passages=True, among=days.paths, only_among=alone)
    if not alone:
        return hits
    periods = tuple(path for path in days.paths if _period_length(PurePosixPath(path).stem))
    if not periods:
        return hits
    summaries = retriever.search_for(query, k=max(1, k // 2), passages=True, among=periods, only_among=True)
    taken = {(hit.chunk.path, hit.chunk.index) for hit in summaries}
    rest = [hit for hit in hits if (hit.chunk.path, hit.chunk.index) not in taken]
    return periods_first([*summaries, *rest][:k])


class DayNotes:
    """Find the notes of the days a question names."""

    def __init__(self, reader: VaultReader) -> None:
        self._reader = reader
        # A snapshot of the vault, and the days each of its notes' titles names (`days_in_title`), if any.
        self._titles: tuple[object, dict[str, frozenset[str]]] = (None, {})

    def named(self, question: str) -> NamedDays:
        """Return the days `question` names and their notes (both empty when it names none, or over MAX_DAYS).

        A week day named without "next" or "last" is both the coming one and the one gone by: "What did I do on
        Monday?" asks of the past, "What's planned for Monday?" of the future, and only one of them has notes,
        as a rule. Notes in the templates folder are no day's.
        """
        today = self._reader.today()
        past = asks_of_past_days(question)
        days = _days_of(question, today, past=past)
        try:
            if not days and LATEST_ENTRY.search(question):  # "my last daily entry": the latest day with a note
                days = self._latest_day(today)
            paths = self._paths_of(days) if days else ()
        except (InvalidRequest, NotFound, OSError) as error:  # a broken daily-notes setting fails no question
            _log.warning("notes of %s not looked up: %s", days_label(sorted(d.isoformat() for d in days)), error)
            paths = ()
        return NamedDays(
            tuple(sorted(day.isoformat() for day in days)),
            paths,
            is_definite=past_weekday(question, today) is None,
            is_past=past and bool(days) and max(days) <= today,
            is_future=bool(days) and min(days) > today,
        )

    def paths_for(self, question: str) -> tuple[str, ...]:
        """Return the vault paths of the notes of the days `question` names, sorted (() when it names none)."""
        return self.named(question).paths

    def _paths_of(self, days: set[date]) -> tuple[str, ...]:
        snapshot = self._reader.snapshot()
        config = self._reader.daily_notes_config(snapshot)  # read once, not once a day
        daily = {daily_note_path(config, day) for day in days}
        named = {day.isoformat() for day in days} | _weeks_covered(days) | _months_covered(days)
        templates = templates_folder_or_none(self._reader, snapshot)
        title_days = self._title_days(snapshot)
        named_notes = {path for path, in_title in title_days.items() if not named.isdisjoint(in_title)}
        found = named_notes | {path for path in daily if path in snapshot.notes}
        return tuple(sorted(path for path in found if not (templates and snapshot.in_folder(path, templates))))

    def _title_days(self, snapshot: VaultSnapshot) -> dict[str, frozenset[str]]:
        """Return the days, weeks and months each note's title names, by path (read once per state of the vault)."""
        read, title_days = self._titles
        if read is not snapshot:  # one tuple: threads may race here
            title_days = {
                path: in_title for path in snapshot.notes if (in_title := days_in_title(PurePosixPath(path).stem))
            }
            self._titles = (snapshot, title_days)
        return title_days

    def _latest_day(self, today: date) -> set[date]:
        """Return the latest day, today or before, a note outside the templates folder is named by (none: empty).

        An empty file is no entry: vaultofknowledge's latest daily notes are empty files made ahead.
        """
        snapshot = self._reader.snapshot()
        templates = templates_folder_or_none(self._reader, snapshot)
        days = [
            day
            for path, in_title in self._title_days(snapshot).items()
            if not (templates and snapshot.in_folder(path, templates))
            and (stat := snapshot.stats.get(path)) is not None
            and stat.size > 0
            for day in in_title
            if len(day) == len("2026-11-16") and day <= today.isoformat()
        ]
        return {date.fromisoformat(max(days))} if days else set()


def _weeks_covered(days: set[date]) -> set[str]:
    """Return the ISO weeks ("2026-W46") all seven days of which are among `days`: a weekly note is of those."""
    return _covered(days, lambda day: f"{day.isocalendar().year}-W{day.isocalendar().week:02d}", lambda _day: 7)


def _months_covered(days: set[date]) -> set[str]:
    """Return the months ("2026-11") all of whose days are among `days`: a monthly note is of those."""
    return _covered(days, lambda day: f"{day.year}-{day.month:02d}", lambda day: monthrange(day.year, day.month)[1])


def _covered(days: set[date], period: Callable[[date], str], length: Callable[[date], int]) -> set[str]:
    """Return the names of the periods (by `period` of a day) all `length` days of which are among `days`."""
    counts = Counter(period(day) for day in days)
    return {period(day) for day in days if counts[period(day)] == length(day)}


def _days_of(question: str, today: date, *, past: bool) -> set[date]:
    """Return the days `question` names (none over MAX_DAYS); `past`: a date without a year is the last gone by."""
    days: set[date] = set()
    if (span := days_named(question, today, past=past)) is not None:
        first, last = span
        if (last - first).days < MAX_DAYS:
            days.update(first + timedelta(days=offset) for offset in range((last - first).days + 1))
    if (gone_by := past_weekday(question, today)) is not None:
        days.add(gone_by)
    if days:
        days.update(listed_days(question, today, past=past, gone_by=True))
    return days
