"""The `edit_note` write tool: its arguments, the pure text change it makes and its planner."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agent.propose.kit import PlannedEdit, ProposeContext, ProposeTool
from agent.propose.named_template import render_named_template
from agent.propose.paths import existing_note_path, new_note_path
from agent.propose.task_filter import with_global_filter
from agent.tools.definition import ToolArgs, require
from core.errors import InvalidRequest, NotFound
from edits.text import body as ops
from edits.text import frontmatter as fm
from edits.text.task_completion import TasksPlugin
from rag.notes.kept_conventions import kept_tasks_plugin_settings
from rag.notes.obsidian_config import has_settings, tasks_plugin_settings

EditCommand = Literal[
    "create",
    "append",
    "prepend",
    "append_to_section",
    "prepend_to_section",
    "replace_section",
    "set_property",
    "remove_property",
    "add_tag",
    "remove_tag",
    "add_alias",
    "add_task",
    "toggle_task",
    "complete_task",
]


class EditNoteArgs(ToolArgs):
    """Arguments of edit_note."""

    command: EditCommand = Field(
        description="create: a new note (content, template; refused if it exists). append/prepend: content at "
        "the end/start. *_section: content in heading's section. set_property/remove_property: property, value. "
        "add_tag/remove_tag/add_alias: value. add_task: content as a task (under heading). toggle_task: the task "
        "at line (or with text content), checked or unchecked. complete_task: that task marked done (open or in "
        "progress)."
    )
    path: str = Field(description="A path ('Projects/Garden.md'), or an existing note's name, alias or [[link]].")
    content: str = Field("", description="Markdown to add or put in place; the task text.")
    template: str = Field("", description="For create: a template's name; Templater <% %> code is kept as written.")
    heading: str = Field("", description="The heading, e.g. 'Ideas'.")
    property: str = Field("", description="The frontmatter property's name.")
    value: str | int | float | bool | list[str] | None = Field(
        None, description="The property's value (text, number, true/false, list), or the tag or alias."
    )
    line: int = Field(0, ge=0, description="The task's 1-based line.")


def _text_value(args: EditNoteArgs, usage: str) -> str:
    if not isinstance(args.value, str):
        raise InvalidRequest(f"{usage} needs 'value' as text")
    return require(args.value, "value", usage)


def compute_after(before: str, args: EditNoteArgs, *, template_text: str | None = None) -> str:
    """Return the note's text after the edit `args` describes (pure: nothing is read or written).

    toggle_task and complete_task here only change the checkbox; `plan_edit_note` adds what the vault's Tasks
    plugin writes with them.

    Args:
        before: the note's text now ("" for create).
        args: the edit.
        template_text: for create, the filled-in template the note starts with (None: no template).

    """
    command, content = args.command, args.content
    if command == "create" and template_text is not None:
        return ops.append_to_note(template_text, content) if content.strip() else template_text
    if command in ("append", "prepend"):
        require(content, "content", f"edit_note {command}")
    if command in ("append_to_section", "prepend_to_section", "replace_section"):
        heading = require(args.heading, "heading", f"edit_note {command}")
        section_ops = {
            "append_to_section": ops.append_to_section,
            "prepend_to_section": ops.prepend_to_section,
            "replace_section": ops.replace_section,
        }
        return section_ops[command](before, heading, content)
    if command == "create":  # with no content: an empty note, as Obsidian's "New note" makes
        return ops.append_to_note("", content) if content.strip() else ""
    if command == "append":
        return ops.append_to_note(before, content)
    if command == "prepend":
        return ops.prepend_to_note(before, content)
    if command == "set_property":
        return fm.set_property(before, require(args.property, "property", "edit_note set_property"), args.value)
    if command == "remove_property":
        return fm.remove_property(before, require(args.property, "property", "edit_note remove_property"))
    if command == "add_tag":
        return fm.add_tag(before, _text_value(args, "edit_note add_tag"))
    if command == "remove_tag":
        return fm.remove_tag(before, _text_value(args, "edit_note remove_tag"))
    if command == "add_alias":
        return fm.add_alias(before, _text_value(args, "edit_note add_alias"))
    if command == "add_task":
        return ops.add_task(before, content, heading=args.heading)
    if command == "complete_task":
        return ops.mark_task_done(before, line=args.line, task=content).text
    return ops.toggle_task(before, line=args.line, task=content).text


def plan_edit_note(context: ProposeContext, args: EditNoteArgs) -> list[PlannedEdit]:
    """Plan one edit_note call: the note's text now and after the edit."""
    if args.command == "add_task" and args.content.strip():  # a task the Tasks plugin counts (its global filter)
        args = args.model_copy(update={"content": with_global_filter(args.content, context.root, context.tasks)})
    if args.command != "create":
        if args.template.strip():
            raise InvalidRequest("'template' is only for command create")
        path = existing_note_path(context, args.path)
        before = context.read(path)
        if before is None:
            raise NotFound(f"{path!r} does not exist; use command create to make a new note")
        if args.command in ("toggle_task", "complete_task"):
            return [_plan_task_change(context, path, before, args)]
        return [PlannedEdit(args.command.replace("_", " "), path, before, compute_after(before, args))]
    path = new_note_path(context, args.path)
    if context.read(path) is not None:
        raise InvalidRequest(f"{path!r} already exists; use append or another command to change it")
    template = render_named_template(context, args.template, note_path=path) if args.template.strip() else None
    after = compute_after("", args, template_text=template)
    return [PlannedEdit("create" if after else "create (empty note)", path, None, after)]


def _plan_task_change(context: ProposeContext, path: str, before: str, args: EditNoteArgs) -> PlannedEdit:
    # A vault with the Tasks plugin gets what the plugin writes on completion (done date, next occurrence), dated by
    # the user's today; the summary says what the plugin's part left out. A vault without its settings, what its
    # tasks show the plugin did (rag/notes/kept_conventions.py).
    settings = tasks_plugin_settings(context.root)
    if settings is None and not has_settings(context.root):
        settings = kept_tasks_plugin_settings(context.tasks())
    plugin = None if settings is None else TasksPlugin(settings, context.today())
    change = ops.toggle_task if args.command == "toggle_task" else ops.mark_task_done
    toggled = change(before, line=args.line, task=args.content, plugin=plugin)
    name = args.command.replace("_", " ")
    operation = f"{name} ({toggled.remark})" if toggled.remark else name
    return PlannedEdit(operation, path, before, toggled.text)


EDIT_NOTE: ProposeTool[EditNoteArgs] = ProposeTool(
    name="edit_note",
    description=(
        "Propose a change to one note: create it, add text, change a section, property, tag, alias or task. "
        "Nothing is written until the user replies yes; read the note first."
    ),
    args=EditNoteArgs,
    planner=plan_edit_note,
)
