"""What the Tasks plugin writes when a task is checked or reopened: the done date and a recurring task's next one.

Obsidian's Tasks plugin, on completing a task, adds `✅ <today>` (setting `setDoneDate`) and, for a task with a
recurrence rule, writes the next occurrence on a new line above it (`recurrenceOnNextLine`: below) with its dates
moved on by the rule; reopening a task drops its done and cancelled dates. The plugin rewrites the whole line in
its own field order; here only the fields that change are touched, so the rest of the line stays as written.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from edits.text.recurrence import Recurrence, next_date, parse_recurrence
from edits.text.task_fields import DateKind, TaskField, TaskFields, date_field, edit_text, read_task_fields
from rag.notes.obsidian_config import TasksPluginSettings

Edit = tuple[int, int, str]
MOVED_DATES: tuple[DateKind, ...] = ("due", "scheduled", "start")  # what the next occurrence moves on
NEXT_ADDED = "next occurrence added"


@dataclass(frozen=True, slots=True)
class TasksPlugin:
    """The Tasks plugin as it acts on a toggled task: the vault's plugin settings and the user's today."""

    settings: TasksPluginSettings
    today: date

    def is_task(self, text: str) -> bool:
        """Return True when the plugin treats a checkbox with this text as a task (it holds the global filter)."""
        return self.settings.global_filter in text


@dataclass(frozen=True, slots=True)
class CompletedTask:
    """The lines that replace a completed task's line, and what was done or left out, for the proposal's summary."""

    lines: tuple[str, ...]
    remark: str = ""


def complete_task(lead: str, text: str, plugin: TasksPlugin) -> CompletedTask:
    """Return the lines the plugin writes for a completed task: the next occurrence (if any) and the checked task.

    Args:
        lead: the line up to its checkbox's `[` (indent, quote markers, list marker).
        text: the line after the checkbox's `]`.
        plugin: the vault's Tasks plugin settings and today.

    """
    settings = plugin.settings
    fields = read_task_fields(text, is_dataview=settings.is_dataview_format)
    edits: list[Edit] = [(field.start, field.end, "") for field in fields.of_kind("done", "cancelled")]
    if settings.sets_done_date:
        done = date_field("done", plugin.today, is_dataview=settings.is_dataview_format)
        edits.append((fields.fields_end, fields.fields_end, done))
    completed = f"{lead}x]{edit_text(text, edits)}"
    on_completion = fields.first("on_completion")
    deletes_completed = on_completion is not None and on_completion.value.lower() == "delete"  # 🏁 delete
    recurrence = fields.first("recurrence")
    if recurrence is None:
        return CompletedTask(() if deletes_completed else (completed,))
    # Without a next occurrence the completed task stays, 🏁 delete or not: the recurring task must not vanish.
    rule = parse_recurrence(recurrence.value)
    if rule is None:
        return CompletedTask((completed,), _not_created(f"its rule {recurrence.value!r} is not supported here"))
    try:
        next_text = _next_occurrence(fields, rule, plugin)
    except ValueError as exc:  # a date that does not exist (2024-02-30): the plugin would drop the rule
        return CompletedTask((completed,), _not_created(str(exc)))
    next_line = f"{lead} ]{next_text}"
    if deletes_completed:
        return CompletedTask((next_line,), NEXT_ADDED)
    lines = (completed, next_line) if settings.is_recurrence_on_next_line else (next_line, completed)
    return CompletedTask(lines, NEXT_ADDED)


def reopen_task(text: str, plugin: TasksPlugin) -> str:
    """Return a reopened task's text after its checkbox, without the done and cancelled dates the plugin drops."""
    fields = read_task_fields(text, is_dataview=plugin.settings.is_dataview_format)
    return edit_text(text, [(field.start, field.end, "") for field in fields.of_kind("done", "cancelled")])


def _not_created(reason: str) -> str:
    # Never a guessed date: the user is told to let the plugin do it (check the task in Obsidian) or add it.
    return f"next occurrence not created: {reason}; add it in Obsidian, or check the task there instead"


def _reference_order(settings: TasksPluginSettings) -> tuple[DateKind, ...]:
    # The plugin moves the next occurrence on from the first of these dates the task has; a scheduled date the
    # next occurrence will not keep comes last.
    return ("due", "start", "scheduled") if settings.removes_scheduled_date else ("due", "scheduled", "start")


def _next_occurrence(fields: TaskFields, rule: Recurrence, plugin: TasksPlugin) -> str:
    """Return the next occurrence's text after its checkbox: the dates moved on, one-off fields dropped.

    Raises:
        ValueError: a date of the task that does not exist.

    """
    settings, dataview = plugin.settings, plugin.settings.is_dataview_format
    dates = {kind: _day(field) for kind in MOVED_DATES if (field := fields.first(kind))}
    reference = next((dates[kind] for kind in _reference_order(settings) if kind in dates), None)
    # Every date keeps its distance to the reference date; a task without dates gets none (as in the plugin).
    moved_reference = None
    if reference is not None:
        moved_reference = next_date(rule, plugin.today if rule.is_when_done else reference)
    drops_scheduled = settings.removes_scheduled_date and ("due" in dates or "start" in dates)
    # A done or cancelled date, a dependency id and a block link belong to this occurrence only.
    edits: list[Edit] = [(f.start, f.end, "") for f in fields.of_kind("done", "cancelled", "id", "depends_on")]
    block_link_end = len(fields.text.rstrip())
    if block_link_end > fields.fields_end:
        edits.append((fields.fields_end, block_link_end, ""))
    for field in fields.of_kind(*MOVED_DATES):
        if field.kind == "scheduled" and drops_scheduled:
            edits.append((field.start, field.end, ""))
        elif reference is not None and moved_reference is not None:
            moved = moved_reference + (_day(field) - reference)
            edits.append((field.value_start, field.value_end, moved.isoformat()))
    edits.extend(_created_date_edits(fields, plugin, dataview=dataview))
    return edit_text(fields.text, edits)


def _created_date_edits(fields: TaskFields, plugin: TasksPlugin, *, dataview: bool) -> list[Edit]:
    # The plugin gives the next occurrence a created date of today (setCreatedDate) or none at all.
    created = fields.of_kind("created")
    if not plugin.settings.sets_created_date:
        return [(field.start, field.end, "") for field in created]
    today = plugin.today.isoformat()
    if created:
        return [(field.value_start, field.value_end, today) for field in created]
    recurrence = fields.first("recurrence")
    at = recurrence.end if recurrence is not None else fields.fields_end  # where the plugin writes it: after 🔁
    return [(at, at, date_field("created", plugin.today, is_dataview=dataview))]


def _day(field: TaskField) -> date:
    try:
        return date.fromisoformat(field.value)
    except ValueError:
        raise ValueError(f"its {field.kind} date {field.value} does not exist") from None
