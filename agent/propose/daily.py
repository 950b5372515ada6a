"""The `edit_daily_note` write tool: add text or a task to the daily note of a day, creating it when missing.

A missing daily note is created as the Daily notes plugin would create it: at the path its folder and format give,
from its template with the placeholders filled in for that day (not today), and the edit is applied on top. The
whole thing is one proposal, a create.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field

from agent.propose.kit import PlannedEdit, ProposeContext, ProposeTool
from agent.propose.paths import as_on_disk
from agent.propose.task_filter import with_global_filter
from agent.tools.daily import DATE_DESCRIPTION, DAY_CUES, daily_note_path
from agent.tools.definition import ToolArgs, require
from edits.scope import check_writable
from edits.text import body as ops
from edits.text.templates import new_daily_note_text as shared_new_daily_note_text
from rag.notes.moment import parse_day


class EditDailyNoteArgs(ToolArgs):
    """Arguments of edit_daily_note."""

    command: Literal["append", "prepend", "add_task"] = Field(
        description="append/prepend: content at the end/start (of heading's section); add_task: content as a task."
    )
    date: str = Field("", description=DATE_DESCRIPTION)
    content: str = Field(description="Markdown to add; the task text.")
    heading: str = Field("", description="Add under this heading, e.g. 'Log'.")


def new_daily_note_text(context: ProposeContext, day: date) -> str:
    """Return the text a new daily note of `day` starts with: its template filled in for that day, or ""."""
    return shared_new_daily_note_text(
        context.reader.daily_notes_config(context.snapshot()),
        day=day,
        now=context.reader.now(),
        find_note=context.snapshot().find_note,
        read=context.read,
    )


def _edited(text: str, args: EditDailyNoteArgs) -> str:
    content, heading = args.content, args.heading.strip()
    if args.command == "add_task":
        return ops.add_task(text, content, heading=heading)
    require(content, "content", f"edit_daily_note {args.command}")
    if args.command == "append":
        return ops.append_to_section(text, heading, content) if heading else ops.append_to_note(text, content)
    return ops.prepend_to_section(text, heading, content) if heading else ops.prepend_to_note(text, content)


def plan_edit_daily_note(context: ProposeContext, args: EditDailyNoteArgs) -> list[PlannedEdit]:
    """Plan one edit of a day's daily note; a missing note is created from the daily template first."""
    day = parse_day(args.date, context.today())
    if args.command == "add_task" and args.content.strip():
        args = args.model_copy(update={"content": with_global_filter(args.content, context.root, context.tasks)})
    computed = daily_note_path(context.reader, context.snapshot(), day)
    path = check_writable(as_on_disk(context.snapshot(), computed), settings=context.settings)
    before = context.read(path)
    start = before if before is not None else new_daily_note_text(context, day)
    operation = f"{args.command.replace('_', ' ')} (daily note {day.isoformat()})"
    if before is None:
        operation = f"create daily note {day.isoformat()} and {args.command.replace('_', ' ')}"
    return [PlannedEdit(operation, path, before, _edited(start, args))]


EDIT_DAILY_NOTE: ProposeTool[EditDailyNoteArgs] = ProposeTool(
    name="edit_daily_note",
    description=(
        "Propose adding text or a task to a day's daily note (made from its template when missing). "
        "Nothing is written until the user replies yes."
    ),
    args=EditDailyNoteArgs,
    planner=plan_edit_daily_note,
    cues=(*DAY_CUES, "log", "jot", "record"),
)
