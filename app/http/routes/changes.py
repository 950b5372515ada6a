"""The change log and undo over HTTP: list applied changes, see what undo restores, then confirm it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from app.http.deps import runtime_of
from app.wiring import EditServices
from core.edits import AppliedChange, UndoPlan
from core.errors import UpstreamUnavailable
from edits.undo import plan_undo, undo_last

router = APIRouter()


class UndoConfirmation(BaseModel):
    """The body of POST /v1/undo: the change set GET /v1/undo showed, so a newer change is never undone blindly."""

    model_config = ConfigDict(extra="forbid")

    change_set_id: str = Field(min_length=1, max_length=64)


def _edits(request: Request) -> EditServices:
    edits = runtime_of(request).edits
    return edits


def _change_json(change: AppliedChange) -> dict[str, object]:
    return {
        "id": change.id,
        "change_set_id": change.change_set_id,
        "at": change.at.isoformat(),
        "conversation_id": change.conversation_id,
        "proposal_id": change.proposal_id,
        "operation": change.operation,
        "kind": change.kind,  # "delete": new_path is where the note went in .trash/
        "path": change.path,
        "new_path": change.new_path,
        "hash_before": change.hash_before,
        "hash_after": change.hash_after,
        "status": change.status,
        "undoes": change.undoes,
    }


def plan_json(plan: UndoPlan) -> dict[str, object]:
    """Return an undo plan as the API shows it: the change set, whether it was applied, its steps and warnings."""
    return {
        "change_set_id": plan.change_set_id,
        "applied": plan.is_applied,
        # False: no step would write (only notes edited since, or notes already as before); nothing to confirm
        "has_writes": plan.has_writes,
        "steps": [{"path": s.path, "action": s.action, "message": s.message} for s in plan.steps],
        "warnings": [s.message for s in plan.warnings],
    }


@router.get("/v1/changes")
async def list_changes(request: Request, limit: Annotated[int, Query(ge=1, le=1000)] = 50) -> dict[str, object]:
    """Return the newest applied changes (undo entries included), newest first."""
    return {"changes": [_change_json(change) for change in _edits(request).log.list(limit)]}


@router.get("/v1/undo")
async def show_undo_plan(request: Request) -> dict[str, object]:
    """Return what undoing the last change set would restore; nothing changes until POST /v1/undo confirms it.

    With `has_writes` false there is nothing to confirm: every note was edited since, or already reads as before.
    """
    edits = _edits(request)
    if edits.writer is None:
        raise UpstreamUnavailable("the vault writer", "WRITE_BACKEND=none: the vault is read-only")
    return plan_json(await plan_undo(writer=edits.writer, log=edits.log, now=datetime.now(UTC), lock=edits.lock))


@router.post("/v1/undo")
async def confirm_undo(body: UndoConfirmation, request: Request) -> dict[str, object]:
    """Undo the last change set if it is still the one named (409 otherwise); notes edited since are left alone.

    `applied` is false when every step was left alone for an edit made since: the change set stays undoable.
    """
    edits = _edits(request)
    if edits.writer is None:
        raise UpstreamUnavailable("the vault writer", "WRITE_BACKEND=none: the vault is read-only")
    async with edits.lock.hold():
        plan = await undo_last(
            writer=edits.writer, log=edits.log, now=datetime.now(UTC), confirm=True, expected=body.change_set_id
        )
    if plan.has_writes:
        runner = runtime_of(request).index_runner
        await runner.run("undo")
    return plan_json(plan)
