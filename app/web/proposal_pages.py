"""The Proposals page: changes an MCP client (or a crew's dry run there) proposed, each with its diff; apply or discard.

The page is one more way to answer proposals, beside the client's own dialog, `librarian proposals` and
`/v1/proposals`, and it goes the same way: exactly the proposals named by id (each bound to its text and to the
hash of the note it was made against), through `select_pending` and `apply_chosen`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http.deps import runtime_of
from app.http.errors import describe_error
from app.services.proposal_access import apply_chosen, discard, pending_proposals, select_pending
from app.web.pages import FormDep, PageRoute, SessionDep, render
from app.web.session import WebSession
from app.wiring import EditServices
from core.errors import AppError

router = APIRouter(route_class=PageRoute)


def _edits(request: Request) -> EditServices:
    edits = runtime_of(request).edits
    return edits


def _page(
    request: Request, session: WebSession, *, status: int = 200, error: str | None = None, notice: str | None = None
) -> Response:
    edits = _edits(request)
    proposals = pending_proposals(edits, datetime.now(UTC))
    return render(
        request,
        session,
        "proposals.html",
        status=status,
        proposals=proposals,
        is_read_only=edits.writer is None,
        error=error,
        notice=notice,
    )


@router.get("/proposals")
async def proposals_page(request: Request, session: SessionDep) -> Response:
    """List the pending proposals, oldest first, each with its whole-note diff."""
    return _page(request, session)


@router.post("/proposals/apply")
async def apply_proposals(request: Request, form: FormDep) -> Response:
    """Apply exactly the proposals ticked (or the one whose button was pressed), as one change set."""
    session, fields = form
    edits = _edits(request)
    runner = runtime_of(request).index_runner
    now = datetime.now(UTC)
    try:
        chosen = select_pending(edits, fields.get("ids", []), now)
        report = await apply_chosen(edits, chosen, now=now, after_write=lambda: runner.run("edit"))
    except AppError as exc:  # nothing was applied: the list again, with why
        return _page(request, session, status=describe_error(exc)[0], error=exc.message)
    return render(request, session, "applied.html", report=report, chosen=chosen)


@router.post("/proposals/discard")
async def discard_proposals(request: Request, form: FormDep) -> Response:
    """Discard the proposals named (those still pending); nothing is written."""
    session, fields = form
    gone = discard(_edits(request), fields.get("ids", []))
    notice = f"Discarded {len(gone)} proposal(s)." if gone else "None of these proposals was still waiting."
    return _page(request, session, notice=notice)
