"""What code finds in a change request (`candidates.gather`): the notes it may target, quoted values, folders."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

_CLOSED_TASK = frozenset({"x", "X", "-"})  # done or cancelled: what toggling reopens (edits.text.body)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A note the change may target: its path, how the request named it, its headings, and its day if daily."""

    path: str
    label: str  # how it is shown to the model: the title, or "daily note 2026-12-03"
    headings: tuple[str, ...] = ()
    day: date | None = None  # set for a day's daily note (it may not exist yet)
    exists: bool = True
    tasks: tuple[CandidateTask, ...] = ()  # its checkbox tasks, for completing or reopening one
    note_task: NoteTask | None = None  # set when the note is itself a task (a task note of the TaskNotes plugin)

    def task_texts(self, states: Sequence[TaskState]) -> list[str]:
        """Return the texts of the note's tasks in `states`, once each; the note's own task last, if it is one."""
        own = [self.note_task.title] if self.note_task is not None and self.note_task.state in states else []
        return list(dict.fromkeys([*(task.text for task in self.tasks if task.state in states), *own]))

    def task_line(self, text: str, states: Sequence[TaskState]) -> int | None:
        """Return the line of the first task with this text in `states` (None: no such task; 0: the note itself)."""
        if self.status_change(text, states) is not None:
            return 0
        return next((task.line for task in self.tasks if task.text == text and task.state in states), None)

    def status_change(self, text: str, states: Sequence[TaskState]) -> tuple[str, str] | None:
        """Return the property and value that complete (an open task) or reopen (a done one) the note's own task.

        None unless `text` picks the note's own task, in one of `states`.
        """
        own = self.note_task
        if own is None or text != own.title or own.state not in states:
            return None
        return own.key, own.reopened if own.state == "done" else own.done


@dataclass(frozen=True, slots=True)
class NoteTask:
    """The task a task note is: its title, state, the property holding its status and the values that change it."""

    title: str
    state: TaskState  # "open" or "done"
    key: str  # "status", or the name the plugin's settings map it to
    done: str  # the status that completes it ("done")
    reopened: str  # the status that reopens it ("open")


TaskState = Literal["open", "done", "other"]


@dataclass(frozen=True, slots=True)
class CandidateTask:
    """One task of a candidate note, as the model may pick it: its text (inline fields too), state and line."""

    text: str
    state: TaskState  # "open" ("[ ]"), "done" (done or cancelled: "x", "X", "-"), or "other" ("/", "?", ...)
    line: int


def task_state(status: str) -> TaskState:
    """Return the state of a task's status character: "open" (`[ ]`), "done" (done or cancelled) or "other"."""
    return "open" if status == " " else "done" if status in _CLOSED_TASK else "other"


@dataclass(frozen=True, slots=True)
class Findings:
    """Everything code found in the request: candidate targets, quoted values, folders it names."""

    candidates: tuple[Candidate, ...]
    quoted: tuple[str, ...]
    folders: tuple[str, ...]
    is_named: bool  # True when the candidates are notes the request names (not retrieval hits)
    names: tuple[str, ...] = ()  # the names the request gives a new (or renamed) note, see `given_names`
    place: str = ""  # the one folder a request names for a new note ("" for none, or several): `requested_folder`
    template: str = ""  # the template a new note starts from, as the Templates folder names it ("" for none)
    missing: tuple[str, ...] = ()  # names the request gives notes that no note has ("the Dune note")
    closest: tuple[str, ...] = ()  # titles close to the missing names, to suggest
    task: str = ""  # a new task's words as the request writes them unquoted ("call the plumber"), see `task_words`
    due: str = ""  # the due date the request gives a new task, as the vault writes one ("📅 2026-12-11"), see due_dates
    task_filter: str = ""  # the tag a new task starts with ("#task"), see agent/propose/task_filter.py

    @property
    def paths(self) -> tuple[str, ...]:
        """Return the candidates' paths in order."""
        return tuple(candidate.path for candidate in self.candidates)

    def candidate(self, path: str) -> Candidate | None:
        """Return the candidate at `path`, or None."""
        return next((c for c in self.candidates if c.path == path), None)

    def describe_missing(self) -> str:
        """Return 'no note called “Dune” was found (the closest: “Dunes”)', or "" when nothing named is missing."""
        if not self.missing:
            return ""
        called = " or ".join(f"“{name}”" for name in self.missing)
        closest = f" (the closest: {', '.join(f'“{title}”' for title in self.closest)})" if self.closest else ""
        return f"no note called {called} was found{closest}"
