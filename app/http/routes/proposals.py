"""Proposals an MCP client made, over HTTP: list them, read one, apply or discard exactly the ones named.

For clients without MCP elicitation, where nobody can be asked inside the client: the user (not the model) applies
the proposals here or with `librarian proposals`. Same auth as the rest of /v1.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from app.http.deps import runtime_of
from app.services.proposal_access import (
    MCP_CONVERSATION,
    apply_chosen,
    discard,
    pending_proposals,
    proposal_json,
    report_json,
    select_pending,
)
from app.wiring import EditServices
from core.errors import NotFound

router = APIRouter()
ProposalId = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class ProposalSelection(BaseModel):
    """The body of POST /v1/proposals/apply and /discard: the proposals, by id."""

    model_config = ConfigDict(extra="forbid")

    ids: list[ProposalId] = Field(min_length=1, max_length=1000, description="Proposal ids (GET /v1/proposals).")


def _edits(request: Request) -> EditServices:
    edits = runtime_of(request).edits
    return edits


@router.get("/v1/proposals")
async def list_proposals(request: Request) -> dict[str, object]:
    """Return the proposals waiting for the user's answer, oldest first, each with its whole-note diff."""
    return {"proposals": [proposal_json(p) for p in pending_proposals(_edits(request), datetime.now(UTC))]}


@router.get("/v1/proposals/{proposal_id}")
async def read_proposal(proposal_id: str, request: Request) -> dict[str, object]:
    """Return one proposal, whatever became of it (pending, applied, discarded, expired, conflict)."""
    proposal = _edits(request).store.get(proposal_id)
    if proposal is None or proposal.conversation_id != MCP_CONVERSATION:
        raise NotFound(f"there is no proposal {proposal_id!r}")
    if proposal.status == "pending" and proposal.is_expired(datetime.now(UTC)):
        return {**proposal_json(proposal), "status": "expired"}
    return proposal_json(proposal)


@router.post("/v1/proposals/apply")
async def apply_proposals(body: ProposalSelection, request: Request) -> dict[str, object]:
    """Apply exactly the proposals named, as one change set; each outcome says what happened to its note."""
    edits = _edits(request)
    now = datetime.now(UTC)
    chosen = select_pending(edits, body.ids, now)
    runner = runtime_of(request).index_runner
    report = await apply_chosen(edits, chosen, now=now, after_write=lambda: runner.run("edit"))
    return report_json(report)


@router.post("/v1/proposals/discard")
async def discard_proposals(body: ProposalSelection, request: Request) -> dict[str, object]:
    """Discard the proposals named (those still pending); nothing is written."""
    return {"discarded": [proposal.id for proposal in discard(_edits(request), body.ids)]}
