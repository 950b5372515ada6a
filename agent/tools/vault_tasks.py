"""The tasks of a vault as the Tasks plugin counts them: outside the templates folder, with its global filter."""

from __future__ import annotations

from collections.abc import Iterator

from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from core.domain import Task
from core.errors import NotFound
from rag.notes.obsidian_config import counts_as_task
from rag.notes.task_notes import TaskNote, task_note, task_notes_config

_CLOSED = frozenset("xX-")  # done or cancelled: not "open" ("/" in progress and other marks still are)
_IN_PROGRESS = "/"


def is_open(task: Task) -> bool:
    """Return True for a task that is neither done nor cancelled."""
    return task.status not in _CLOSED


def is_in_progress(task: Task) -> bool:
    """Return True for a task marked in progress: the Tasks plugin's "[/]"."""
    return task.status == _IN_PROGRESS


def is_in_progress_status(status: str) -> bool:
    """Return True for a status saying in progress, however written: "in-progress" (TaskNotes), "In Progress"."""
    return status_words(status) == "in progress"


def status_words(status: str) -> str:
    """Return a status as compared: "In-Progress", "in_progress" and "in progress" alike."""
    return " ".join(status.casefold().replace("-", " ").replace("_", " ").split())


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
    is_task = counts_as_task(snapshot.root)
    for path in _notes_with_tasks(reader, snapshot, folder):
        if tasks := [task for task in snapshot.notes[path].tasks if is_task(task.text)]:
            yield path, tasks


def task_notes(reader: VaultReader, snapshot: VaultSnapshot, folder: str = "") -> Iterator[TaskNote]:
    """Yield the task notes under `folder` ("": the vault), by path, as the TaskNotes plugin's settings mark them.

    None in the templates folder: a task template is tagged as a task, and is none.
    """
    config = task_notes_config(snapshot.root)
    for path in _notes_with_tasks(reader, snapshot, folder):
        if (found := task_note(snapshot.notes[path], config)) is not None:
            yield found


def _notes_with_tasks(reader: VaultReader, snapshot: VaultSnapshot, folder: str) -> Iterator[str]:
    """Yield the paths of the notes under `folder` whose tasks count, by path: none in the templates folder."""
    templates = templates_folder_or_none(reader, snapshot)
    for path in sorted(snapshot.notes, key=str.lower):
        if snapshot.in_folder(path, folder) and not (templates and snapshot.in_folder(path, templates)):
            yield path


def note_line(note: TaskNote) -> str:
    """Return a task note as a task list shows it: "[open] Renew passport (due 2020-03-15, priority high)"."""
    facts = [
        f"due {note.due.isoformat()}" if note.due else "",
        f"scheduled {note.scheduled.isoformat()}" if note.scheduled else "",
        f"done {note.done.isoformat()}" if note.done else "",
    ]
    facts.append(f"priority {note.priority}" if note.priority else "")
    said = ", ".join(fact for fact in facts if fact)
    return f"[{note.status or 'open'}] {note.title}" + (f" ({said})" if said else "")
