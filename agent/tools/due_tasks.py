"""The open tasks a question asks for by date, listed by code ("Which tasks are due on 2021-11-22?", "What's overdue?").

A search finds notes by their words, and a task's date is one word among many: given the passages a search found,
the 0.5B listed a task done the day before among those due, and given only the tasks due that day it listed one of
three ("[ ] #task Profit== 📅 2021-11-22") or refused the overdue ones. Which tasks are due is no judgment: for a
question about tasks by date (rag/answer/due_questions.py), the open tasks whose due date (or, unless the question
asks what is due, scheduled date) falls on the days asked are found in every note, as the Tasks plugin's query
would find them, and the reply lists them, each with a link to its section; no model is asked. Asked what to do on
one day, that day's daily note's undated open tasks are listed too. When none is found, the reply says so and names
the next one after those days, or how many are dated before; a vault none of whose open tasks has a date is asked
the usual way (its text may say what is to do).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from pathlib import PurePosixPath

from agent.tools.daily import existing_daily_note
from agent.tools.list_reply import MAX_LISTED, ListReply, capped
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from agent.tools.vault_tasks import is_open, note_line, task_notes, vault_tasks
from core.domain import Task
from core.errors import NotFound
from rag.answer.due_questions import DueAsk
from rag.answer.secrets import redact_secrets
from rag.notes.task_fields import parse_task_fields
from rag.notes.task_notes import TaskNote


@dataclass(frozen=True, slots=True)
class DueTask:
    """One open task of the days asked: its day, its line as the note has it, the link to its section, its note."""

    day: date
    line: str
    anchor: str
    path: str


@dataclass(frozen=True, slots=True)
class TaskPlace:
    """Where a question asks for tasks: one note (`path`, cited as `label`) or a folder and its sub-folders."""

    path: str
    is_folder: bool
    label: str = ""  # the note's citation, [[Important Project]]

    @property
    def folder(self) -> str:
        """Return the folder whose notes hold the place's tasks ("": the vault's root)."""
        return self.path if self.is_folder else str(PurePosixPath(self.path).parent).removeprefix(".")

    def holds(self, path: str) -> bool:
        """Return True when the note at `path` is the place or lies in it (the folder "" is the whole vault)."""
        if not self.is_folder:
            return path == self.path
        return not self.path or path.lower().startswith(f"{self.path.lower()}/")

    @property
    def described(self) -> str:
        """Return the place as a reply names it: "[[Important Project]]", "the folder How To", "the vault"."""
        if not self.is_folder:
            return self.label
        return f"the folder {self.path}" if self.path else "the vault"

    @property
    def anchors(self) -> tuple[str, ...]:
        """Return the links the place's name in a reply holds."""
        return () if self.is_folder else (self.label,)


class DueTasks:
    """Answer a question about tasks by date from the tasks' own dates."""

    def __init__(self, reader: VaultReader, *, max_listed: int = MAX_LISTED) -> None:
        self._reader = reader
        self._max_listed = max_listed

    def days_reply(self, ask: DueAsk, *, place: TaskPlace | None = None) -> ListReply:
        """Return the reply listing the open tasks of the days `ask` names (also the `tasks` tool's due, overdue).

        When none is found it says so, and names the next open task after those days if any (else `is_empty`).
        `place`: only the tasks of that note or folder ("What's overdue in ACME?").
        """
        snapshot = self._reader.snapshot()
        daily = _daily_note_of(self._reader, snapshot, ask)
        dated = [task for task in self._dated_tasks(ask, snapshot, daily) if place is None or place.holds(task.path)]
        where = f" in {place.described}" if place is not None else ""
        found = [task for task in dated if ask.holds(task.day)]
        if not found:
            later = [task for task in dated if task.day > ask.until]
            none = _none_found(ask, later, earlier=len(dated), where=where)
            return none if place is None else replace(none, anchors=(*place.anchors, *none.anchors), is_empty=False)
        listed = found[: self._max_listed]
        has_daily = any(task.path == daily for task in found)
        tasks = " ".join(filter(None, (f"open task{'s' if len(found) != 1 else ''}", ask.describe_priorities())))
        lines = [f"{len(found)} {tasks}{where} {_what(ask, has_daily=has_daily)}:"]
        lines += capped([f"- {task.line} {task.anchor}" for task in found], self._max_listed)
        anchors = (*(place.anchors if place else ()), *(task.anchor for task in listed))
        return ListReply("\n".join(lines), tuple(dict.fromkeys(anchors)))

    def _dated_tasks(self, ask: DueAsk, snapshot: VaultSnapshot, daily: str | None) -> list[DueTask]:
        """Return the open tasks with the date `ask` goes by, earliest first, then by note and line.

        Checkbox tasks, and task notes (one note per task, as the TaskNotes plugin keeps them: rag/notes/task_notes).
        """
        found: list[tuple[date, str, int, DueTask]] = []
        for path, tasks in vault_tasks(self._reader, snapshot):
            for task in tasks:
                if (day := _day_of(task, ask, daily_day=ask.first if path == daily else None)) is not None:
                    text = redact_secrets(task.text) if self._reader.redacts_secrets else task.text
                    anchor = snapshot.anchor(path, snapshot.heading_path_at(path, task.line))
                    found.append(
                        (day, path.casefold(), task.line, DueTask(day, f"[{task.status}] {text}", anchor, path))
                    )
        for note in task_notes(self._reader, snapshot):
            if (day := _note_day_of(note, ask)) is not None:
                line = redact_secrets(note_line(note)) if self._reader.redacts_secrets else note_line(note)
                found.append((day, note.path.casefold(), 0, DueTask(day, line, snapshot.anchor(note.path), note.path)))
        return [task for *_, task in sorted(found, key=lambda item: item[:3])]


def _none_found(ask: DueAsk, later: list[DueTask], *, earlier: int, where: str = "") -> ListReply:
    """Return the reply saying no open task is of the days asked, with the next one after them if any.

    With none after them either, but `earlier` ones (tasks-demo's dates are all in 2021-2024, asked about next
    week), it says so; with none dated at all, the reply `is_empty` (unless a priority narrows it).
    """
    if not later and earlier:
        tasks = " ".join(filter(None, ("open task" if earlier == 1 else "open tasks", ask.describe_priorities())))
        dated = f"{tasks} {'is' if earlier == 1 else 'are'} dated before"
        return ListReply(f"{_no_open_task(ask, where)}, nor later; {earlier} {dated}.", ())
    if not later:  # a list narrowed to a priority is the answer: the vault's text says nothing of priorities
        return ListReply(f"{_no_open_task(ask, where)}.", (), is_empty=not ask.priorities)
    first = later[0]
    text = f"{_no_open_task(ask, where)}. The next one:\n- {first.line} {first.anchor}"
    return ListReply(text, (first.anchor,))


def _no_open_task(ask: DueAsk, where: str = "") -> str:
    """Return "No open task is overdue", "No open task of high or highest priority is due on 2021-11-22" ...

    `where`: " in [[ACME]]", the place asked of.
    """
    task = " ".join(filter(None, ("No open task", ask.describe_priorities()))) + where
    return f"{task} is overdue" if ask.first == date.min else f"{task} is {_what(ask, has_daily=False)}"


def _day_of(task: Task, ask: DueAsk, *, daily_day: date | None = None) -> date | None:
    """Return the task's date the question goes by (due, scheduled or either); None: none, closed, or another priority.

    `daily_day`: the task stands in the daily note of that day, where an undated task is one to do that day.
    """
    if not is_open(task):
        return None
    fields = parse_task_fields(task.text)
    if not ask.takes(fields.priority):
        return None
    if ask.by_scheduled:
        day = fields.scheduled
    elif ask.by_due_only:
        day = fields.due
    else:
        day = _either(ask, fields.due, fields.scheduled, daily_day)
    return day


def _either(ask: DueAsk, *days: date | None) -> date | None:
    """Return the first of a task's days (due, scheduled, ...) that `ask` holds, else its first day at all.

    "To do on 2099-01-12 (due or scheduled then)" holds a task scheduled that day and due three days later.
    """
    given = [day for day in days if day is not None]
    return next((day for day in given if ask.holds(day)), given[0] if given else None)


def _note_day_of(note: TaskNote, ask: DueAsk) -> date | None:
    """Return a task note's date the question goes by, as `_day_of` does a checkbox task's (it has no daily note)."""
    if note.is_done or not ask.takes(note.priority):
        return None
    if ask.by_scheduled:
        return note.scheduled
    return note.due if ask.by_due_only else _either(ask, note.due, note.scheduled)


def _daily_note_of(reader: VaultReader, snapshot: VaultSnapshot, ask: DueAsk) -> str | None:
    """Return the daily note whose undated tasks are to do on the one day asked ("What do I have to do today?").

    None when the question asks what is due or scheduled (an undated task is neither), or for more than one day.
    """
    if ask.by_due_only or ask.by_scheduled or ask.first != ask.last or ask.listed:
        return None
    try:
        return existing_daily_note(reader, snapshot, ask.first)
    except NotFound:
        return None


def _what(ask: DueAsk, *, has_daily: bool) -> str:
    """Return what the tasks listed are: "due on 2021-11-22", "to do on … (due or scheduled then)" ..."""
    if ask.by_scheduled or ask.by_due_only:
        return f"{'scheduled' if ask.by_scheduled else 'due'} {ask.describe()}"
    return f"to do {ask.describe()} (due or scheduled then{', or in its daily note' if has_daily else ''})"
