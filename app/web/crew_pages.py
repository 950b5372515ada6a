"""The Crews pages: the crews (load errors, schedules to enable or disable, runs to start) and each run (live, undo).

A run's page follows it live over server-sent events (`/crews/runs/{id}/events`, the events `/v1` streams) with a
small script; without JavaScript it refreshes itself while the run goes.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response
from sse_starlette.sse import EventSourceResponse

from app.http.deps import runtime_of, server_settings_of
from app.http.routes.crews import catalog_json, crew_service, reload_schedule, run_events, undo_run
from app.web.pages import FormDep, PageRoute, SessionDep, redirect, render
from app.web.session import WebSession, first

router = APIRouter(route_class=PageRoute)
SHOWN_RUNS = 50
CrewName = Annotated[str, Path(min_length=1, max_length=200)]
RunId = Annotated[str, Path(min_length=1, max_length=200)]


def _crews_page(request: Request, session: WebSession, *, notice: str | None = None) -> Response:
    service = crew_service(request)
    catalog = service.catalog()
    listed = catalog_json(catalog, service.schedule_statuses(catalog))
    runs = service.runs(limit=SHOWN_RUNS)
    schedule = runtime_of(request).crew_schedule
    next_runs = {name: schedule.next_run(name) for name in catalog.teams} if schedule is not None else {}
    return render(request, session, "crews.html", catalog=listed, runs=runs, next_runs=next_runs, notice=notice)


def _run_page(request: Request, session: WebSession, run_id: str, *, notice: str | None = None) -> Response:
    service = crew_service(request)
    state = service.get(run_id)
    is_live = not state.is_finished and service.control(run_id) is not None
    return render(request, session, "run.html", run=state, is_live=is_live, notice=notice)


@router.get("/crews")
async def crews_page(request: Request, session: SessionDep) -> Response:
    """List the crews with their schedules, the crew notes that cannot run, and the latest runs."""
    return _crews_page(request, session)


@router.post("/crews/{name}/enable")
async def enable_crew(request: Request, form: FormDep, name: CrewName) -> Response:
    """Approve the crew's schedule as its notes read now (an edit of them pauses it again)."""
    session, _fields = form
    approval = crew_service(request).enable(name)
    reload_schedule(request)
    return _crews_page(request, session, notice=f"The schedule of {approval.team} ({approval.schedule}) is enabled.")


@router.post("/crews/{name}/disable")
async def disable_crew(request: Request, form: FormDep, name: CrewName) -> Response:
    """Withdraw the approval of the crew's schedule."""
    session, _fields = form
    was_enabled = crew_service(request).disable(name)
    reload_schedule(request)
    notice = f"The schedule of {name} is disabled." if was_enabled else f"The schedule of {name} was not enabled."
    return _crews_page(request, session, notice=notice)


@router.post("/crews/{name}/runs")
async def start_run(request: Request, form: FormDep, name: CrewName) -> Response:
    """Start a run (or a dry run) and go to its page, which follows it."""
    _session, fields = form
    state = await crew_service(request).start(name, dry_run=first(fields, "dry_run") == "1", trigger="web")
    return redirect(f"/crews/runs/{state.id}")


@router.get("/crews/runs/{run_id}")
async def run_page(request: Request, session: SessionDep, run_id: RunId) -> Response:
    """Show a run: its status, each task and its log lines, tokens, writes, a dry run's diffs."""
    return _run_page(request, session, run_id)


@router.get("/crews/runs/{run_id}/events", response_model=None)
async def follow_run(request: Request, _session: SessionDep, run_id: RunId) -> EventSourceResponse:
    """Stream the run's progress as server-sent events, as `/v1/crews/runs/{id}/events` does."""
    settings = server_settings_of(request)
    events = run_events(crew_service(request), run_id)
    return EventSourceResponse(events, ping=settings.keepalive_seconds, sep="\n", headers={"Cache-Control": "no-store"})


@router.post("/crews/runs/{run_id}/abort")
async def abort_run(request: Request, form: FormDep, run_id: RunId) -> Response:
    """Ask the run to stop; the page says whether that could still take effect."""
    session, _fields = form
    message = crew_service(request).abort(run_id)
    return _run_page(request, session, run_id, notice=message)


@router.get("/crews/runs/{run_id}/undo")
async def run_undo_plan(request: Request, session: SessionDep, run_id: RunId) -> Response:
    """Show what undoing the run's writes would restore, and the notes edited since that it leaves alone."""
    service = crew_service(request)
    state = service.get(run_id)
    plan = await service.undo(run_id, confirm=False)
    changes = service.deps.log.change_set(plan.change_set_id) if service.deps.log and plan.change_set_id else []
    return render(
        request, session, "undo.html", plan=plan, changes=changes, action=request.url.path, what=f"run {state.id}"
    )


@router.post("/crews/runs/{run_id}/undo")
async def confirm_run_undo(request: Request, form: FormDep, run_id: RunId) -> Response:
    """Undo the run's writes, if the change set confirmed is the run's; notes edited since are kept."""
    session, fields = form
    plan = await undo_run(request, run_id, first(fields, "change_set_id"))
    return render(request, session, "undone.html", plan=plan, what=f"run {run_id}")
