"""Proposals made outside chat (by MCP tools, by a crew's dry run there): list, show, apply or discard them.

Chat decides its proposals through the edit gate, from the user's next message. An MCP client's proposals wait
under one conversation, `MCP_CONVERSATION`, until the user accepts them in the client's confirmation dialog, in
`librarian proposals` (which asks on the terminal) or over `/v1/proposals`. Every way applies exactly the proposals
named, through the shared edit path (`edits.apply`): scope, staleness hash, snapshot, change log, then a re-index.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

from app.wiring import EditServices
from core.edits import ApplyReport, ProposedEdit
from core.errors import AppError, InvalidRequest, NotFound, UpstreamUnavailable
from edits.apply import apply_edits
from edits.messages.entries import change_summary, code
from edits.messages.reports import incomplete_selection

logger = logging.getLogger(__name__)

MCP_CONVERSATION = "mcp"
AfterWrite = Callable[[], Awaitable[object]]


def pending_proposals(edits: EditServices, now: datetime) -> list[ProposedEdit]:
    """Return the proposals waiting for the user's answer, oldest first."""
    return edits.store.pending(MCP_CONVERSATION, now)


def select_pending(edits: EditServices, ids: Sequence[str], now: datetime) -> list[ProposedEdit]:
    """Return the pending proposals named by `ids`, in the order they were made (the order they apply in).

    Raises:
        NotFound: an id names no pending proposal (applied, discarded, expired, or never made).
        InvalidRequest: no id, or the selection leaves out a change one of them builds on (or a move's link updates).

    """
    if not ids:
        raise InvalidRequest("name the proposals by id; nothing was applied")
    pending = pending_proposals(edits, now)
    known = {proposal.id for proposal in pending}
    missing = [proposal_id for proposal_id in dict.fromkeys(ids) if proposal_id not in known]
    if missing:
        waiting = ", ".join(code(proposal.id) for proposal in pending) or "none"
        raise NotFound(
            f"no pending proposal {', '.join(code(m) for m in missing)} (applied, discarded, expired or never made); "
            f"nothing was applied. Proposals waiting: {waiting}"
        )
    chosen = [proposal for proposal in pending if proposal.id in set(ids)]
    problem = incomplete_selection(chosen, pending, yes="ids")
    if problem:
        raise InvalidRequest(f"nothing was applied: {problem}")
    return chosen


async def apply_chosen(
    edits: EditServices, chosen: Sequence[ProposedEdit], *, now: datetime, after_write: AfterWrite | None
) -> ApplyReport:
    """Apply exactly `chosen` as one change set (under the edit lock), then re-index when something was written.

    Raises:
        UpstreamUnavailable: the vault is read-only (WRITE_BACKEND=none) or its writer cannot write now.
        InvalidRequest: more proposals than MAX_WRITES_PER_TURN (nothing is written).

    """
    if edits.writer is None:
        raise UpstreamUnavailable("the vault writer", "WRITE_BACKEND=none: the vault is read-only")
    async with edits.lock.hold():
        report = await apply_edits(
            chosen, writer=edits.writer, log=edits.log, settings=edits.settings, now=now, store=edits.store
        )
    if report.written and after_write is not None:
        try:
            await after_write()
        except AppError as exc:  # the change is written; the scheduled re-index picks it up later
            logger.warning("re-indexing after applying proposals failed: %s", exc.message)
    return report


def discard(edits: EditServices, ids: Sequence[str]) -> list[ProposedEdit]:
    """Discard these proposals if still pending (MCP ones only); return those that were."""
    mine = [pid for pid in ids if (found := edits.store.get(pid)) and found.conversation_id == MCP_CONVERSATION]
    return edits.store.discard(mine)


def proposal_json(proposal: ProposedEdit) -> dict[str, object]:
    """Return a proposal as the API shows it: what it does, where, its whole-note diff and when it expires.

    `summary` says what the diff cannot (a move's paths and whether its text changes, an empty note), else None.
    """
    return {
        "id": proposal.id,
        "operation": proposal.operation,
        "kind": proposal.kind,
        "path": proposal.path,
        "new_path": proposal.new_path,
        "depends_on": proposal.depends_on,
        "diff": proposal.diff,
        "summary": change_summary(proposal),
        "created_at": proposal.created_at.isoformat(),
        "expires_at": proposal.expires_at.isoformat(),
        "status": proposal.status,
    }


def report_json(report: ApplyReport) -> dict[str, object]:
    """Return an apply report: the change set (undoable as a whole) and each proposal's outcome."""
    return {
        "change_set_id": report.change_set_id if report.written else None,
        "outcomes": [
            {"proposal_id": o.proposal_id, "path": o.path, "status": o.status, "message": o.message}
            for o in report.outcomes
        ],
    }
