"""`tasks.open`: the open `- [ ]` / `- [/]` tasks across the vault, with the dates the Tasks plugin or Dataview give.

A task counts as open unless it is done (`x`) or cancelled (`-`); with the Tasks plugin's global filter set ("#task"),
a checkbox without it is no task, as to the plugin. Templates and the crew root are left out (a
template's tasks are placeholders). With `due_within_days: N` only tasks due (or, without a due date, scheduled)
up to today + N are kept, overdue ones included; `include_undated` adds the tasks with neither date. The earliest
tasks are kept first when `limit` cuts; the items are the notes, each with its tasks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import PurePosixPath

from pydantic import Field

from crews.collectors.base import CollectContext, Collector, CollectorParams
from crews.collectors.notes import VaultNotes
from crews.model import CollectedTask, Material, MaterialItem
from edits.diffs import content_hash
from rag.answer.secrets import redact_secrets
from rag.notes.obsidian_config import counts_as_task
from rag.notes.task_fields import find_tasks, parse_task_fields

DEFAULT_LIMIT = 100
MAX_LIMIT = 500
_CLOSED = frozenset("xX-")  # done or cancelled; "/" (in progress) and other marks are still open
# A line that may hold an open task: only such notes are parsed in full (most notes of a vault have none).
_MAYBE_OPEN = re.compile(r"^[ \t>]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[[^xX\-\]]\]", re.MULTILINE)
_PRIORITY_ORDER = {"highest": 0, "high": 1, "medium": 2, None: 3, "low": 4, "lowest": 5}


class OpenTasksParams(CollectorParams):
    """Params of tasks.open."""

    due_within_days: int | None = Field(
        None, ge=0, le=3660, description="Only tasks due (or scheduled) up to today + N days, overdue included."
    )
    include_undated: bool = Field(False, description="With due_within_days: also tasks with no due or scheduled date.")
    folder: str = Field("", description="Only tasks in notes under this folder; empty: the whole vault.")
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="At most this many tasks, earliest first.")


@dataclass(frozen=True, slots=True)
class _Found:
    task: CollectedTask
    when: date | None  # due, else scheduled
    title: str
    content_hash: str


def _tasks_of(vault: VaultNotes, path: str, is_task: Callable[[str], bool]) -> list[_Found]:
    text = vault.read_text(path)
    if text is None or not _MAYBE_OPEN.search(text):
        return []
    title = PurePosixPath(path).stem  # what a [[link]] to the note says
    digest = content_hash(text)
    found = []
    for task in find_tasks(text):
        if task.status in _CLOSED or not is_task(task.text):  # the Tasks plugin's global filter, when set
            continue
        fields = parse_task_fields(task.text)
        if not fields.description:
            continue  # an empty "- [ ]": a placeholder, not a task
        collected = CollectedTask(
            path=path,
            line=task.line,
            text=fields.description,
            status=task.status,
            due=_iso(fields.due),
            scheduled=_iso(fields.scheduled),
            start=_iso(fields.start),
            priority=fields.priority,
            recurrence=fields.recurrence,
        )
        found.append(_Found(collected, fields.due or fields.scheduled, title, digest))
    return found


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day else None


def _is_kept(found: _Found, params: OpenTasksParams, horizon: date | None) -> bool:
    if horizon is None:
        return True
    return found.when <= horizon if found.when is not None else params.include_undated


def _order(found: _Found) -> tuple[int, int, str, int]:
    when = found.when.toordinal() if found.when else date.max.toordinal()
    return when, _PRIORITY_ORDER.get(found.task.priority, 3), found.task.path.casefold(), found.task.line


def _group(kept: list[_Found], *, is_redacted: bool) -> tuple[MaterialItem, ...]:
    by_note: dict[str, list[_Found]] = {}
    for found in kept:
        by_note.setdefault(found.task.path, []).append(found)
    return tuple(
        MaterialItem(
            path=path,
            content_hash=tasks[0].content_hash,
            title=tasks[0].title,
            # Masked only once chosen: detect-secrets costs a few hundred microseconds a line.
            tasks=tuple(replace(f.task, text=redact_secrets(f.task.text)) if is_redacted else f.task for f in tasks),
        )
        for path, tasks in by_note.items()
    )


def _summary(kept: list[_Found], total: int, today: date, horizon: date | None) -> str:
    overdue = sum(1 for found in kept if found.when is not None and found.when < today)
    due_today = sum(1 for found in kept if found.when == today)
    notes = len({found.task.path for found in kept})
    window = f", due or scheduled by {horizon.isoformat()} or overdue" if horizon else ""
    summary = (
        f"{len(kept)} open task(s) in {notes} note(s){window}: {overdue} overdue, {due_today} due today "
        f"(today is {today.isoformat()}, {today.strftime('%A')})"
    )
    if total > len(kept):
        summary += f"; {total - len(kept)} more beyond the limit"
    return summary


def gather_open_tasks(params: OpenTasksParams, context: CollectContext) -> Material:
    """Collect the open tasks of the vault (or a folder) within the date window, earliest first."""
    vault = VaultNotes.open(context)
    folder = vault.folder(params.folder)
    horizon = context.today + timedelta(days=params.due_within_days) if params.due_within_days is not None else None
    is_task = counts_as_task(vault.scan.root)
    found = [task for path in vault.paths(folder) for task in _tasks_of(vault, path, is_task)]
    kept = sorted((task for task in found if _is_kept(task, params, horizon)), key=_order)
    shown = kept[: params.limit]
    summary = _summary(shown, len(kept), context.today, horizon)
    if vault.skipped:
        summary += f"; {len(vault.skipped)} note(s) not readable ({'; '.join(vault.skipped[:3])})"
    return Material(
        collector="tasks.open",
        items=_group(shown, is_redacted=context.vault.redact_secrets),
        summary=summary,
        as_of=context.today.isoformat(),
    )


TASKS_OPEN = Collector(
    name="tasks.open",
    params=OpenTasksParams,
    gather=gather_open_tasks,
    description="Open tasks across the vault with their due, scheduled and start dates and priority.",
)
