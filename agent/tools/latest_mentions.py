"""How something stands now, or when it last happened: the latest dated mentions of a subject, listed by code.

"How is my knee doing?", "When did I last water the tomatoes?".

Which note is the latest is a date, not a judgment (rag/answer/state_questions.py has what the 0.5B made of such a
question). A mention is a line holding the subject's words, counting its note's title, aliases and the line's
headings as held ("Knee Rehab"'s progress table speaks of the knee in every row), and dated: by the latest whole date
in the line that is not after today (a table row's "2026-11-10", "on 22 September 2026"), else by the day its note is
of (a daily note "2026-11-10"). A line whose dates are all after today is a plan, not how things stand; a line with
no date in an undated note says nothing of when. The mentions are listed latest first, each with its day and its
section's link, a table row with its column names; a subject no dated line mentions is for the search and the model.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date

from agent.tools.list_reply import ListReply, capped
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from agent.tools.vault_tasks import templates_folder_or_none
from core.domain import Note, Section
from rag.answer.attribution import terms_of, word_terms
from rag.answer.dates import days_in_title, whole_days
from rag.answer.excerpts import shortened
from rag.answer.secrets import redact_secrets
from rag.answer.state_questions import last_time_subject, state_subject, subject_after
from rag.chunks.pieces import TABLE_DIVIDER, table_cells
from rag.notes.inline import TAG, WIKILINK, links_as_words
from rag.notes.task_fields import parse_task_fields

# A task's line as `_rows` gives it: its checkbox, then its text ("[x] Knee routine ✅ 2026-11-04").
_TASK_LINE = re.compile(r"^\[[^\]]\]\s+(.*)$")
_STEM_START = 4  # letters of a stem that every spelling of its words shares ("colo" of "colour" and "color")
MAX_MENTIONS = 8  # listed at most, latest first: how it stands, and how it got there
MENTION_CHARS = 220  # of a mention's line, shown


@dataclass(frozen=True, slots=True)
class Mention:
    """A dated line mentioning the subject: its day, where it is, and its text as shown."""

    day: date
    path: str
    heading_path: tuple[str, ...]
    line: int  # 1-based line of its note, for the order within a day
    text: str


class LatestMentions:
    """Answer "How is my knee doing?", "What's the latest on the migration?" with the subject's latest mentions."""

    def __init__(self, reader: VaultReader, *, max_listed: int = MAX_MENTIONS) -> None:
        self._reader = reader
        self._max_listed = max_listed

    def reply_for(self, question: str, earlier: Sequence[str] = ()) -> ListReply | None:
        """Return the latest dated mentions of what `question` asks the state of, or when it last happened.

        `earlier`: the user's questions before it, oldest first ("And the garden?" after "How is my knee doing?").
        None for another question, or when no dated line mentions it.
        """
        subject = state_subject(question)
        asks_last = subject is None
        if asks_last:
            subject = last_time_subject(question)
        if subject is None and earlier and (after := subject_after(question, earlier[-1])) is not None:
            subject, asks_last = after
        if subject is None:
            return None
        snapshot = self._reader.snapshot()
        templates = templates_folder_or_none(self._reader, snapshot)
        found = self._found(snapshot, subject, templates)
        # "How is the ACME project going?" of a note "ACME" that never says "project": the note the subject names
        # before its last word ("project", "plan", "training" …) stands for it.
        shorter = subject.rsplit(maxsplit=1)[0] if " " in subject else ""
        if not found and shorter and (path := snapshot.note_named(shorter)) is not None:
            subject = snapshot.notes[path].title
            found = self._found(snapshot, subject, templates)
        if not found:
            return None
        found.sort(key=lambda mention: (-mention.day.toordinal(), mention.path.casefold(), mention.line))
        anchors = [snapshot.anchor(mention.path, mention.heading_path) for mention in found]
        lines = [
            f"- {mention.day.isoformat()}: {self._shown(mention.text)} {anchor}"
            for mention, anchor in zip(found, anchors, strict=True)
        ]
        count = f"{len(found)} dated line{'s' if len(found) != 1 else ''}"
        dated = "each dated by a date it gives, else by its note's day"
        header = f"What your notes say about “{subject}”, latest first ({count}; {dated}):"
        if asks_last:  # "When did I last water the tomatoes?": the latest day, said first
            header = (
                f"Your notes last mention “{subject}” on {found[0].day.isoformat()}; {count}, latest first ({dated}):"
            )
        text = "\n".join([header, *capped(lines, self._max_listed)])
        return ListReply(text, tuple(dict.fromkeys(anchors[: self._max_listed])))

    def _found(self, snapshot: VaultSnapshot, subject: str, templates: str | None) -> list[Mention]:
        """Return the dated mentions of `subject` in the notes outside the templates folder, in no order."""
        terms, today = word_terms(subject), self._reader.today()
        return [
            mention
            for path, note in snapshot.notes.items()
            if not (templates and snapshot.in_folder(path, templates))
            for mention in _mentions(note, terms, today)
        ]

    def _shown(self, text: str) -> str:
        text = shortened(links_as_words(text), MENTION_CHARS)
        return redact_secrets(text) if self._reader.redacts_secrets else text


def _mentions(note: Note, terms: frozenset[str], today: date) -> Iterator[Mention]:
    """Yield the dated lines of `note` mentioning the subject of `terms`."""
    if not _may_hold(note, terms):
        return
    named = terms_of(" ".join((note.title, *note.aliases)))
    note_days = [day for day in days_in_title(note.title) if len(day) == len("2026-11-10")]
    note_day = date.fromisoformat(note_days[0]) if len(note_days) == 1 else None
    for section in note.sections:
        held = named | terms_of(" ".join(section.heading_path))
        for line, text in _rows(section):
            if _is_tags_only(text):
                continue
            if terms <= held or (_may_say(text, terms - held) and terms <= held | terms_of(text)):
                day = _day_of(text, today, note_day)
                if day is not None:
                    yield Mention(day, note.path, section.heading_path, line, text)


def _may_say(text: str, terms: frozenset[str]) -> bool:
    """Return False when the line `text` cannot hold `terms`: a stem's start is not in it (read before its words)."""
    lowered = text.casefold()
    return all(term[:_STEM_START] in lowered for term in terms)


def _may_hold(note: Note, terms: frozenset[str]) -> bool:
    """Return False when `note` cannot mention the subject: a stem's start is nowhere in its title, aliases or text.

    A cheap test before each line is read. A stem's first letters start the words it stands for ("knee" of "knees"),
    however spelled: "neighbor", the stem of "neighbour", is not in "My neighbour fixed the fence", "neig" is.
    """
    text = " ".join(
        (
            note.title,
            *note.aliases,
            *(section.text for section in note.sections),
            *(" ".join(section.heading_path) for section in note.sections),
        )
    ).casefold()
    return all(term[:_STEM_START] in text for term in terms)


def _rows(section: Section) -> Iterator[tuple[int, str]]:
    """Yield the lines of a section with text, by file line; a table row as its cells under their column names."""
    first = section.body_line or section.line_start + (1 if section.level else 0)
    rows = section.text.split("\n")
    header: list[str] = []
    for at, row in enumerate(rows):
        text = row.strip()
        if not text or TABLE_DIVIDER.match(text):
            continue
        if text.startswith("|"):
            cells = table_cells(text)
            if at + 1 < len(rows) and TABLE_DIVIDER.match(rows[at + 1].strip()):
                header = cells
                continue
            if len(header) == len(cells):
                text = " · ".join(f"{name}: {cell}" if name else cell for name, cell in zip(header, cells, strict=True))
        yield first + at, text.lstrip("-*+> ").strip()


def _day_of(text: str, today: date, note_day: date | None) -> date | None:
    """Return the day a line is of: its latest whole date not after today, or its note's day if later; None for none.

    A line of a day's note was written that day: "Knee flared up, worst since the fall on 2026-10-01" in the note of
    2026-11-22 says how the knee stands on 2026-11-22. A date in a link is a note's name, not the line's ("see
    [[2026-11-10 Allotment Committee]]" in a later daily note). A line giving only dates after today is a plan ("Base
    phase starts 2026-11-23" read before then): None.
    A task is of the day it was done ("✅ 2026-11-16"), else of the day it was written down ("➕ 2026-11-02"); its
    due, scheduled or start date is a plan, gone by or not (an open task due 2026-12-04 was not done then), so an
    open one without those is of its words' dates or its note's day.
    """
    if (task := _TASK_LINE.match(text)) is not None:
        fields = parse_task_fields(task[1])
        written = fields.done or fields.created  # the day it was done, else the day it was written down ("➕")
        if written is not None:
            return written if written <= today else None
        text = fields.description
    days = whole_days(WIKILINK.sub(" ", text))  # not a linked note's name: "[[2026-11-10 Committee]]"
    past = [day for day in days if day <= today]
    if days and not past:
        return None
    if note_day is not None and note_day <= today:
        return max([note_day, *past])  # written that day: "worse since the fall on 2026-10-01" is of the note's day
    return max(past) if past else None


def _is_tags_only(text: str) -> bool:
    """Return True for a line of tags alone ("#daily #area/garden"): it files the note, it says nothing."""
    return not TAG.sub(" ", text).strip()
