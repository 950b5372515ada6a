"""One crew run: the orchestrator walks the team's tasks in order; the model only ever fills in content.

collector -> llm -> actions, each task's result feeding the next. Limits (max writes, LLM calls, wall clock) and
an abort request are enforced here; a failed task ends the run; every write of a run is one change set, so the
run (even aborted or failed part-way) can be undone as a whole.
"""

from __future__ import annotations

import asyncio
import logging

from core.errors import AppError
from core.tracing import OPERATION, Attributes, span
from crews.definitions import CollectorTask, LlmTask, Team
from crews.logs.run_state import RunState, TaskState, new_run
from crews.runs.control import RunControl
from crews.runs.llm_task import CallBudget, RunAborted
from crews.runs.progress import LATE_ABORT, MODEL_NEEDED, material_lines
from crews.runs.run_deps import CrewDeps, CrewRunError
from crews.runs.task_steps import TaskFlow, run_actions_task, run_agent_task, run_collector_task
from crews.teams.catalog import Catalog
from edits.changelog import new_change_set_id

logger = logging.getLogger(__name__)


async def run_team(team: Team, catalog: Catalog, deps: CrewDeps, *, control: RunControl, state: RunState) -> RunState:
    """Run `team` to its end (ok, failed or aborted) and return its final state, saved at every step.

    A dry run without a model runs the collector, lists what it gathered and says why it stops; it writes nothing in
    the vault, so its log goes to `deps.collect_only_store`.
    """
    _save(deps, state)
    control.listen(lambda event: _record_abort(event, deps, state))
    control.emit({"type": "run", "status": "running", "crew": team.name})
    attributes: Attributes = {
        OPERATION: "invoke_workflow",
        "librarian.crew.run_id": state.id,
        "librarian.crew.trigger": state.trigger,
        "librarian.crew.dry_run": state.dry_run,
    }
    try:
        with span(f"invoke_workflow {team.name}", attributes):
            await asyncio.wait_for(_run_tasks(team, catalog, deps, control, state), team.spec.timeout_minutes * 60)
    except TimeoutError:
        _end(state, "aborted", f"the run took longer than {team.spec.timeout_minutes:g} minutes and was stopped")
    except RunAborted:
        _end(state, "aborted", "aborted on request")
    except AppError as exc:
        _end(state, "failed", exc.message)
    else:
        _end(state, "ok", None)
    if control.close() and state.status == "ok":  # asked after the last checkpoint: the work was already done
        state.notice = LATE_ABORT
    state.finished = deps.clock().isoformat(timespec="seconds")
    _close_tasks(state)
    _save(deps, state)
    outcome = {"status": state.status, "error": state.error, "notice": state.notice, "writes": state.writes}
    control.finish({"type": "run", **outcome})
    if state.writes and deps.after_write is not None:
        await deps.after_write()
    return state


def start_state(team: Team, deps: CrewDeps, *, trigger: str, dry_run: bool) -> RunState:
    """Return the state of a new run (its id is known before it starts, for locks and replies)."""
    state = new_run(team, trigger=trigger, dry_run=dry_run, now=deps.clock())
    if not dry_run:
        state.change_set_id = new_change_set_id()
    return state


def is_collect_only(deps: CrewDeps, state: RunState) -> bool:
    """Return True for a dry run without a model: only its collector runs, and its log stays out of the vault."""
    return state.dry_run and deps.chat_model is None


def _save(deps: CrewDeps, state: RunState) -> None:
    (deps.collect_only_store if is_collect_only(deps, state) else deps.store).save(state)


def _record_abort(event: dict[str, object], deps: CrewDeps, state: RunState) -> None:
    if event.get("type") == "abort_requested" and not state.abort_requested:
        state.abort_requested = True
        _save(deps, state)


def _close_tasks(state: RunState) -> None:
    """Mark what the run never got to as skipped, and a task still running as failed, saying what stopped it.

    A task that fails says so itself; one still running was cut off from outside (the watchdog cancels it), and
    `skipped` would hide that it ran, and for how long.
    """
    for task in state.tasks:
        if task.status == "waiting":
            task.status = "skipped"
        elif task.status == "running":
            task.status, task.finished = "failed", state.finished
            task.note(f"stopped: {state.error or 'the run ended while it ran'}")


def _end(state: RunState, status: str, error: str | None) -> None:
    state.status = status  # type: ignore[assignment]
    state.error = error


async def _run_tasks(team: Team, catalog: Catalog, deps: CrewDeps, control: RunControl, state: RunState) -> None:
    _preflight(deps, dry_run=state.dry_run)
    budget = CallBudget(team.spec.llm_calls)
    flow = TaskFlow()
    for task in team.spec.tasks:
        if control.is_aborted:
            raise RunAborted
        task_state = state.task(task.id)
        if deps.chat_model is None and not isinstance(task, CollectorTask):  # a dry run: the preflight let it be
            task_state.note("not run: it needs a language model")
            raise CrewRunError(MODEL_NEEDED)
        _set(task_state, "running", deps, state, control)
        try:
            with span(f"crew_task {task.id}", {"librarian.crew.task_kind": task.kind}):
                if isinstance(task, CollectorTask):
                    flow.material = await run_collector_task(task, deps, task_state)
                    if is_collect_only(deps, state):
                        task_state.lines.extend(material_lines(flow.material))
                    if not flow.material.items:
                        _set(task_state, "ok", deps, state, control)
                        task_state.note("nothing to do: the later tasks are skipped")
                        return
                elif isinstance(task, LlmTask):
                    flow.output = await run_agent_task(task, team, catalog, deps, control, state, flow, budget)
                else:
                    await run_actions_task(task, team, deps, state, flow)
        except (AppError, RunAborted) as exc:
            task_state.status = "failed"
            task_state.note(getattr(exc, "message", "aborted on request"))
            raise
        _set(task_state, "ok" if task_state.status == "running" else task_state.status, deps, state, control)


def _preflight(deps: CrewDeps, *, dry_run: bool) -> None:
    if deps.chat_model is None and not dry_run:
        raise CrewRunError("no language model is configured or reachable (set LLM_BASE_URL); nothing was run")
    if not dry_run and (deps.writer is None or deps.log is None):
        raise CrewRunError("WRITE_BACKEND=none: the vault is read-only, so only dry runs are possible")


def _set(task: TaskState, status: str, deps: CrewDeps, state: RunState, control: RunControl) -> None:
    now = deps.clock().isoformat(timespec="seconds")
    if status == "running":
        task.started = now
    else:
        task.finished = now
    task.status = status  # type: ignore[assignment]
    _save(deps, state)
    control.emit({"type": "task", "task": task.id, "status": status, "tokens": state.tokens})
