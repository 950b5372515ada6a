"""The open tasks a question asks for by date, listed by code ("Which tasks are due on 2021-11-22?", "What's overdue?").

A search finds notes by their words, and a task's date is one word among many: given the passages a search found,
the 0.5B listed a task done the day before among those due, and given only the tasks due that day it listed one of
three ("[ ] #task Profit== 📅 2021-11-22") or refused the overdue ones. Which tasks are due is no judgment: for a
question about tasks by date (rag/answer/due_questions.py), the open tasks whose due date (or, unless the question
asks what is due, scheduled date) falls on the days asked are found in every note, as the Tasks plugin's query
would find them, and the reply lists them, each with a link to its section; no model is asked. When none is found,
the question goes the usual way (the notes may still say something about it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from agent.tools.reader import VaultReader
from agent.tools.tasks import is_open, templates_folder_or_none
from core.domain import Task
from rag.answer.due_questions import DueAsk, due_ask
from rag.answer.secrets import redact_secrets
from rag.notes.task_fields import parse_task_fields

MAX_LISTED = 50  # tasks listed at most, earliest first; the reply says how many more there are


@dataclass(frozen=True, slots=True)
class DueTask:
    """One open task of the days asked: its day, its line as the note has it, and the link to its section."""

    day: date
    line: str
    anchor: str


@dataclass(frozen=True, slots=True)
class DueReply:
    """The reply listing the tasks a question asks for by date, and the links it holds."""

    text: str
    anchors: tuple[str, ...]


class DueTasks:
    """Answer a question about tasks by date from the tasks' own dates."""

    def __init__(self, reader: VaultReader, *, max_listed: int = MAX_LISTED) -> None:
        self._reader = reader
        self._max_listed = max_listed

    def reply_for(self, question: str) -> DueReply | None:
        """Return the list of the open tasks `question` asks for by date (None: it asks for none, or none is found)."""
        ask = due_ask(question, self._reader.today())
        if ask is None:
            return None
        found = self.tasks_for(ask)
        if not found:
            return None
        listed = found[: self._max_listed]
        lines = [f"{len(found)} open task{'s' if len(found) != 1 else ''} {_what(ask)}:"]
        lines += [f"- {task.line} {task.anchor}" for task in listed]
        if len(found) > len(listed):
            lines.append(f"… and {len(found) - len(listed)} more.")
        return DueReply("\n".join(lines), tuple(dict.fromkeys(task.anchor for task in listed)))

    def tasks_for(self, ask: DueAsk) -> list[DueTask]:
        """Return the open tasks of the days `ask` gives, earliest first, then by note and line."""
        snapshot = self._reader.snapshot()
        templates = templates_folder_or_none(self._reader, snapshot)  # a template's tasks are placeholders
        found: list[tuple[date, str, int, DueTask]] = []
        for path, note in snapshot.notes.items():
            if templates and snapshot.in_folder(path, templates):
                continue
            for task in note.tasks:
                if (day := _day_of(task, ask)) is not None:
                    text = redact_secrets(task.text) if self._reader.redacts_secrets else task.text
                    anchor = snapshot.anchor(path, snapshot.heading_path_at(path, task.line))
                    found.append((day, path.casefold(), task.line, DueTask(day, f"[{task.status}] {text}", anchor)))
        return [task for *_, task in sorted(found, key=lambda item: item[:3])]


def _day_of(task: Task, ask: DueAsk) -> date | None:
    """Return the task's day that the question asks about, or None when it is not one of the days or is closed."""
    if not is_open(task):
        return None
    fields = parse_task_fields(task.text)
    if ask.by_scheduled:
        day = fields.scheduled
    elif ask.by_due_only:
        day = fields.due
    else:
        day = fields.due or fields.scheduled
    return day if day is not None and ask.holds(day) else None


def _what(ask: DueAsk) -> str:
    """Return what the tasks listed are: "due on 2021-11-22", "scheduled from … to …", "due before … (overdue)"."""
    dated = "scheduled" if ask.by_scheduled else "due" if ask.by_due_only else "due or scheduled"
    return f"{dated} {ask.describe()}"
