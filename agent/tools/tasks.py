"""The `tasks` tool: open and done tasks across the vault, the tasks of one note or of a daily note."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Literal

from pydantic import Field

from agent.tools.daily import DATE_DESCRIPTION, existing_daily_note
from agent.tools.definition import Tool, ToolArgs, require
from agent.tools.outcome import Part, Reply, data_part, reply
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from core.domain import Task
from core.errors import NotFound
from rag.notes.moment import parse_day
from rag.notes.obsidian_config import counts_as_task

_CLOSED = frozenset("xX-")  # done or cancelled: not "open" ("/" in progress and other marks still are)
_LEGEND = "Marks: [ ] to do, [/] in progress, [x] done, [-] cancelled."
_NARROW = "Narrow with folder, or ask for one note with in_note."


class TasksArgs(ToolArgs):
    """Arguments of tasks."""

    command: Literal["open", "done", "in_note", "in_daily"] = Field(
        description="open, done: in the vault or under folder; in_note: of note; in_daily: of the daily note of date."
    )
    note: str = Field("", description="The note's name, path or [[link]].")
    date: str = Field("", description=DATE_DESCRIPTION)
    folder: str = Field("", description="Only notes under this folder.")


def is_open(task: Task) -> bool:
    """Return True for a task that is neither done nor cancelled."""
    return task.status not in _CLOSED


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


def templates_folder_or_none(reader: VaultReader, snapshot: VaultSnapshot) -> str | None:
    """Return the vault's templates folder, or None when it has none (its tasks are placeholders, left out)."""
    try:
        return reader.templates_folder(snapshot)
    except NotFound:
        return None


def vault_tasks(reader: VaultReader, snapshot: VaultSnapshot, folder: str = "") -> Iterator[tuple[str, list[Task]]]:
    """Yield each note under `folder` ("": the vault) with the tasks the Tasks plugin counts in it, by path.

    None in the templates folder (a template's empty "- [ ]" is a placeholder, not a task); with the plugin's global
    filter set, only checkboxes holding it. A note without such a task is not yielded.
    """
    templates = templates_folder_or_none(reader, snapshot)
    is_task = counts_as_task(snapshot.root)
    for path in sorted(snapshot.notes, key=str.lower):
        if not snapshot.in_folder(path, folder) or (templates and snapshot.in_folder(path, templates)):
            continue
        if tasks := [task for task in snapshot.notes[path].tasks if is_task(task.text)]:
            yield path, tasks


def _across_vault(reader: VaultReader, snapshot: VaultSnapshot, folder: str, *, done: bool) -> Reply:
    in_state: Callable[[Task], bool] = (lambda task: task.is_done) if done else is_open
    parts = []
    for path, tasks in vault_tasks(reader, snapshot, folder):
        parts.extend(_note_tasks(snapshot, path, filter(in_state, tasks)))
    count = sum(part.body.count("\n") + 1 for part in parts)
    state = "done" if done else "open"
    scope = f" under '{folder}'" if folder else ""
    if not parts:
        return reply(f"No {state} tasks{scope}.")
    return reply(f"{count} {state} task(s){scope}, by note and heading. {_LEGEND}", *parts, more_hint=_NARROW)


def run_tasks(reader: VaultReader, args: TasksArgs) -> Reply:
    """List tasks: open or done across the vault, or all tasks of one note or daily note."""
    snapshot = reader.snapshot()
    if args.command in ("open", "done"):
        folder = snapshot.require_folder(args.folder)
        return _across_vault(reader, snapshot, folder, done=args.command == "done")
    if args.command == "in_note":
        path = snapshot.find_note(require(args.note, "note", "tasks in_note"))
    else:
        path = existing_daily_note(reader, snapshot, parse_day(args.date, reader.today()))
    parts = _note_tasks(snapshot, path, snapshot.notes[path].tasks)
    anchor = snapshot.anchor(path)
    if not parts:
        return reply(Part(f"{anchor} ({path}) has no tasks.", (anchor,)))
    open_count = sum(is_open(task) for task in snapshot.notes[path].tasks)
    total = len(snapshot.notes[path].tasks)
    return reply(f"{path}: {total} task(s), {open_count} open. {_LEGEND}", *parts)


# Words of a message that call for tasks (agent.tools.cues).
TASKS_CUES = (
    "task", "tasks", "todo", "todos", "to-do", "to-dos", "to do", "checklist", "checkbox", "unfinished", "finished",
    "done", "open", "aufgabe", "aufgaben", "erledigt", "offen",
)  # fmt: skip


TASKS = Tool(
    name="tasks",
    description="List markdown tasks (- [ ] to do, - [x] done) of the vault, a folder, a note or a day.",
    args=TasksArgs,
    handler=run_tasks,
    cues=TASKS_CUES,
)
