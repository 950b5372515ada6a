"""The Changes page: the change log by change set, and the undo of one set, its plan shown before it is confirmed.

Undo goes through the edit layer's `undo_change_set` (as a crew run's undo does): a note edited since the set is
left as it is and flagged in the plan, notes the set created go to `.trash/`, and the confirmation names the
set that was shown.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response

from app.http.deps import runtime_of
from app.web.pages import FormDep, PageRoute, SessionDep, render
from app.wiring import EditServices
from core.edits import UndoPlan
from core.errors import UpstreamUnavailable
from edits.undo import undo_change_set

router = APIRouter(route_class=PageRoute)
SHOWN_SETS = 100
ChangeSetId = Annotated[str, Path(min_length=1, max_length=64)]


def _edits(request: Request) -> EditServices:
    edits = runtime_of(request).edits
    return edits


async def undo_set(request: Request, change_set_id: str, *, confirm: bool) -> UndoPlan:
    """Plan, or with `confirm` carry out (under the edit lock, then re-index), the undo of one change set."""
    edits = _edits(request)
    writer = edits.writer
    if writer is None:
        raise UpstreamUnavailable("the vault writer", "WRITE_BACKEND=none: the vault is read-only")
    now = datetime.now(UTC)
    if not confirm:
        return await undo_change_set(change_set_id, writer=writer, log=edits.log, now=now, confirm=False)
    async with edits.lock.hold():
        plan = await undo_change_set(change_set_id, writer=writer, log=edits.log, now=now, confirm=True)
    if plan.has_writes:
        runner = runtime_of(request).index_runner
        await runner.run("undo")
    return plan


@router.get("/changes")
async def changes_page(request: Request, session: SessionDep) -> Response:
    """List the newest change sets (undos included), newest first, each with its notes and state."""
    sets = _edits(request).log.change_sets(SHOWN_SETS, include_undos=True)
    return render(request, session, "changes.html", sets=sets)


@router.get("/changes/{change_set_id}/undo")
async def undo_plan_page(request: Request, session: SessionDep, change_set_id: ChangeSetId) -> Response:
    """Show what undoing the set would restore, and the notes edited since that it leaves alone."""
    plan = await undo_set(request, change_set_id, confirm=False)
    changes = _edits(request).log.change_set(change_set_id)
    return render(request, session, "undo.html", plan=plan, changes=changes, action=request.url.path, what="change set")


@router.post("/changes/{change_set_id}/undo")
async def confirm_undo(request: Request, form: FormDep, change_set_id: ChangeSetId) -> Response:
    """Undo the set shown; notes edited since are kept as they are."""
    session, _fields = form
    plan = await undo_set(request, change_set_id, confirm=True)
    return render(request, session, "undone.html", plan=plan, what="change set")
