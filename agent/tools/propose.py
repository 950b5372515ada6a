"""The propose-only write tools: `edit_note` and its kin plan a change, the toolbox stores it as a proposal."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from agent.edits.proposals import SqliteProposalStore, new_proposal
from agent.edits.scope import check_size, check_writable
from agent.tools import propose_frontmatter as fm
from agent.tools import propose_ops as ops
from agent.tools.definition import ToolArgs, require
from agent.tools.outcome import ToolOutcome
from agent.tools.propose_create import CREATE_TOOLS
from agent.tools.propose_kit import PlannedEdit, ProposeContext, ProposeTool, describe_proposal
from agent.tools.propose_move import MOVE_TOOLS
from agent.tools.propose_paths import existing_note_path, new_note_path
from agent.tools.propose_templates import render_named_template
from agent.tools.reader import VaultReader
from agent.tools.registry import parse_arguments
from core.chat import ToolSpec
from core.edits import ProposedEdit
from core.errors import InvalidRequest, NotFound
from core.settings import WriteSettings

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
]


class EditNoteArgs(ToolArgs):
    """Arguments of edit_note."""

    command: EditCommand = Field(
        description="create: a new note with content and/or from template (refused if it exists). append / "
        "prepend: content at the end / start of the note. append_to_section / prepend_to_section / "
        "replace_section: content in the section under heading (replace keeps the heading). set_property / "
        "remove_property: frontmatter property with value. add_tag / remove_tag / add_alias: value is the tag or "
        "alias. add_task: content is the task text, optionally under heading. toggle_task: check or uncheck the "
        "task at line (or with the exact text content)."
    )
    path: str = Field(
        description="The note: its path ('Projects/Garden.md'), or for an existing note its name, alias or "
        "[[link]]. For create, a name without a folder goes to the vault's folder for new notes."
    )
    content: str = Field(
        "",
        description="Markdown text to add or to put in place; the task text for tasks. For create with a "
        "template: text added after the template's.",
    )
    template: str = Field(
        "",
        description="For create: the template to start from, by name (see the templates tool), e.g. "
        "'Meeting Template'. {{title}}, {{date}} and {{time}} are filled in; Templater <% %> code is kept as written.",
    )
    heading: str = Field("", description="The heading for section commands and add_task, e.g. 'Ideas'.")
    property: str = Field("", description="The frontmatter property name for set_property and remove_property.")
    value: str | int | float | bool | list[str] | None = Field(
        None, description="The property value (text, number, true/false or a list), or the tag or alias."
    )
    line: int = Field(0, ge=0, description="For toggle_task: the task's 1-based line number.")


def _text_value(args: EditNoteArgs, usage: str) -> str:
    if not isinstance(args.value, str):
        raise InvalidRequest(f"{usage} needs 'value' as text")
    return require(args.value, "value", usage)


def compute_after(before: str, args: EditNoteArgs, *, template_text: str | None = None) -> str:
    """Return the note's text after the edit `args` describes (pure: nothing is read or written).

    Args:
        before: the note's text now ("" for create).
        args: the edit.
        template_text: for create, the filled-in template the note starts with (None: no template).

    """
    command, content = args.command, args.content
    if command == "create" and template_text is not None:
        return ops.append_to_note(template_text, content) if content.strip() else template_text
    if command in ("create", "append", "prepend"):
        require(content, "content", f"edit_note {command}")
    if command in ("append_to_section", "prepend_to_section", "replace_section"):
        heading = require(args.heading, "heading", f"edit_note {command}")
        section_ops = {
            "append_to_section": ops.append_to_section,
            "prepend_to_section": ops.prepend_to_section,
            "replace_section": ops.replace_section,
        }
        return section_ops[command](before, heading, content)
    if command == "create":
        return ops.append_to_note("", content)
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
    return ops.toggle_task(before, line=args.line, task=content)


def plan_edit_note(context: ProposeContext, args: EditNoteArgs) -> list[PlannedEdit]:
    """Plan one edit_note call: the note's text now and after the edit."""
    if args.command != "create":
        if args.template.strip():
            raise InvalidRequest("'template' is only for command create")
        path = existing_note_path(context, args.path)
        before = context.read(path)
        if before is None:
            raise NotFound(f"{path!r} does not exist; use command create to make a new note")
        return [PlannedEdit(args.command.replace("_", " "), path, before, compute_after(before, args))]
    path = new_note_path(context, args.path)
    if context.read(path) is not None:
        raise InvalidRequest(f"{path!r} already exists; use append or another command to change it")
    template = render_named_template(context, args.template, note_path=path) if args.template.strip() else None
    return [PlannedEdit("create", path, None, compute_after("", args, template_text=template))]


EDIT_NOTE: ProposeTool[EditNoteArgs] = ProposeTool(
    name="edit_note",
    description=(
        "Propose a change to one note: create it (optionally from a template), add text, change a heading's "
        "section, a property, a tag, an alias or a task. Nothing is written: the change is shown to the user as a "
        "diff and applied only if the user replies yes. Read the note first so headings and lines are right."
    ),
    args=EditNoteArgs,
    planner=plan_edit_note,
)
# edit_note first: small models lean towards the first tools they are shown, and it covers the most requests.
WRITE_TOOLS: tuple[ProposeTool[Any], ...] = (EDIT_NOTE, *CREATE_TOOLS, *MOVE_TOOLS)


class ProposalToolbox:
    """One turn's write tools: turn each call into stored proposals; the vault is only ever read.

    Edits proposed earlier in the turn are laid over the vault, so a second edit of a note builds on the first
    (and depends on it); at most MAX_WRITES_PER_TURN proposals are made per turn.
    """

    def __init__(
        self,
        reader: VaultReader,
        store: SqliteProposalStore,
        settings: WriteSettings,
        *,
        conversation_id: str,
        clock: Callable[[], datetime],
        tools: Sequence[ProposeTool[Any]] = WRITE_TOOLS,
    ) -> None:
        self._reader = reader
        self._store = store
        self._settings = settings
        self._conversation_id = conversation_id
        self._clock = clock
        self._tools = {tool.name: tool for tool in tools}
        self._overlay: dict[str, str | None] = {}
        self._last_on_path: dict[str, str] = {}
        self._calls: dict[tuple[str, str], list[ProposedEdit]] = {}  # a repeated call returns its first proposals
        self.proposals: list[ProposedEdit] = []  # made this turn, in order

    def specs(self) -> list[ToolSpec]:
        """Return every write tool's spec."""
        return [tool.spec() for tool in self._tools.values()]

    def has_tool(self, name: str) -> bool:
        """Return True when `name` is one of the toolbox's tools."""
        return name in self._tools

    def run_blocking(self, name: str, arguments_json: str) -> ToolOutcome:
        """Run one tool call in the calling thread; see `run`."""
        tool = self._tools.get(name)
        if tool is None:
            raise InvalidRequest(f"there is no tool '{name}'; the write tools are: {', '.join(self._tools)}")
        arguments = parse_arguments(name, arguments_json)
        call_key = (name, json.dumps(arguments, sort_keys=True))
        if call_key in self._calls:  # small models repeat calls; the same call must not propose the edit twice
            return ToolOutcome("\n\n".join(describe_proposal(p) for p in self._calls[call_key]))
        context = ProposeContext(self._reader, self._settings, root=self._reader.root, overlay=self._overlay)
        planned = tool.plan(context, arguments)
        if not planned:
            raise InvalidRequest(f"{name} found nothing to change; nothing was proposed")
        for edit in planned:
            self._check(edit)
        limit = self._settings.max_writes_per_turn
        if len(self.proposals) + len(planned) > limit:
            raise InvalidRequest(
                f"that would make {len(self.proposals) + len(planned)} changes this turn, but at most {limit} may be "
                "proposed per turn (MAX_WRITES_PER_TURN); let the user approve these first, then propose the rest"
            )
        made = [self._store_plan(edit, first=planned[0]) for edit in planned]
        self._calls[call_key] = made
        return ToolOutcome("\n\n".join(describe_proposal(p) for p in made))

    async def run(self, name: str, arguments_json: str) -> ToolOutcome:
        """Run one tool call in a worker thread and return the proposals' ids and diffs for the model.

        Raises:
            InvalidRequest: unknown tool, bad arguments, a path that may not be written, a note too large, an edit
                that changes nothing, more proposals than allowed per turn.
            NotFound: the note, heading, property, tag or task does not exist.

        """
        return await asyncio.to_thread(self.run_blocking, name, arguments_json)

    def _check(self, edit: PlannedEdit) -> None:
        # Scope is checked here for every tool, whatever its planner did; apply checks it again.
        for path in (edit.path, edit.new_path):
            if path is not None and check_writable(path, settings=self._settings) != path:
                raise InvalidRequest(f"{path!r} is not a normalised vault path")
        if edit.after is not None:
            check_size(edit.after, settings=self._settings)
        if edit.new_path is None and edit.after == edit.before:
            raise InvalidRequest(f"the edit would not change {edit.path!r}; nothing was proposed")

    def _store_plan(self, edit: PlannedEdit, *, first: PlannedEdit) -> ProposedEdit:
        depends_on = self._last_on_path.get(edit.path)
        if edit.follows_first and edit is not first:
            depends_on = self._last_on_path.get(first.new_path or first.path)
        proposal = new_proposal(
            conversation_id=self._conversation_id,
            operation=edit.operation,
            path=edit.path,
            before=edit.before,
            after=edit.after,
            now=self._clock(),
            ttl_minutes=self._settings.proposal_ttl_minutes,
            new_path=edit.new_path,
            depends_on=depends_on,
        )
        self._store.add(proposal)
        self.proposals.append(proposal)
        if edit.new_path is not None:
            self._overlay[edit.path] = None
            self._overlay[edit.new_path] = edit.after
            self._last_on_path[edit.new_path] = proposal.id
        else:
            self._overlay[edit.path] = edit.after
        self._last_on_path[edit.path] = proposal.id
        return proposal
