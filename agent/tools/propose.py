"""The propose-only write tool: `edit_note` computes a change, stores it as a proposal, and never writes."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from agent.edits.proposals import SqliteProposalStore, new_proposal
from agent.edits.scope import check_size, check_writable
from agent.tools import propose_frontmatter as fm
from agent.tools import propose_ops as ops
from agent.tools.definition import ToolArgs, describe_validation_error, parameters_schema, require
from agent.tools.outcome import ToolOutcome
from agent.tools.registry import parse_arguments
from agent.writers.files import read_exact_text
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
_BACKTICKS = re.compile(r"`{3,}")


class EditNoteArgs(ToolArgs):
    """Arguments of edit_note."""

    command: EditCommand = Field(
        description="create: a new note with content (refused if it exists). append / prepend: content at the "
        "end / start of the note. append_to_section / prepend_to_section / replace_section: content in the "
        "section under heading (replace keeps the heading). set_property / remove_property: frontmatter "
        "property with value. add_tag / remove_tag / add_alias: value is the tag or alias. add_task: content "
        "is the task text, optionally under heading. toggle_task: check or uncheck the task at line (or with "
        "the exact text content)."
    )
    path: str = Field(description="The note's path in the vault, e.g. 'Projects/Garden.md'.")
    content: str = Field("", description="Markdown text to add or to put in place; the task text for tasks.")
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


def compute_after(before: str, args: EditNoteArgs) -> str:
    """Return the note's text after the edit `args` describes (pure: nothing is read or written)."""
    command, content = args.command, args.content
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


def _operation(args: EditNoteArgs) -> str:
    return args.command.replace("_", " ")


def describe_proposal(proposal: ProposedEdit) -> str:
    """Return the text the model reads: the proposal id, the diff, and that only the user can apply it."""
    longest = max((len(run) for run in _BACKTICKS.findall(proposal.diff)), default=2)
    fence = "`" * max(3, longest + 1)  # a fence longer than any in the note, so the diff cannot close it
    return (
        f"Proposed change {proposal.id} (not applied yet) to {proposal.path}:\n"
        f"{fence}diff\n{proposal.diff}{fence}\n"
        "The user must reply yes to apply it. You cannot apply changes yourself and no tool writes: show the "
        "user this diff and the id, ask them to reply yes or no, and do not propose the same change again."
    )


@dataclass(frozen=True, slots=True)
class ProposeTool:
    """A write tool offered to the model; it only proposes."""

    name: str
    description: str
    args: type[EditNoteArgs]

    def spec(self) -> ToolSpec:
        """Return what the model is shown: name, description and parameter schema."""
        return ToolSpec(self.name, self.description, parameters_schema(self.args))

    def parse(self, arguments: Mapping[str, object]) -> EditNoteArgs:
        """Validate the model's arguments, or raise InvalidRequest saying what to send."""
        try:
            return self.args.model_validate(arguments)
        except ValidationError as exc:
            raise InvalidRequest(describe_validation_error(self.name, self.args, exc)) from exc


EDIT_NOTE = ProposeTool(
    name="edit_note",
    description=(
        "Propose a change to one note: create it, add text, change a heading's section, a property, a tag, "
        "an alias or a task. Nothing is written: the change is shown to the user as a diff and applied only "
        "if the user replies yes. Read the note first so headings and lines are right."
    ),
    args=EditNoteArgs,
)
WRITE_TOOLS: tuple[ProposeTool, ...] = (EDIT_NOTE,)


def _note_path(path: str) -> str:
    """Return the path with `.md` added when its file name has no extension (models often leave it out)."""
    cleaned = path.strip()
    name = cleaned.rsplit("/", 1)[-1]
    return cleaned if "." in name or not name else cleaned + ".md"


class ProposalToolbox:
    """Offer the write tools and turn each call into a stored proposal; the vault is only ever read."""

    def __init__(
        self,
        reader_root: Path,
        store: SqliteProposalStore,
        settings: WriteSettings,
        *,
        conversation_id: str,
        clock: Callable[[], datetime],
    ) -> None:
        self._root = reader_root
        self._store = store
        self._settings = settings
        self._conversation_id = conversation_id
        self._clock = clock
        self._tools = {tool.name: tool for tool in WRITE_TOOLS}

    def specs(self) -> list[ToolSpec]:
        """Return every write tool's spec."""
        return [tool.spec() for tool in self._tools.values()]

    def has_tool(self, name: str) -> bool:
        """Return True when `name` is one of the toolbox's tools."""
        return name in self._tools

    def propose(self, args: EditNoteArgs) -> ProposedEdit:
        """Compute the edit, check scope and size, store the proposal and return it (blocking)."""
        path = check_writable(_note_path(args.path), settings=self._settings)
        before = read_exact_text(self._root, path)
        if args.command == "create" and before is not None:
            raise InvalidRequest(f"{path!r} already exists; use append or another command to change it")
        if args.command != "create" and before is None:
            raise NotFound(f"{path!r} does not exist; use command create to make a new note")
        after = compute_after(before or "", args)
        if after == before:
            raise InvalidRequest(f"the edit would not change {path!r}; nothing was proposed")
        check_size(after, settings=self._settings)
        proposal = new_proposal(
            conversation_id=self._conversation_id,
            operation=_operation(args),
            path=path,
            before=before,
            after=after,
            now=self._clock(),
            ttl_minutes=self._settings.proposal_ttl_minutes,
        )
        self._store.add(proposal)
        return proposal

    def run_blocking(self, name: str, arguments_json: str) -> ToolOutcome:
        """Run one tool call in the calling thread; see `run`."""
        tool = self._tools.get(name)
        if tool is None:
            raise InvalidRequest(f"there is no tool '{name}'; the write tools are: {', '.join(self._tools)}")
        proposal = self.propose(tool.parse(parse_arguments(name, arguments_json)))
        return ToolOutcome(describe_proposal(proposal))

    async def run(self, name: str, arguments_json: str) -> ToolOutcome:
        """Run one tool call in a worker thread and return the proposal's id and diff for the model.

        Raises:
            InvalidRequest: unknown tool, bad arguments, a path that may not be written, a note too large.
            NotFound: the note, heading, property, tag or task does not exist.

        """
        return await asyncio.to_thread(self.run_blocking, name, arguments_json)
