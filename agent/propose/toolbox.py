"""The toolbox of propose-only write tools: it turns each tool call into stored proposals and never writes."""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from agent.propose.base_item import ADD_BASE_ITEM
from agent.propose.daily import EDIT_DAILY_NOTE
from agent.propose.edit_note import EDIT_NOTE
from agent.propose.kit import PlannedEdit, ProposeContext, ProposeTool, describe_proposal
from agent.propose.move import MOVE_TOOLS
from agent.propose.paths import refuse_unicode_twin
from agent.tools.cues import cued_specs
from agent.tools.outcome import ToolOutcome
from agent.tools.reader import VaultReader
from agent.tools.registry import parse_arguments, run_traced
from core.chat import ToolSpec
from core.edits import ProposedEdit
from core.errors import AlreadyDone, InvalidRequest, TooManyWrites
from core.settings import WriteSettings
from edits.proposals import SqliteProposalStore, new_proposal
from edits.scope import check_size, check_writable
from rag.answer.secrets import REDACTED, count_masks, redact_secrets

# The write tools that make notes: a day's daily note (created when missing) and a base's new item.
CREATE_TOOLS: tuple[ProposeTool[Any], ...] = (EDIT_DAILY_NOTE, ADD_BASE_ITEM)
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
        describe: Callable[[ProposedEdit], str] | None = None,
    ) -> None:
        self._reader = reader
        # What the model reads about each proposal: chat's gate shows the diff, an MCP client's user confirms it.
        self._describe = describe or functools.partial(describe_proposal, confirm=settings.confirm)
        self._store = store
        self._settings = settings
        self._conversation_id = conversation_id
        self._clock = clock
        self._tools = {tool.name: tool for tool in tools}
        self._overlay: dict[str, str | None] = {}
        self._last_on_path: dict[str, str] = {}
        self._calls: dict[tuple[str, str], list[ProposedEdit]] = {}  # a repeated call returns its first proposals
        self.proposals: list[ProposedEdit] = []  # made this turn, in order

    def specs(self, message: str | None = None) -> list[ToolSpec]:
        """Return the specs of the write tools `message` calls for (None: all); built once per set of tools."""
        tools = tuple(self._tools.values())
        return cued_specs(tools, _specs(tools), message)

    @property
    def reader(self) -> VaultReader:
        """Return the reader the tools plan against."""
        return self._reader

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
            return self._outcome(self._calls[call_key])
        context = ProposeContext(self._reader, self._settings, root=self._reader.root, overlay=self._overlay)
        planned = tool.plan(context, arguments)
        if not planned:
            raise AlreadyDone(f"the note is already as asked ({name} would change nothing)")
        for edit in planned:
            self._check(edit)
            # Every tool that creates a note (create, daily note, base item, move target) is held to one rule.
            if edit.before is None and edit.after is not None:
                refuse_unicode_twin(context.snapshot(), edit.path)
            if edit.new_path is not None and not same_name(edit.new_path, edit.path):  # a respelling is allowed
                refuse_unicode_twin(context.snapshot(), edit.new_path)
        limit = self._settings.max_writes_per_turn
        if len(self.proposals) + len(planned) > limit:
            raise TooManyWrites(
                f"that would make {len(self.proposals) + len(planned)} changes this turn, but at most {limit} may be "
                "proposed per turn (MAX_WRITES_PER_TURN); let the user approve these first, then propose the rest"
            )
        made = [self._store_plan(edit, first=planned[0]) for edit in planned]
        self._calls[call_key] = made
        return self._outcome(made)

    def _outcome(self, proposals: list[ProposedEdit]) -> ToolOutcome:
        text = "\n\n".join(self._describe(p) for p in proposals)
        # The diff's context lines are note text too: credentials in them are masked for the model.
        return ToolOutcome(redact_secrets(text) if self._reader.redacts_secrets else text)

    async def run(self, name: str, arguments_json: str) -> ToolOutcome:
        """Run one tool call in a worker thread and return the proposals' ids and diffs for the model.

        Raises:
            InvalidRequest: unknown tool, bad arguments, a path that may not be written, a note too large, an edit
                that changes nothing, more proposals than allowed per turn.
            NotFound: the note, heading, property, tag or task does not exist.

        """
        return await run_traced(name, arguments_json, self.run_blocking)

    def _check(self, edit: PlannedEdit) -> None:
        # Scope is checked here for every tool, whatever its planner did; apply checks it again.
        for path in (edit.path, edit.new_path):
            if path is not None and check_writable(path, settings=self._settings) != path:
                raise InvalidRequest(f"{path!r} is not a normalised vault path")
        if edit.after is not None:
            check_size(edit.after, settings=self._settings)
        if edit.new_path is None and edit.after == edit.before:
            raise AlreadyDone(f"the note is already as asked (the edit would not change {edit.path!r})")
        if edit.after is not None and count_masks(edit.after) > count_masks(edit.before or ""):
            # The model saw a credential as its mask; writing the mask back would lose the credential.
            raise InvalidRequest(
                f"the new text of {edit.path!r} holds {REDACTED!r}, which is how credentials in notes are shown to "
                "you, not their value; leave the lines holding it out of the change (edit a smaller part of the note)"
            )

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


def same_name(first: str, second: str) -> bool:
    """Return True when two paths differ only in Unicode form (a note renamed to its other spelling)."""
    return unicodedata.normalize("NFC", first) == unicodedata.normalize("NFC", second)


@functools.cache
def _specs(tools: tuple[ProposeTool[Any], ...]) -> tuple[ToolSpec, ...]:
    # Building JSON schemas takes milliseconds per tool; each turn makes a new toolbox, so they are cached here.
    return tuple(tool.spec() for tool in tools)
