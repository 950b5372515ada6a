"""A task added to a note carries the Tasks plugin's global filter, so the plugin counts it as a task."""

from __future__ import annotations

from pathlib import Path

from rag.notes.obsidian_config import holds_global_filter, tasks_global_filter


def with_global_filter(task: str, root: Path) -> str:
    """Return `task` starting with the Tasks plugin's global filter ("#task Buy straw"), as the plugin writes it.

    Unchanged when the vault sets no global filter or the task holds it already.
    """
    wanted = tasks_global_filter(root)
    if not wanted or holds_global_filter(task, wanted):
        return task
    return f"{wanted} {task.strip()}"
