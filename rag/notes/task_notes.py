"""Task notes as the TaskNotes plugin keeps them: one note per task, its state in the note's properties.

A checkbox task states its dates in its line (`📅 2026-11-20`, `[due:: …]`); a task note states them as properties
(`status: open`, `priority: high`, `due: 2020-03-15`), and has no checkbox at all. "What's overdue?" must find both:
sample_vault's "Renew passport" note, due 2020-03-15 and open, was left out of the overdue list while its checkbox
sub-task was in it. Which notes are tasks, and which properties say what, follow the plugin's settings
(`.obsidian/plugins/tasknotes/data.json`: the task tag or property, the field names, the statuses that count as
completed, the excluded folders), read fresh on each call like Obsidian's own; without them, the plugin's defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from core.domain import Note
from rag.notes.frontmatter import frontmatter_tags, property_day, property_of
from rag.notes.obsidian_config import plugin_config, text_setting

TASKNOTES_CONFIG = "plugins/tasknotes/data"  # .obsidian/<this>.json
DEFAULT_TASK_TAG = "task"
DEFAULT_COMPLETED = frozenset({"done"})
DEFAULT_ARCHIVE_TAG = "archived"
_FIELDS = ("title", "status", "priority", "due", "scheduled", "completedDate")
# The plugin's priorities as the Tasks plugin names them (rag.notes.task_fields.PRIORITIES), so a question narrows
# to "high" either way; its default "normal", like "none", is no priority, as the Tasks plugin's normal is.
_PRIORITY_OF = {"highest": "highest", "urgent": "highest", "high": "high", "medium": "medium", "low": "low"}


@dataclass(frozen=True, slots=True)
class TaskNotesConfig:
    """How the vault marks task notes and names their properties (the plugin's settings, or its defaults)."""

    tag: str = DEFAULT_TASK_TAG
    by_property: tuple[str, str] | None = None  # (name, value) when tasks are identified by a property, not a tag
    fields: Mapping[str, str] | None = None  # the plugin's field name -> the property key (None: the defaults)
    completed: frozenset[str] = DEFAULT_COMPLETED
    done_status: str = "done"  # what completing a task note sets: the first completed status
    open_status: str = "open"  # what reopening one sets: the plugin's default status for a new task
    excluded: tuple[str, ...] = ()  # folders whose notes are never tasks
    archive_tag: str = DEFAULT_ARCHIVE_TAG

    def key(self, field: str) -> str:
        """Return the property key the vault uses for one of the plugin's fields ("due" unless mapped otherwise)."""
        return (self.fields or {}).get(field, field)


@dataclass(frozen=True, slots=True)
class TaskNote:
    """One task note: its title, status as written, whether that status is a completed one, priority and dates."""

    path: str
    title: str
    status: str
    is_done: bool
    priority: str | None  # one of rag.notes.task_fields.PRIORITIES, or None
    due: date | None
    scheduled: date | None
    done: date | None = None  # the day it was completed (the plugin's `completedDate`), when written


def task_notes_config(root: Path) -> TaskNotesConfig:
    """Return the TaskNotes settings of the vault at `root` (the plugin's defaults when it has none)."""
    config = plugin_config(root, TASKNOTES_CONFIG)
    if not config:
        return TaskNotesConfig()
    mapping = config.get("fieldMapping")
    fields = {
        field: key.strip()
        for field in _FIELDS
        if isinstance(mapping, dict) and isinstance(key := mapping.get(field), str) and key.strip()
    }
    statuses = config.get("customStatuses")
    finished = [
        str(status.get("value", "")).strip()
        for status in (statuses if isinstance(statuses, list) else [])
        if isinstance(status, dict) and status.get("isCompleted") is True and str(status.get("value", "")).strip()
    ]
    by_property = None
    if text_setting(config, "taskIdentificationMethod") == "property" and text_setting(config, "taskPropertyName"):
        by_property = (text_setting(config, "taskPropertyName"), text_setting(config, "taskPropertyValue"))
    excluded = tuple(
        folder.strip().strip("/") for folder in text_setting(config, "excludedFolders").split(",") if folder.strip()
    )
    archive = mapping.get("archiveTag") if isinstance(mapping, dict) else None
    archive_tag = archive.strip().lstrip("#") if isinstance(archive, str) else ""
    return TaskNotesConfig(
        tag=text_setting(config, "taskTag").lstrip("#") or DEFAULT_TASK_TAG,
        by_property=by_property,
        fields=fields or None,
        completed=frozenset(value.casefold() for value in finished) or DEFAULT_COMPLETED,
        done_status=finished[0] if finished else "done",
        open_status=text_setting(config, "defaultTaskStatus") or "open",
        excluded=excluded,
        archive_tag=archive_tag or DEFAULT_ARCHIVE_TAG,
    )


def task_note(note: Note, config: TaskNotesConfig) -> TaskNote | None:
    """Return the task `note` is (None: no task note, or an archived one)."""
    if any(note.path.casefold().startswith(f"{folder.casefold()}/") for folder in config.excluded):
        return None
    # The plugin reads the note's `tags` property: "#task" on a checkbox in the body (the Tasks plugin's global
    # filter, obsidian-tasks-demo's "Important Project") makes no note a task.
    tags = {tag.casefold() for tag in frontmatter_tags(note.frontmatter)}
    if config.archive_tag.casefold() in tags or not _is_marked(note, tags, config):
        return None
    status = _text(_lookup(note.frontmatter, config.key("status")))
    priority = _text(_lookup(note.frontmatter, config.key("priority"))).casefold()
    return TaskNote(
        path=note.path,
        title=_text(_lookup(note.frontmatter, config.key("title"))) or note.title,
        status=status,
        is_done=status.casefold() in config.completed,
        priority=_PRIORITY_OF.get(priority),
        due=property_day(_lookup(note.frontmatter, config.key("due"))),
        scheduled=property_day(_lookup(note.frontmatter, config.key("scheduled"))),
        done=property_day(_lookup(note.frontmatter, config.key("completedDate"))),
    )


def _is_marked(note: Note, tags: set[str], config: TaskNotesConfig) -> bool:
    if config.by_property is None:
        return config.tag.casefold() in tags
    name, wanted = config.by_property
    value = _lookup(note.frontmatter, name)
    values = value if isinstance(value, list) else [value]
    if not wanted:  # the property present at all marks a task
        return value not in (None, "", [])
    return any(_text(item).casefold() == wanted.casefold() for item in values)


def _lookup(frontmatter: Mapping[str, object], key: str) -> object:
    return property_of(frontmatter, key)[1]


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"  # the plugin's checkbox statuses
    return str(value).strip() if isinstance(value, str | int | float) else ""
    return None
