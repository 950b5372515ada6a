"""One crew run: the orchestrator walks the team's tasks in order; the model only ever fills in content.

collector -> llm -> actions, each task's result feeding the next. Limits (max writes, LLM calls, wall clock) and
an abort request are enforced here; a failed task ends the run; every write of a run is one change set, so the
run (even aborted or failed part-way) can be undone as a whole.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

from core.errors import AppError
from core.ports import ChatModel, NoteWriter
from core.settings import CrewSettings, VaultSettings, WriteSettings
from core.tracing import OPERATION, Attributes, span
from crews.actions import ActionContext, count_actions, plan_writes
from crews.apply_run import apply_planned
from crews.catalog import Catalog
from crews.collectors import CollectContext, SearchFunction, collect
from crews.control import RunControl
from crews.definitions import ActionsTask, CollectorTask, LlmTask, Team
from crews.guard import check_writes, is_over_half
from crews.llm_task import CallBudget, RunAborted, TokenCount, run_llm_task
from crews.material import render_material
from crews.model import BoundOutput, Material, PlannedWrite
from crews.progress import LATE_ABORT, MODEL_NEEDED, TokenTicker, material_lines
from crews.run_state import RunState, TaskState, new_run, planned_json
from crews.runlog import RunStore
from crews.write_budget import fit_to_writes, writes_left
from edits.changelog import SqliteChangeLog, new_change_set_id
from edits.lock import EditLock

logger = logging.getLogger(__name__)
DEFAULT_CONTEXT_TOKENS = 4096  # what small local servers start with when neither the endpoint nor a setting says
REPLY_TOKENS = 1024  # room kept in the context for the model's answer
PROMPT_TOKENS = 600  # room kept for the agent's prompt and the output contract


class CrewRunError(AppError):
    """A run cannot start or must stop: no model, a read-only vault, nothing the pipeline can use."""


@dataclass(frozen=True, slots=True)
class CrewDeps:
    """What a run needs from the rest of the service (built once by the wiring, shared by every run)."""

    vault: VaultSettings
    writes: WriteSettings
    crews: CrewSettings
    writer: NoteWriter | None  # None: WRITE_BACKEND=none, so only dry runs
    log: SqliteChangeLog | None  # None: a service that only lists crews and runs
    lock: EditLock
    store: RunStore
    collect_only_store: RunStore  # dry runs without a model: their logs stay under DATA_DIR, out of the vault
    clock: Callable[[], datetime]  # local time: "today" is the user's day
    count_tokens: Callable[[str], int]
    chat_model: ChatModel | None = None
    search: SearchFunction | None = None
    context_tokens: Callable[[], Awaitable[int | None]] | None = None  # the endpoint's window, when it says
    after_write: Callable[[], Awaitable[object]] | None = None  # re-index once the run wrote


@dataclass(slots=True)
class _Flow:
    material: Material | None = None
    output: BoundOutput | None = None
    planned: list[PlannedWrite] = field(default_factory=list)


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
    flow = _Flow()
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
                    flow.material = await _collect(task, deps, task_state)
                    if is_collect_only(deps, state):
                        task_state.lines.extend(material_lines(flow.material))
                    if not flow.material.items:
                        _set(task_state, "ok", deps, state, control)
                        task_state.note("nothing to do: the later tasks are skipped")
                        return
                elif isinstance(task, LlmTask):
                    flow.output = await _ask(task, team, catalog, deps, control, state, flow, budget)
                else:
                    await _act(task, team, deps, state, flow)
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


async def _collect(task: CollectorTask, deps: CrewDeps, task_state: TaskState) -> Material:
    now = deps.clock()
    context = CollectContext(vault=deps.vault, today=now.date(), now=now, search=deps.search)
    material = await asyncio.to_thread(collect, task.collector, task.params, context)
    task_state.note(material.summary or f"{len(material.items)} item(s) collected")
    return material


async def _ask(
    task: LlmTask,
    team: Team,
    catalog: Catalog,
    deps: CrewDeps,
    control: RunControl,
    state: RunState,
    flow: _Flow,
    budget: CallBudget,
) -> BoundOutput:
    if flow.material is None:
        raise CrewRunError(f"llm task {task.id!r} has no material")
    task_state = state.task(task.id)
    material, capped = fit_to_writes(task, team.spec, flow.material, writes_left(team.spec, deps.crews, state))
    if capped:
        task_state.note(capped)
    agent = catalog.agent_named(task.agent)
    if agent is None:  # load_catalog refuses such a team: only a catalog built by hand gets here
        raise CrewRunError(f"llm task {task.id!r}: no agent note is named {task.agent!r}")
    window = (await deps.context_tokens() if deps.context_tokens else None) or deps.crews.context_tokens
    window = window or DEFAULT_CONTEXT_TOKENS
    rendered = render_material(
        material, max_tokens=max(256, window - REPLY_TOKENS - PROMPT_TOKENS), count_tokens=deps.count_tokens
    )
    for line in rendered.omitted:
        task_state.note(f"left out to fit the model's context ({window} tokens): {line}")
    base_tokens = state.tokens
    ticker = TokenTicker(control.emit, task.id)

    def on_tokens(count: TokenCount) -> None:
        state.tokens = base_tokens + count.total
        ticker.update(count.reply, state.tokens, is_settled=count.is_settled)

    def save_artifact(name: str, text: str, why: str) -> None:
        where = deps.store.save_artifact(state.id, name, text)
        task_state.note(f"kept the model's reply as {where}: {why}")

    try:
        result = await run_llm_task(
            task,
            agent,
            rendered,
            chat_model=deps.chat_model,  # type: ignore[arg-type]  # checked by the preflight
            budget=budget,
            on_tokens=on_tokens,
            is_aborted=lambda: control.is_aborted,
            save_artifact=save_artifact,
        )
    finally:
        state.llm_calls = budget.used
    state.tokens = base_tokens + result.tokens
    for rejection in result.output.rejected:
        task_state.note(f"rejected {rejection.what}: {rejection.reason}")
    task_state.note(f"{result.calls} call(s), {result.tokens} token(s)")
    return result.output


async def _act(task: ActionsTask, team: Team, deps: CrewDeps, state: RunState, flow: _Flow) -> None:
    if flow.output is None or flow.material is None:
        raise CrewRunError(f"actions task {task.id!r} has no output to apply")
    task_state = state.task(task.id)
    context = ActionContext.for_run(deps.vault, deps.writes, deps.crews, now=deps.clock())
    planned, rejected = await asyncio.to_thread(plan_writes, task, flow.output, flow.material, context=context)
    guard = await check_writes(planned, team=team, context=context, writer=deps.writer, task=task)
    bad = len(rejected) + len(flow.output.rejected) + len(guard.rejected) + len(guard.stale)
    total = max(count_actions(task, flow.output), bad)  # actions already in place count as done, not as bad
    for item in [*rejected, *guard.rejected]:
        task_state.note(f"rejected {item.what}: {item.reason}")
    for item in guard.stale:
        task_state.note(f"skipped {item.what}: {item.reason}")
    if is_over_half(total, bad):
        raise CrewRunError(f"{bad} of {total} actions were rejected or stale; nothing of this task was applied")
    limit = writes_left(team.spec, deps.crews, state)
    if len(guard.accepted) > limit:  # fit_to_writes gave the model no more than this: a last check
        raise CrewRunError(
            f"the task would write {len(guard.accepted)} notes but the run may write {limit} more (max_writes)"
        )
    if not guard.accepted:
        task_state.note("nothing to change")
        return
    if state.dry_run:
        for write in guard.accepted:
            state.planned.append(planned_json(write))
            task_state.note(f"would {write.action} {write.path}: {write.summary}")
        flow.planned.extend(guard.accepted)
        return
    report = await apply_planned(
        guard.accepted,
        run_id=state.id,
        crew=team.name,
        change_set_id=state.change_set_id or new_change_set_id(),
        writer=deps.writer,  # type: ignore[arg-type]  # checked by the preflight
        log=deps.log,  # type: ignore[arg-type]  # checked by the preflight
        lock=deps.lock,
        settings=deps.writes,
        now=deps.clock(),
    )
    for outcome in report.outcomes:
        task_state.note(f"{outcome.status}: {outcome.message}")
        if outcome.status in ("applied", "unverified"):
            state.writes += 1
            state.files.append(outcome.path)
    if any(outcome.status == "conflict" for outcome in report.outcomes):
        task_state.status = "stale"
