"""The three kinds of crew task, one step each: collect material, ask the agent, act on its output."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from crews.collectors import CollectContext, collect
from crews.contract.material import render_material
from crews.definitions import ActionsTask, CollectorTask, LlmTask, Team
from crews.logs.run_state import RunState, TaskState, planned_json
from crews.model import BoundOutput, Material, PlannedWrite
from crews.runs.control import RunControl
from crews.runs.llm_task import CallBudget, TokenCount, run_llm_task
from crews.runs.progress import TokenTicker
from crews.runs.run_deps import CrewDeps, CrewRunError
from crews.runs.write_budget import fit_to_writes, writes_left
from crews.teams.catalog import Catalog
from crews.writes.actions import ActionContext, count_actions, plan_writes
from crews.writes.apply_run import apply_planned
from crews.writes.guard import check_writes, is_over_half
from edits.changelog import new_change_set_id

DEFAULT_CONTEXT_TOKENS = 4096  # what small local servers start with when neither the endpoint nor a setting says
REPLY_TOKENS = 1024  # room kept in the context for the model's answer
PROMPT_TOKENS = 600  # room kept for the agent's prompt and the output contract


@dataclass(slots=True)
class TaskFlow:
    """What the tasks of one run hand on to the next: the material, the model's output, the planned writes."""

    material: Material | None = None
    output: BoundOutput | None = None
    planned: list[PlannedWrite] = field(default_factory=list)


async def run_collector_task(task: CollectorTask, deps: CrewDeps, task_state: TaskState) -> Material:
    """Gather the material of a collector task (in a thread: collectors read files)."""
    now = deps.clock()
    context = CollectContext(vault=deps.vault, today=now.date(), now=now, search=deps.search)
    material = await asyncio.to_thread(collect, task.collector, task.params, context)
    task_state.note(material.summary or f"{len(material.items)} item(s) collected")
    return material


async def run_agent_task(
    task: LlmTask,
    team: Team,
    catalog: Catalog,
    deps: CrewDeps,
    control: RunControl,
    state: RunState,
    flow: TaskFlow,
    budget: CallBudget,
) -> BoundOutput:
    """Have the task's agent turn the material (fitted to the context and the writes left) into bound output."""
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


async def run_actions_task(task: ActionsTask, team: Team, deps: CrewDeps, state: RunState, flow: TaskFlow) -> None:
    """Plan, check and apply (or in a dry run, list) the writes the model's output asks for."""
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
