"""A task added to a note carries the Tasks plugin's global filter, so the plugin counts it as a task."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from core.domain import Task
from rag.notes.kept_conventions import kept_task_tag
from rag.notes.obsidian_config import has_settings, holds_global_filter, tasks_global_filter


def with_global_filter(task: str, root: Path, vault_tasks: Callable[[], Iterable[Task]] = tuple) -> str:
    """Return `task` starting with the Tasks plugin's global filter ("#task Buy straw"), as the plugin writes it.

    In a vault without its `.obsidian/` settings, the tag nearly all its tasks hold stands for the filter
    (`kept_task_tag` over `vault_tasks()`, the vault's tasks, read only then). Unchanged when there is neither, or
    the task holds it already.
    """
    return with_filter(task, task_filter(root, vault_tasks))


def task_filter(root: Path, vault_tasks: Callable[[], Iterable[Task]] = tuple) -> str:
    """Return the tag a new task starts with: the Tasks plugin's global filter, or the vault's kept one ("": none)."""
    return tasks_global_filter(root) or ("" if has_settings(root) else kept_task_tag(t.text for t in vault_tasks()))


def with_filter(task: str, wanted: str) -> str:
    """Return `task` starting with `wanted` ("#task Buy straw"), unless it is "" or the task holds it already."""
    if not wanted or holds_global_filter(task, wanted):
        return task
    return f"{wanted} {task.strip()}"
