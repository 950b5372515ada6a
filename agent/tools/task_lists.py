"""The tasks a question asks for of one note or folder, listed by code ("Which tasks in Important Project are open?").

Asked "What tasks are in my Important Project note?" on obsidian-tasks-demo, the 0.5B listed a task of another note
four times; asked which of them were done, it listed open ones. Which tasks a note holds, and which are done, is no
judgment: the question is read by code (rag/answer/task_lists.py), the note or folder it names as the place of the
tasks ("in Important Project", "the ACME note", "[[ACME]]", "in the How To folder") is found against the vault, and
the reply lists that place's tasks as the Tasks plugin counts them, each with a link to its section; no model is asked.
A question about tasks by date that names a place ("What's overdue in ACME?") gets the date list of that place alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date

from agent.tools.done_tasks import DoneTasks
from agent.tools.due_tasks import DueTasks, TaskPlace
from agent.tools.list_reply import MAX_LISTED, ListReply, capped
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from agent.tools.vault_tasks import is_in_progress, is_in_progress_status, is_open, note_line, task_notes, vault_tasks
from core.domain import Task
from rag.answer.done_questions import done_ask
from rag.answer.due_questions import due_ask, takes_priority
from rag.answer.secrets import redact_secrets
from rag.answer.task_lists import ListAsk, State, asks_of_whole_vault, asks_what_worked_on, list_ask
from rag.notes.inline import WIKILINK
from rag.notes.task_fields import parse_task_fields
from rag.notes.task_notes import TaskNote

MIN_NAME_CHARS = 3  # a shorter title ("AI") names a note only as a [[link]]
_MAX_FOLLOWED = 3  # questions back a follow-up may reach for the place asked of ("And the done ones?")
# A name is the tasks' place when it stands where a place does: "in/from/of [the/my] X [note]", "X note", "X's".
_PLACE_BEFORE = re.compile(
    r"\b(?:in|from|of|inside|within|under|im|in\s+der|aus|von)\s+(?:(?:the|my|our|your|der|dem|meiner)\s+)?"
    r"(?:(?:note|page|file|notiz|seite)\s+)?$",
    re.IGNORECASE,
)
_PLACE_AFTER = re.compile(r"^(?:\s+(?:note|page|file|notiz|seite)\b|'s\b)", re.IGNORECASE)
_FOLDER_AFTER = re.compile(r"^\s+(?:folder|ordner)\b", re.IGNORECASE)
_FOLDER_BEFORE = re.compile(r"\b(?:folder|ordner)\s+$", re.IGNORECASE)
# Titles that are the words asking for tasks: "of the tasks" names no note "Tasks" (a [[link]] still does).
_TASK_WORDS = frozenset({"task", "tasks", "todo", "todos", "to-do", "to-dos", "checklist", "aufgaben"})


def named_place(snapshot: VaultSnapshot, question: str) -> TaskPlace | None:
    """Return the one note or folder `question` names as where tasks are, or None (none, or several).

    A [[link]] is a place wherever it stands; a title, alias or folder name only where a place stands (before
    "note" or "folder", after "in", "from", "of" ...), the longest name first: "in Important Project" is no "Project".
    """
    linked = {path for link in WIKILINK.finditer(question) if (path := snapshot.note_named(link[2])) is not None}
    if linked:
        return _note_place(snapshot, linked.pop()) if len(linked) == 1 else None
    text = question.casefold()
    taken: list[tuple[int, int]] = []
    notes: set[str] = set()
    folders: set[str] = set()
    for key, path, is_folder in sorted(_names_in(snapshot, text), key=lambda item: -len(item[0])):
        for match in re.finditer(rf"(?<!\w){re.escape(key)}(?!\w)", text):
            span = match.span()
            if any(start < span[1] and span[0] < end for start, end in taken):
                continue  # "Project" inside "Important Project", taken by the longer name
            before, after = text[: span[0]], text[span[1] :]
            if is_folder and (_FOLDER_AFTER.match(after) or _FOLDER_BEFORE.search(before)):
                folders.add(path)
            elif not is_folder and (_PLACE_BEFORE.search(before) or _PLACE_AFTER.match(after)):
                notes.add(path)
            else:
                continue
            taken.append(span)
    if len(notes) + len(folders) != 1:
        return None
    return _note_place(snapshot, notes.pop()) if notes else TaskPlace(folders.pop(), is_folder=True)


def _names_in(snapshot: VaultSnapshot, text: str) -> list[tuple[str, str, bool]]:
    """Return the note titles and aliases, and folder names, that `text` holds: (casefolded name, path, is_folder)."""
    found = []
    for path, note in snapshot.notes.items():
        for name in (note.title, *note.aliases):
            key = name.strip().casefold()
            if len(key) >= MIN_NAME_CHARS and key not in _TASK_WORDS and key in text:
                found.append((key, path, False))
    for folder in snapshot.note_folders():
        for name in {folder, folder.rsplit("/", 1)[-1]}:
            if len(key := name.casefold()) >= MIN_NAME_CHARS and key in text:
                found.append((key, folder, True))
    return found


def _note_place(snapshot: VaultSnapshot, path: str) -> TaskPlace:
    return TaskPlace(path, is_folder=False, label=snapshot.anchor(path))


@dataclass(frozen=True, slots=True)
class _Asked:
    """A question's list of tasks and the place it asks it of."""

    ask: ListAsk
    place: TaskPlace


class TaskLists:
    """Answer a question about the tasks of a note or folder, or about tasks by date, from the tasks themselves."""

    def __init__(self, reader: VaultReader, *, max_listed: int = MAX_LISTED) -> None:
        self._reader = reader
        self._due = DueTasks(reader, max_listed=max_listed)
        self._done = DoneTasks(reader, max_listed=max_listed)
        self._max_listed = max_listed

    def reply_for(self, question: str, earlier: Sequence[str] = ()) -> ListReply | None:
        """Return the list of tasks `question` asks for, or None when it asks for no list code can give.

        By date ("What's overdue?"): `DueTasks.days_reply`, of the place it names alone if it names one; None when
        no task is found and no open task of the vault has a date (a vault that does not date its tasks may keep
        what is to do in its text). Of a place ("What tasks are in ACME?", then "Which of them are done?"): that
        place's tasks in the state asked. `earlier`: the user's questions before it, oldest first: a follow-up naming
        only other days ("And tomorrow?") asks the same as the one before.
        """
        today = self._reader.today()
        if (done := done_ask(question, today)) is not None:  # "Which tasks did I finish this week?"
            place = named_place(self._reader.snapshot(), question)
            if place is not None or done.of_whole_vault:
                return self._done.reply(done, place or TaskPlace("", is_folder=True))
            return None
        due = due_ask(question, today, earlier=earlier)
        if due is None and list_ask(question, after_list=bool(earlier)) is None:
            return None  # read by its words alone: the vault is scanned only for a question about tasks
        snapshot = self._reader.snapshot()
        if due is not None:
            found = self._due.days_reply(due, place=named_place(snapshot, question))
            return None if found.is_empty else found
        asked = self._asked(snapshot, question, earlier)
        if asked is None:
            return None
        found = self._list_reply(snapshot, asked)
        # "What tasks am I working on?" in a vault marking none in progress: its notes may say it in words.
        return None if found.is_empty and asks_what_worked_on(question) else found

    def _asked(self, snapshot: VaultSnapshot, question: str, earlier: Sequence[str]) -> _Asked | None:
        """Return the list `question` asks for and of which place, after the questions `earlier` if it follows one."""
        before = self._asked(snapshot, earlier[-1], earlier[:-1][-_MAX_FOLLOWED:]) if earlier else None
        ask = list_ask(question, after_list=before is not None)
        if ask is None:
            return None
        place = named_place(snapshot, question)
        if place is None and not ask.follows and asks_of_whole_vault(question):
            # "What are my open tasks?": the vault's, the open ones unless a state is asked ("Which tasks are done?").
            return _Asked(ask if ask.names_state else replace(ask, state="open"), TaskPlace("", is_folder=True))
        if not ask.follows or before is None:
            return None if place is None else _Asked(ask, place)
        if not (place or ask.names_tasks or ask.names_state or ask.priorities):
            return None  # "And what about the weather?" after a list of tasks asks for none
        if not ask.names_state:  # "And in ACME?": the tasks asked for before, of the place it names
            ask = replace(ask, state=before.ask.state, priorities=ask.priorities or before.ask.priorities)
        return _Asked(ask, place or before.place)

    def _list_reply(self, snapshot: VaultSnapshot, asked: _Asked) -> ListReply:
        """Return the reply listing the place's tasks in the state asked: task notes first, then checkboxes."""
        ask, place = asked.ask, asked.place
        lines: list[tuple[date, date | None, str, str]] = []  # (due date, or none for note order; done; line; anchor)
        counted = open_count = 0
        # A task note (the TaskNotes plugin's one note per task) is a task itself: "Renew passport" is open.
        for note in task_notes(self._reader, snapshot, place.folder):
            if place.holds(note.path):
                counted, open_count = counted + 1, open_count + (not note.is_done)
                if _takes(ask, note_state(note), priority=note.priority, due=note.due):
                    lines.append((note.due or date.min, note.done, note_line(note), snapshot.anchor(note.path)))
        for path, tasks in vault_tasks(self._reader, snapshot, place.folder):
            if place.holds(path):
                counted, open_count = counted + len(tasks), open_count + sum(map(is_open, tasks))
                for task in tasks:
                    fields = parse_task_fields(task.text)
                    if _takes(ask, task_state(task), priority=fields.priority, due=fields.due):
                        anchor = snapshot.anchor(path, snapshot.heading_path_at(path, task.line))
                        lines.append((fields.due or date.min, fields.done, f"[{task.status}] {task.text}", anchor))
        if ask.state == "done" and place.is_folder:
            # The done ones of a folder or the vault: the latest done first, as asked what was done lately; those
            # with no done date after, in note order.
            lines.sort(key=lambda item: (item[1] is None, -(item[1] or date.min).toordinal()))
        elif ask.due_only or place.is_folder:
            # The earliest due first, as the date lists are; across a folder or the vault, the undated ones after, in
            # note order (the list is capped: what is due soonest must not fall past the cap). One note's list keeps
            # the note's order.
            lines.sort(key=lambda item: (item[0] == date.min, item[0]))
        listed = [(line, anchor) for _, _, line, anchor in lines]
        return self._reply(ask, place, listed, counted=counted, open_count=open_count)

    def _reply(
        self, ask: ListAsk, place: TaskPlace, lines: list[tuple[str, str]], *, counted: int, open_count: int
    ) -> ListReply:
        tasks = "task" if len(lines) == 1 else "tasks"
        what = " ".join(filter(None, (_state_word(ask), tasks, _priorities(ask))))
        where = place.described
        if not counted:
            return ListReply(f"No tasks in {where}.", place.anchors)
        overall = f"{counted} task{'s' if counted != 1 else ''} in all, {open_count} open"
        if not lines:
            return ListReply(f"No {what} in {where} ({overall}).", place.anchors, is_empty=True)
        listed = lines[: self._max_listed]
        narrowed = ask.state != "all" or ask.priorities or ask.due_only
        header = f"{len(lines)} {what} in {where}" + (f" ({overall}):" if narrowed else f", {open_count} open:")
        text = [header, *capped([f"- {_redacted(self._reader, line)} {anchor}" for line, anchor in lines], len(listed))]
        anchors = dict.fromkeys((*place.anchors, *(anchor for _, anchor in listed)))
        return ListReply("\n".join(text), tuple(anchors))


def _takes(ask: ListAsk, states: frozenset[State], *, priority: str | None, due: date | None) -> bool:
    """Return True when a task in `states`, of that priority and due date, is one `ask` lists.

    A cancelled task is listed only when all are asked for.
    """
    in_state = ask.state == "all" or ask.state in states
    return in_state and takes_priority(ask.priorities, priority) and not (ask.due_only and due is None)


def task_state(task: Task) -> frozenset[State]:
    """Return the states a checkbox task is in: "[ ]" open, "[/]" open and in progress, "[x]" done, "[-]" none."""
    if task.is_done:
        return frozenset({"done"})
    if not is_open(task):
        return frozenset()
    return frozenset({"open", "in progress"}) if is_in_progress(task) else frozenset({"open"})


def note_state(note: TaskNote) -> frozenset[State]:
    """Return the states a task note is in, as `task_state` a checkbox's (TaskNotes' "in-progress" status)."""
    if note.is_done:
        return frozenset({"done"})
    return frozenset({"open", "in progress"}) if is_in_progress_status(note.status) else frozenset({"open"})


def _state_word(ask: ListAsk) -> str:
    """Return the word before "tasks" that names their state: "open", "done" ("" for all, or in progress)."""
    return "" if ask.state in ("all", "in progress") else ask.state


def _priorities(ask: ListAsk) -> str:
    """Return what narrows the list beside its state: "of high or highest priority", "with a due date"."""
    said = ["in progress" if ask.state == "in progress" else ""]
    said.append(f"of {' or '.join(ask.priorities)} priority" if ask.priorities else "")
    said.append("with a due date" if ask.due_only else "")
    return " ".join(filter(None, said))


def _redacted(reader: VaultReader, line: str) -> str:
    return redact_secrets(line) if reader.redacts_secrets else line
