"""Crews over HTTP: list them (with load errors), start a run, read it, follow it (SSE), abort it, undo it.

`/enable` and `/disable` approve or withdraw a team's schedule (the user's approval: no model-facing tool has them).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette.sse import EventSourceResponse

from app.http.deps import runtime_of, server_settings_of
from app.http.routes.changes import plan_json
from core.edits import UndoPlan
from core.errors import EditConflict, UpstreamUnavailable
from crews.logs.run_state import RunState
from crews.service import CrewService
from crews.teams.catalog import Catalog

router = APIRouter()


class RunRequest(BaseModel):
    """The body of POST /v1/crews/{name}/runs."""

    model_config = ConfigDict(extra="forbid")

    dry_run: bool = Field(False, description="Plan and show the diffs; write nothing.")


class UndoRunConfirmation(BaseModel):
    """The body of POST /v1/crews/runs/{run_id}/undo: the change set GET showed, so nothing else is undone."""

    model_config = ConfigDict(extra="forbid")

    change_set_id: str = Field(min_length=1, max_length=64)


def crew_service(request: Request) -> CrewService:
    """Return the crew service of this app (503 when crews are not available)."""
    service = runtime_of(request).crews
    if service is None:
        raise UpstreamUnavailable("crews", "crews are not available in this service")
    return service


def catalog_json(catalog: Catalog, schedules: Mapping[str, str | None]) -> dict[str, Any]:
    """Return the crews of the vault, runnable ones and the notes that cannot run (with why).

    Each crew lists its `warnings`: the properties of its team and agent notes that loading ignored.

    Args:
        catalog: the crews as loaded.
        schedules: per team, whether its schedule runs (`CrewService.schedule_statuses`).

    """
    crews = [
        {
            "name": team.name,
            "path": team.path,
            "description": team.spec.description,
            "schedule": team.spec.schedule,
            "schedule_status": schedules.get(team.name),
            "write_scope": list(team.spec.write_scope),
            "max_writes": team.spec.max_writes,
            "tasks": [{"id": task.id, "kind": task.kind} for task in team.spec.tasks],
            "warnings": list(team.warnings),
        }
        for team in sorted(catalog.teams.values(), key=lambda t: t.name.casefold())
    ]
    errors = [{"path": error.path, "error": error.message} for error in catalog.errors]
    return {"root": catalog.root, "crews": crews, "agents": sorted(catalog.agents), "errors": errors}


def run_json(state: RunState) -> dict[str, Any]:
    """Return a run as the API shows it (its state.json)."""
    return state.to_json()


@router.get("/v1/crews")
async def list_crews(request: Request) -> dict[str, Any]:
    """Return the crews under the crew root, each team's pipeline, and the crew notes that cannot run."""
    service = crew_service(request)
    catalog = service.catalog()
    return catalog_json(catalog, service.schedule_statuses(catalog))


@router.post("/v1/crews/{name}/enable")
async def enable_schedule(name: str, request: Request) -> dict[str, Any]:
    """Approve the crew's schedule as its notes read now (400: it has none); an edit of them pauses it again."""
    approval = crew_service(request).enable(name)
    reload_schedule(request)
    return {"crew": approval.team, "enabled": approval.to_json()}


@router.post("/v1/crews/{name}/disable")
async def disable_schedule(name: str, request: Request) -> dict[str, Any]:
    """Withdraw the approval of the crew's schedule; `disabled` is false when it was not enabled (404: no such crew)."""
    disabled = crew_service(request).disable(name)
    reload_schedule(request)
    return {"crew": name, "disabled": disabled}


def reload_schedule(request: Request) -> None:
    """Register or drop the crew jobs now (after an enable or disable), not at the schedule's next reload."""
    # At once, not at the next minute's reload: `crew list` right after `crew enable` shows the job registered.
    schedule = runtime_of(request).crew_schedule
    if schedule is not None:
        schedule.reload()


@router.post("/v1/crews/{name}/runs", status_code=202)
async def start_run(name: str, request: Request, body: RunRequest | None = None) -> dict[str, Any]:
    """Start a run of the crew (404: no such crew, 409: one is already going); follow it at .../events."""
    state = await crew_service(request).start(name, dry_run=bool(body and body.dry_run), trigger="api")
    return {"run": run_json(state), "events": f"/v1/crews/runs/{state.id}/events"}


@router.get("/v1/crews/runs")
async def list_runs(
    request: Request, limit: Annotated[int, Query(ge=1, le=1000)] = 50, crew: str | None = None
) -> dict[str, Any]:
    """Return saved runs, newest first (optionally of one crew)."""
    return {"runs": [run_json(state) for state in crew_service(request).runs(limit=limit, crew=crew)]}


@router.get("/v1/crews/runs/{run_id}")
async def read_run(run_id: str, request: Request) -> dict[str, Any]:
    """Return a run's state: status, each task, writes, LLM calls, tokens, planned diffs of a dry run."""
    return run_json(crew_service(request).get(run_id))


@router.get("/v1/crews/runs/{run_id}/events", response_model=None)
async def follow_run(run_id: str, request: Request) -> EventSourceResponse | JSONResponse:
    """Stream a run's progress as server-sent events (task, tokens, run), ending with its outcome."""
    settings = server_settings_of(request)
    return EventSourceResponse(run_events(crew_service(request), run_id), ping=settings.keepalive_seconds, sep="\n")


def run_events(service: CrewService, run_id: str) -> AsyncIterator[dict[str, str]]:
    """Return a run's progress as server-sent events (raises NotFound for an unknown run before any is sent)."""
    state = service.get(run_id)
    control = service.control(run_id)

    async def events() -> AsyncIterator[dict[str, str]]:
        if control is None:  # ended, or run by another process: one event with what its log says
            if state.abort_requested:
                # The CLI that asked for it on Ctrl-C follows again; a run that stopped before it resubscribed must
                # still say it was asked (seen under load in tests/integration/test_crew_abort.py).
                yield {"event": "abort_requested", "data": json.dumps({"run": run_id, "type": "abort_requested"})}
            outcome = {"status": state.status, "error": state.error, "notice": state.notice, "writes": state.writes}
            yield {"event": "run", "data": json.dumps({"type": "run", "run": run_id, **outcome})}
            return
        # What happened before this watcher subscribed (the page it came from may be older): each task as it is now.
        for task in service.get(run_id).tasks:
            now = {"type": "task", "run": run_id, "task": task.id, "status": task.status, "tokens": state.tokens}
            yield {"event": "task", "data": json.dumps(now)}
        async for event in control.events():
            yield {"event": str(event.get("type", "progress")), "data": json.dumps(event)}

    return events()


@router.post("/v1/crews/runs/{run_id}/abort")
async def abort_run(run_id: str, request: Request) -> dict[str, Any]:
    """Ask a run to stop; the message says whether it could still take effect."""
    return {"message": crew_service(request).abort(run_id)}


@router.get("/v1/crews/runs/{run_id}/undo")
async def show_run_undo(run_id: str, request: Request) -> dict[str, Any]:
    """Return what undoing this run would restore; nothing changes until POST confirms it."""
    service = crew_service(request)
    state = service.get(run_id)
    plan = await service.undo(run_id, confirm=False)
    return {"run": run_id, "crew": state.crew, "started": state.started, **plan_json(plan)}


@router.post("/v1/crews/runs/{run_id}/undo")
async def confirm_run_undo(run_id: str, body: UndoRunConfirmation, request: Request) -> dict[str, Any]:
    """Undo this run's writes (409 when the change set named is not this run's); notes edited since are kept."""
    plan = await undo_run(request, run_id, body.change_set_id)
    return {"run": run_id, **plan_json(plan)}


async def undo_run(request: Request, run_id: str, change_set_id: str) -> UndoPlan:
    """Undo a run's writes if `change_set_id` (the set its plan showed) is the run's, then re-index.

    Raises:
        EditConflict: the change set named is not this run's.

    """
    service = crew_service(request)
    state = service.get(run_id)
    if state.change_set_id != change_set_id:
        raise EditConflict(f"run {run_id} is change set {state.change_set_id}, not {change_set_id}")
    plan = await service.undo(run_id, confirm=True)
    if plan.has_writes:
        await runtime_of(request).index_runner.run("undo")
    return plan
