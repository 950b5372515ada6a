"""Changes from an MCP client: the chat's write tools propose, and only the user's accept applies or undoes.

Each MCP session gets the chat's `ProposalToolbox` (the same tools, checks and limits: WRITABLE_FOLDERS, the fixed
denylist, MAX_NOTE_WRITE_BYTES, MAX_WRITES_PER_TURN), whose "turn" lasts until one of its proposals is decided.
`apply_proposals` and `undo_last_change` ask the user through an elicitation that shows exactly what changes
(`app.mcp.confirmation`); without one, the reply says how the user applies them outside the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext

from agent.propose import WRITE_TOOLS, ProposalToolbox
from agent.tools.outcome import ToolOutcome
from app.mcp.backend import McpBackend
from app.mcp.confirmation import ask_user
from app.services.proposal_access import MCP_CONVERSATION, apply_chosen, discard, pending_proposals, select_pending
from core.chat import ToolSpec
from core.edits import ApplyReport, ProposedEdit, UndoPlan
from edits.messages.diff_display import MODEL_DIFF_LINES
from edits.messages.entries import code, described_change, proposal_entries
from edits.messages.reports import undo_headline
from edits.undo import plan_undo, undo_last

ToolResult = types.CallToolResult | types.InputRequiredResult
WRITE_TOOL_NAMES = frozenset(tool.name for tool in WRITE_TOOLS)


def text_result(text: str, *, is_error: bool = False) -> types.CallToolResult:
    """Return a tool result the model reads."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)


def describe_for_mcp(proposal: ProposedEdit) -> str:
    """Return what the model reads about a proposal: its id, the diff, and that only the user can apply it."""
    change = described_change(proposal, max_lines=MODEL_DIFF_LINES)
    target = f"{proposal.path} -> {proposal.new_path}" if proposal.new_path else proposal.path
    return (
        f"Proposed change {proposal.id} (not applied yet) to {target}:\n{change}\n"
        f'Nothing is written yet. To have it applied, call apply_proposals with ids ["{proposal.id}"] (with the '
        "other proposals the user wants): the user is shown the exact diff and decides; you cannot decide for them."
    )


class McpWrites:
    """Propose, apply, discard and undo for the MCP sessions of one service."""

    def __init__(self, backend: McpBackend) -> None:
        self._backend = backend
        self._toolboxes: dict[str, ProposalToolbox] = {}
        # A toolbox lays each proposal over the vault for the next; two calls at once must not interleave there.
        self._proposing = asyncio.Lock()

    def specs(self) -> list[ToolSpec]:
        """Return the write tools' specs, exactly as the chat agent is offered them."""
        return self._new_toolbox().specs()

    async def propose(self, session: str, name: str, arguments_json: str) -> ToolOutcome:
        """Run a write tool for the session: it stores proposals and returns their ids and diffs, never writes."""
        async with self._proposing:
            return await self._toolbox(session).run(name, arguments_json)

    def _new_toolbox(self) -> ProposalToolbox:
        edits = self._backend.edits
        return ProposalToolbox(
            self._backend.reader,
            edits.store,
            edits.settings,
            conversation_id=MCP_CONVERSATION,
            clock=self._backend.clock,
            describe=describe_for_mcp,
        )

    def _toolbox(self, session: str) -> ProposalToolbox:
        # A toolbox lays its proposals over the vault; once one of them is decided (or expired), that overlay no
        # longer describes what will be applied, so the session starts a new "turn".
        waiting = {proposal.id for proposal in pending_proposals(self._backend.edits, self._backend.clock())}
        for key, toolbox in list(self._toolboxes.items()):
            if any(proposal.id not in waiting for proposal in toolbox.proposals):
                del self._toolboxes[key]
        return self._toolboxes.setdefault(session, self._new_toolbox())

    async def apply(self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> ToolResult:
        """Show the proposals named to the user; apply exactly them on accept, discard them on decline or cancel."""
        backend = self._backend
        ids = list(dict.fromkeys(_ids(params)))
        chosen = select_pending(backend.edits, ids, backend.clock())
        question = apply_question(chosen)
        answer = await ask_user(
            ctx, question, input_responses=params.input_responses, request_state=params.request_state
        )
        if isinstance(answer, types.InputRequiredResult):
            return answer
        if answer == "unsupported":
            return text_result(self._apply_elsewhere(chosen))
        if answer != "accept":
            gone = discard(backend.edits, [proposal.id for proposal in chosen])
            listed = ", ".join(code(proposal.id) for proposal in gone) or "none (they were decided meanwhile)"
            return text_result(f"The user did not accept ({answer}): discarded {listed}; nothing was written.")
        report = await apply_chosen(backend.edits, chosen, now=backend.clock(), after_write=self._reindex)
        return text_result(report_text(report))

    def discard(self, params: types.CallToolRequestParams) -> types.CallToolResult:
        """Discard the proposals named; nothing is written."""
        gone = discard(self._backend.edits, _ids(params))
        if not gone:
            return text_result("None of these proposals was still waiting; nothing changed.")
        return text_result(f"Discarded {', '.join(code(p.id) for p in gone)}; nothing was written.")

    async def undo(self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> ToolResult:
        """Show what undoing the last change set restores; undo it only on the user's accept."""
        edits, now = self._backend.edits, self._backend.clock()
        if edits.writer is None:
            return text_result("The vault is read-only (WRITE_BACKEND=none); nothing can be undone.", is_error=True)
        plan = await plan_undo(writer=edits.writer, log=edits.log, now=now, lock=edits.lock)
        if plan.change_set_id is None:
            return text_result("There is no applied change to undo.")
        if not plan.has_writes:
            return text_result(plan_text(plan))
        question = f"{plan_text(plan)}\n\nAccept undoes this change set; Decline or Cancel keeps it."
        answer = await ask_user(
            ctx, question, input_responses=params.input_responses, request_state=params.request_state
        )
        if isinstance(answer, types.InputRequiredResult):
            return answer
        if answer == "unsupported":
            return text_result(
                "This client cannot ask the user to confirm (no MCP elicitation), so nothing was undone. The user "
                "can run `librarian undo` in a terminal (it shows what it restores and asks), or GET then POST "
                "/v1/undo. Do not claim it was undone."
            )
        if answer != "accept":
            return text_result(f"The user did not accept ({answer}); nothing was undone.")
        async with edits.lock.hold():
            done = await undo_last(
                writer=edits.writer, log=edits.log, now=now, confirm=True, expected=plan.change_set_id
            )
        await self._reindex()
        return text_result(plan_text(done))

    async def _reindex(self) -> None:
        await self._backend.runner.run("edit")

    def _apply_elsewhere(self, chosen: Sequence[ProposedEdit]) -> str:
        ids = " ".join(proposal.id for proposal in chosen)
        minutes = round(self._backend.edits.settings.proposal_ttl_minutes)
        return (
            "This client cannot ask the user to confirm (it does not support MCP elicitation), so nothing was "
            f"applied. The proposals stay open for up to {minutes} min. Tell the user they can apply them outside "
            f"this chat: in a terminal with `librarian proposals apply {ids}` (it shows the diffs and asks), or "
            f'with POST /v1/proposals/apply {{"ids": [...]}} on the service (the same API key as /v1). Do not '
            "claim they were applied."
        )


def _ids(params: types.CallToolRequestParams) -> list[str]:
    # The arguments were validated against ProposalIds before this runs (app.mcp.server).
    ids = (params.arguments or {}).get("ids", [])
    return [str(proposal_id) for proposal_id in ids] if isinstance(ids, list) else []


def apply_question(chosen: Sequence[ProposedEdit]) -> str:
    """Return what the user is asked: every proposal's operation, path and diff, composed by code."""
    count = len(chosen)
    title = "Apply this change to your vault?" if count == 1 else f"Apply these {count} changes to your vault?"
    entries = "\n\n".join(proposal_entries(chosen))
    return (
        f"{title} The model proposed it; nothing is written unless you accept.\n\n{entries}\n\n"
        f"Accept applies exactly {'this change' if count == 1 else 'these changes'} (undoable); Decline or Cancel "
        "discards them."
    )


def report_text(report: ApplyReport) -> str:
    """Return what happened to each proposal, and how the change set is undone."""
    lines = []
    if report.applied:
        lines.append(f"Applied {len(report.applied)} change(s):")
        lines.extend(f"- ✓ {outcome.message}" for outcome in report.applied)
    others = [outcome for outcome in report.outcomes if outcome not in report.applied]
    if others:
        lines.append("Not applied:" if report.applied else "Nothing was applied:")
        lines.extend(f"- ✗ {outcome.path}: {outcome.message}" for outcome in others)
    if report.written:
        lines.append(f"Change set {report.change_set_id}; undo_last_change reverts it (after the user accepts).")
    return "\n".join(lines)


def plan_text(plan: UndoPlan) -> str:
    """Return an undo plan: its headline and, per note, what undo does (or did), warnings marked."""
    lines = [undo_headline(plan, code(plan.change_set_id or ""))]
    lines.extend(f"{'⚠' if s.action == 'conflict' else '-'} {code(s.path)}: {s.message}" for s in plan.steps)
    return "\n".join(lines)
