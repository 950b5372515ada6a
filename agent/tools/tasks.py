"""The `tasks` tool: open and done tasks across the vault, the tasks of one note or of a daily note."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, timedelta
from typing import Literal

from pydantic import Field

from agent.tools.daily import DATE_DESCRIPTION, existing_daily_note
from agent.tools.definition import Tool, ToolArgs, require
from agent.tools.done_tasks import DoneTasks
from agent.tools.due_tasks import DueTasks, TaskPlace
from agent.tools.outcome import Part, Reply, data_part, reply
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from agent.tools.vault_tasks import is_open, note_line, task_notes, vault_tasks
from core.domain import Task
from core.errors import InvalidRequest
from rag.answer.done_questions import DoneAsk
from rag.answer.due_questions import DueAsk
from rag.notes.moment import parse_day
from rag.notes.task_notes import task_note, task_notes_config

_LEGEND = "Marks: [ ] to do, [/] in progress, [x] done, [-] cancelled."
_NARROW = "Narrow with folder, or ask for one note with in_note."


class TasksArgs(ToolArgs):
    """Arguments of tasks."""

    command: Literal["open", "done", "in_note", "in_daily", "due", "overdue"] = Field(
        description="open/done: vault or folder; in_note: note's; in_daily: date's daily note; due, done: date..until"
    )
    note: str = Field("", description="The note's name, path or [[link]].")
    date: str = Field("", description=DATE_DESCRIPTION)
    until: str = Field("", description="last day")
    folder: str = Field("", description="Only under this folder.")


def _note_tasks(snapshot: VaultSnapshot, path: str, tasks: Iterable[Task]) -> list[Part]:
    """Return one delimited block per section of the note at `path` that holds `tasks`, cited at that heading."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for task in tasks:
        where = snapshot.heading_path_at(path, task.line)
        groups.setdefault(where, []).append(f"- [{task.status}] {task.text} (line {task.line})")
    parts = []
    for where, lines in groups.items():
        anchor = snapshot.anchor(path, where)
        parts.append(data_part("tasks", "\n".join(lines), (anchor,), path=path, source=anchor))
    return parts


def _across_vault(reader: VaultReader, snapshot: VaultSnapshot, folder: str, *, done: bool) -> Reply:
    in_state: Callable[[Task], bool] = (lambda task: task.is_done) if done else is_open
    parts = []
    for path, tasks in vault_tasks(reader, snapshot, folder):
        parts.extend(_note_tasks(snapshot, path, filter(in_state, tasks)))
    # A task note (the TaskNotes plugin's one note per task) is a task too, its state in its properties.
    notes = [note for note in task_notes(reader, snapshot, folder) if note.is_done == done]
    if notes:
        anchors = tuple(snapshot.anchor(note.path) for note in notes)
        lines = [f"- {note_line(note)} {anchor}" for note, anchor in zip(notes, anchors, strict=True)]
        parts.append(data_part("tasks", "\n".join(lines), anchors, kind="task notes"))
    count = sum(part.body.count("\n") + 1 for part in parts)
    state = "done" if done else "open"
    scope = f" under '{folder}'" if folder else ""
    if not parts:
        return reply(f"No {state} tasks{scope}.")
    return reply(f"{count} {state} task(s){scope}, by note and heading. {_LEGEND}", *parts, more_hint=_NARROW)


def run_tasks(reader: VaultReader, args: TasksArgs) -> Reply:
    """List tasks: open or done across the vault, all of one note or daily note, or the open ones by date."""
    if args.command in ("due", "overdue"):
        return _by_date(reader, args)
    snapshot = reader.snapshot()
    if args.command in ("open", "done"):
        folder = snapshot.require_folder(args.folder)
        if args.command == "done" and args.date.strip():
            return _done_between(reader, args, folder)
        return _across_vault(reader, snapshot, folder, done=args.command == "done")
    if args.command == "in_note":
        path = snapshot.find_note(require(args.note, "note", "tasks in_note"))
    else:
        path = existing_daily_note(reader, snapshot, parse_day(args.date, reader.today()))
    parts = _note_tasks(snapshot, path, snapshot.notes[path].tasks)
    anchor = snapshot.anchor(path)
    if (own := task_note(snapshot.notes[path], task_notes_config(snapshot.root))) is not None:
        # A task note is a task itself, whatever checkboxes it holds ("Renew passport", due 2020-03-15).
        part = data_part("tasks", f"- {note_line(own)} {anchor}", (anchor,), kind="task note", path=path, source=anchor)
        parts.insert(0, part)
    if not parts:
        return reply(Part(f"{anchor} ({path}) has no tasks.", (anchor,)))
    open_count = sum(is_open(task) for task in snapshot.notes[path].tasks)
    total = len(snapshot.notes[path].tasks)
    itself = f" The note is a task itself ({own.status or 'open'})." if own is not None else ""
    return reply(f"{path}: {total} task(s), {open_count} open.{itself} {_LEGEND}", *parts)


def _by_date(reader: VaultReader, args: TasksArgs) -> Reply:
    """List the open tasks of the days asked by their due or scheduled dates, as a chat question gets them."""
    today = reader.today()
    if args.command == "overdue":
        ask = DueAsk(date.min, today - timedelta(days=1), by_due_only=True)
    else:
        ask = DueAsk(*_days(reader, args, "due"))
    found = DueTasks(reader).days_reply(ask)
    return reply(data_part("tasks", found.text, found.anchors))


def _done_between(reader: VaultReader, args: TasksArgs, folder: str) -> Reply:
    """List the tasks done from `date` to `until` by their done dates, latest first, as a chat question gets them."""
    first, last = _days(reader, args, "done")
    found = DoneTasks(reader).reply(DoneAsk(first, last, names_tasks=True), TaskPlace(folder, is_folder=True))
    if found is None:
        scope = f" under '{folder}'" if folder else ""
        return reply(f"No done task{scope} has a done date (✅ YYYY-MM-DD, [completion:: …] or completedDate).")
    return reply(data_part("tasks", found.text, found.anchors))


def _days(reader: VaultReader, args: TasksArgs, command: str) -> tuple[date, date]:
    """Return the days from `date` to `until` (the one day `date` without it); `until` before `date` is refused."""
    today = reader.today()
    first = parse_day(args.date, today)
    last = parse_day(args.until, today) if args.until.strip() else first
    if last < first:
        raise InvalidRequest(f"tasks {command}: until ({last.isoformat()}) is before date ({first.isoformat()})")
    return first, last


# Words of a message that call for tasks (agent.tools.cues).
TASKS_CUES = (
    "task", "tasks", "todo", "todos", "to-do", "to-dos", "to do", "checklist", "checkbox", "unfinished", "finished",
    "done", "open", "due", "overdue", "aufgabe", "aufgaben", "erledigt", "offen", "fällig",
)  # fmt: skip


TASKS = Tool(
    name="tasks",
    description="List tasks (- [ ] to do, - [x] done) of the vault, a folder, a note or a day.",
    args=TasksArgs,
    handler=run_tasks,
    cues=TASKS_CUES,
)
