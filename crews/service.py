"""Crews as every front uses them: list, start (one run of a team at a time), watch, abort, undo, recover.

The CLI, the HTTP API, chat and the scheduler all go through `CrewService`, so a run is a run wherever it was
started: the same locks, logs, limits and undo.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from pathlib import Path

from core.edits import UndoPlan
from core.errors import AppError, EditConflict, NotFound
from crews.definitions import Team
from crews.logs.run_retention import prune_after_run
from crews.logs.run_state import RunState, interrupted_error
from crews.logs.runlog import RunStore
from crews.runs.control import Event, RunControl
from crews.runs.progress import LATE_ABORT
from crews.runs.run_deps import CrewDeps
from crews.runs.runner import run_team, start_state
from crews.runs.team_locks import TeamLocks
from crews.teams.approvals import APPROVALS_FILE, Approval, ApprovalStore
from crews.teams.catalog import Catalog, load_catalog
from edits.undo import undo_change_set

logger = logging.getLogger(__name__)
ABORT_REQUESTED = "abort requested: the run stops at its next step (between tasks, or inside the model's reply)"


class CrewService:
    """Start and follow crew runs of one vault; at most one run per team at a time (across processes)."""

    def __init__(
        self,
        deps: CrewDeps,
        *,
        locks_dir: Path,
        collectors: Collection[str],
        approvals: ApprovalStore | None = None,
    ) -> None:
        self._deps = deps
        self._locks = TeamLocks(locks_dir)
        self._collectors = collectors
        self._active: dict[str, tuple[RunControl, asyncio.Task[RunState]]] = {}
        # The enabled schedules (crews.teams.approvals); by default beside the team locks, under DATA_DIR/crews/.
        self._approvals = approvals or ApprovalStore(locks_dir.parent / APPROVALS_FILE)

    @property
    def deps(self) -> CrewDeps:
        """Return what runs are built from."""
        return self._deps

    def catalog(self) -> Catalog:
        """Read the crew notes now (a few small files): edits in Obsidian count at once, without a restart."""
        return load_catalog(
            self._deps.vault.path,
            self._deps.crews.root,
            collectors=self._collectors,
            writes=self._deps.writes,
            today=self._deps.clock().date(),
        )

    def team(self, name: str) -> tuple[Team, Catalog]:
        """Return the runnable team of this name, or raise NotFound naming the crews there are (or why not)."""
        catalog = self.catalog()
        team = catalog.team(name)
        if team is not None:
            return team, catalog
        broken = catalog.error_named(name)
        if broken is not None:
            raise NotFound(f"the crew {name!r} cannot run: {broken.message} ({broken.path})")
        raise NotFound(_no_such_crew(name, catalog))

    async def start(
        self, name: str, *, dry_run: bool, trigger: str, on_event: Callable[[Event], None] | None = None
    ) -> RunState:
        """Start a run of team `name` in the background and return its first state (its id is in it).

        Raises:
            NotFound: no such runnable team.
            CrewBusy: a run of that team is going (in this process or another).
            ScheduleNotEnabled: `trigger` "schedule", and the team's schedule is not enabled or paused.

        """
        team, catalog = self.team(name)
        if trigger == "schedule":  # the very definition this run uses must be the one the user enabled
            self._approvals.check(team, catalog)
        state = start_state(team, self._deps, trigger=trigger, dry_run=dry_run)
        control = RunControl(state.id, abort_file=self._locks.abort_path(state.id))
        if on_event is not None:
            control.listen(on_event)
        hold = self._locks.hold(team.name, state.id)
        hold.__enter__()  # held until the run's task ends, wherever that task is awaited from

        async def execute() -> RunState:
            try:
                final = await run_team(team, catalog, self._deps, control=control, state=state)
                # Still under the team's lock, so no run of this crew starts (in any process) while its logs go.
                stores, keep = self._stores(), self._deps.crews.run_logs_keep
                await asyncio.to_thread(prune_after_run, final, stores, keep=keep, log=self._deps.log)
                return final
            finally:
                hold.__exit__(None, None, None)
                self._active.pop(state.id, None)

        task = asyncio.create_task(execute(), name=f"crew-run-{state.id}")
        self._active[state.id] = (control, task)
        return state

    def enable(self, name: str) -> Approval:
        """Approve team `name`'s schedule as its notes read now; any later edit of them pauses it again."""
        team, catalog = self.team(name)
        return self._approvals.enable(team, catalog, now=self._deps.clock())

    def disable(self, name: str) -> bool:
        """Withdraw the approval of team `name`'s schedule; return False when it was not enabled.

        Raises:
            NotFound: no approval and no crew note of that name (a crew that cannot run still counts).

        """
        if self._approvals.disable(name):
            return True
        catalog = self.catalog()
        if catalog.team(name) is None and catalog.error_named(name) is None:
            raise NotFound(_no_such_crew(name, catalog))
        return False

    def schedule_statuses(self, catalog: Catalog) -> dict[str, str | None]:
        """Return, per team, whether its schedule runs ("enabled", "not enabled", "paused: ..."; None: none)."""
        return {name: self._approvals.status(team, catalog) for name, team in catalog.teams.items()}

    async def run(
        self, name: str, *, dry_run: bool, trigger: str, on_event: Callable[[Event], None] | None = None
    ) -> RunState:
        """Run team `name` and wait for its end; return the final state."""
        state = await self.start(name, dry_run=dry_run, trigger=trigger, on_event=on_event)
        return await self.wait(state.id)

    async def wait(self, run_id: str) -> RunState:
        """Wait for an active run of this process to end; return its final (or saved) state."""
        active = self._active.get(run_id)
        if active is not None:
            return await asyncio.shield(active[1])
        state = self._load(run_id)
        if state is None:
            raise NotFound(f"there is no run {run_id!r}")
        return state

    def control(self, run_id: str) -> RunControl | None:
        """Return the control of a run going in this process, or None."""
        active = self._active.get(run_id)
        return active[0] if active else None

    def runs(self, *, limit: int = 50, crew: str | None = None) -> list[RunState]:
        """Return saved runs, newest first: the vault's run logs and the dry runs without a model (under DATA_DIR)."""
        found = [state for store in self._stores() for state in store.list(limit=limit, crew=crew)]
        return sorted(found, key=lambda state: state.id, reverse=True)[:limit]  # run ids sort by start time

    def get(self, run_id: str) -> RunState:
        """Return a run's saved state, or raise NotFound."""
        state = self._load(run_id)
        if state is None:
            raise NotFound(f"there is no run {run_id!r} (`librarian crew runs` lists them)")
        return state

    def abort(self, run_id: str) -> str:
        """Ask a run to stop, whichever process runs it (no DATA_DIR needed); say honestly whether it can still bite.

        A run of another process (`librarian crew run`) is asked through its abort-request file, which the run
        looks at between tasks and inside the model's reply.
        """
        control = self.control(run_id)
        if control is not None:
            return ABORT_REQUESTED if control.request_abort() else LATE_ABORT
        state = self.get(run_id)
        if state.is_finished:
            return f"the run had already ended ({state.status}) before the abort: nothing was aborted"
        if not self._is_going_elsewhere(state):
            return "the run is not going: the process running it ended (the next crew command marks it interrupted)"
        request = self._locks.abort_path(run_id)
        request.parent.mkdir(parents=True, exist_ok=True)
        request.touch()
        if not self._is_going_elsewhere(state) or self.get(run_id).is_finished:  # it ended without looking
            request.unlink(missing_ok=True)  # (its lock is held until it re-indexed what it wrote)
            return LATE_ABORT
        return ABORT_REQUESTED

    async def undo(self, run_id: str, *, confirm: bool) -> UndoPlan:
        """Plan, or with `confirm` carry out, the undo of one run's writes (its change set); record it in the run.

        Raises:
            EditConflict: the run was undone already (here, or its change set by `librarian undo`).

        """
        state = self.get(run_id)
        if state.dry_run or not state.change_set_id or not state.writes:
            return UndoPlan(change_set_id=None, steps=())
        if self._deps.writer is None or self._deps.log is None:
            raise AppError("WRITE_BACKEND=none: the vault is read-only, so nothing can be undone")
        if state.undone:
            raise EditConflict(f"run {run_id} was already undone at {state.undone}; nothing was changed")
        changes = self._deps.log.change_set(state.change_set_id)
        if changes and all(change.status == "undone" for change in changes):
            # Undone by `librarian undo`: the run's record says so from now on, a plan's too (the vault is untouched).
            self._record_undone(state)
            raise EditConflict(
                f"run {run_id} was already undone (its change set {state.change_set_id}); nothing was changed"
            )
        async with contextlib.AsyncExitStack() as stack:
            if confirm:
                await stack.enter_async_context(self._deps.lock.hold())
            plan = await undo_change_set(
                state.change_set_id,
                writer=self._deps.writer,
                log=self._deps.log,
                now=datetime.now(UTC),
                confirm=confirm,
            )
        if plan.is_applied:
            self._record_undone(state)
        return plan

    def _record_undone(self, state: RunState) -> None:
        if not state.undone:
            state.undone = self._deps.clock().isoformat(timespec="seconds")
            self._deps.store.save(state)

    def recover(self) -> list[RunState]:
        """Mark runs left `running` by a process that died as interrupted (their team lock is free); return them."""
        recovered = []
        saved = [(store, state) for store in self._stores() for state in store.list(limit=1000)]
        for store, state in saved:
            if state.status != "running" or self._locks.is_held(state.crew):
                continue
            state.status = "interrupted"
            state.error = interrupted_error(state.writes)
            state.finished = state.finished or self._deps.clock().isoformat(timespec="seconds")
            for task in state.tasks:
                if task.status in ("running", "waiting"):
                    task.status = "skipped" if task.status == "waiting" else "failed"
            store.save(state)
            logger.warning("crew run %s (%s) was interrupted: %s", state.id, state.crew, state.error)
            recovered.append(state)
        self._sweep_abort_requests()
        return recovered

    def _sweep_abort_requests(self) -> None:
        """Remove abort requests that came as their run was ending: nobody will look at them any more."""
        for request in self._locks.abort_requests():
            saved = self._load(request.stem)
            if request.stem not in self._active and (saved is None or saved.is_finished):
                request.unlink(missing_ok=True)

    async def aclose(self) -> None:
        """Abort runs still going and wait for them (their partial writes stay undoable)."""
        for control, _task in list(self._active.values()):
            control.request_abort()
        for _control, task in list(self._active.values()):
            with contextlib.suppress(Exception):
                await task

    def _stores(self) -> tuple[RunStore, RunStore]:
        return self._deps.store, self._deps.collect_only_store

    def _load(self, run_id: str) -> RunState | None:
        return self._deps.store.load(run_id) or self._deps.collect_only_store.load(run_id)

    def _is_going_elsewhere(self, state: RunState) -> bool:
        """Return True when another process holds the team's lock for this very run."""
        return self._locks.is_held_by(state.crew, state.id)


def _no_such_crew(name: str, catalog: Catalog) -> str:
    known = ", ".join(sorted(catalog.teams)) or "none (run `librarian crew install-examples`)"
    return f"there is no crew named {name!r}; the crews are: {known}"
