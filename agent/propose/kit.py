"""What every propose-only write tool is made of: planned edits, the read-only context they plan in, the tool shape.

A write tool never writes. It plans: it reads the vault through a `ProposeContext` and returns `PlannedEdit`s (the
whole text of each note before and after). `agent.propose.ProposalToolbox` checks scope and size, stores the
plans as proposals and shows them; only the user's approval applies them (`edits.apply`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import ValidationError

from agent.tools.definition import ToolArgs, describe_validation_error, parameters_schema
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from core.chat import ToolSpec
from core.domain import Task
from core.edits import ProposedEdit
from core.errors import InvalidRequest
from core.settings import WriteSettings
from edits.messages.diff_display import MODEL_DIFF_LINES
from edits.messages.entries import described_change
from edits.writers.files import read_exact_text


@dataclass(frozen=True, slots=True)
class PlannedEdit:
    """One note's change as a tool planned it: its whole text before and after (None: absent / deleted).

    `new_path` set means a move, with `after` the text at the new path. `follows_first` marks an edit that only
    makes sense with the first edit of the same plan (a link updated for a moved note): it applies after it.
    """

    operation: str
    path: str
    before: str | None
    after: str | None
    new_path: str | None = None
    follows_first: bool = False


class ProposeContext:
    """The vault as a write tool plans against it: read only, with this turn's earlier proposals laid over it.

    A note proposed for change earlier in the turn reads as its proposed text, so a second edit of the same note
    builds on the first instead of conflicting with it when both are applied.
    """

    def __init__(
        self, reader: VaultReader, settings: WriteSettings, *, root: Path, overlay: Mapping[str, str | None]
    ) -> None:
        self.reader = reader
        self.settings = settings
        self.root = root
        self._overlay = overlay
        self._snapshot: VaultSnapshot | None = None

    def read(self, path: str) -> str | None:
        """Return the note's exact text (as proposed this turn, if it was), or None when it does not exist."""
        if path in self._overlay:
            return self._overlay[path]
        return read_exact_text(self.root, path)

    def snapshot(self) -> VaultSnapshot:
        """Return the vault as parsed now (names, links, daily-note and template settings); cached per call."""
        if self._snapshot is None:
            self._snapshot = self.reader.snapshot()
        return self._snapshot

    def tasks(self) -> Iterator[Task]:
        """Yield every task of the vault, as parsed now."""
        return self.snapshot().tasks()

    def today(self) -> date:
        """Return the user's today."""
        return self.reader.today()


ArgsT = TypeVar("ArgsT", bound=ToolArgs)
Planner = Callable[[ProposeContext, ArgsT], list[PlannedEdit]]


@dataclass(frozen=True, slots=True)
class ProposeTool(Generic[ArgsT]):
    """A write tool offered to the model; it only plans edits, which are stored as proposals."""

    name: str
    description: str
    args: type[ArgsT]
    planner: Planner[ArgsT]
    cues: tuple[str, ...] = ()  # words of a request that call for the tool (agent.tools.cues); empty: always offered

    def spec(self) -> ToolSpec:
        """Return what the model is shown: name, description and parameter schema."""
        return ToolSpec(self.name, self.description, parameters_schema(self.args))

    def plan(self, context: ProposeContext, arguments: Mapping[str, object]) -> list[PlannedEdit]:
        """Validate the model's arguments and plan the edits (blocking), or raise InvalidRequest / NotFound."""
        try:
            parsed = self.args.model_validate(arguments)
        except ValidationError as exc:
            raise InvalidRequest(describe_validation_error(self.name, self.args, exc)) from exc
        return self.planner(context, parsed)


def describe_proposal(proposal: ProposedEdit, *, confirm: bool = True) -> str:
    """Return the text the model reads: the proposal id, the diff, and who applies it.

    With WRITE_CONFIRM=false the gate applies the change right after the reply, so the model must not ask the user
    to say yes.
    """
    change = described_change(proposal, max_lines=MODEL_DIFF_LINES)
    target = f"{proposal.path} -> {proposal.new_path}" if proposal.new_path else proposal.path
    if confirm:
        who = (
            "The user must reply yes to apply it. You cannot apply changes yourself and no tool writes. The diff and "
            "the id are shown to the user below your reply: do not repeat the diff, say in one or two sentences what "
            "you proposed, and do not propose the same change again."
        )
    else:
        who = (
            "This setup applies proposed changes without asking (WRITE_CONFIRM=false): it is applied right after "
            "your reply, and the diff is shown below it. Do not ask the user to confirm; say in one sentence what "
            "you changed, and do not propose the same change again."
        )
    return f"Proposed change {proposal.id} (not applied yet) to {target}:\n{change}\n{who}"
