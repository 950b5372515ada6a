"""The index runner and its scheduler over a copy of sample_vault: one run at a time, failures kept, clean stop."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.wiring import Services
from core.errors import ResourceBusy
from core.settings import Settings
from sync.index_runner import IndexRunner
from sync.reindex import ProgressCallback, Reindexer
from sync.reindex_worker import IndexGuard
from sync.report import Progress, ReindexReport
from sync.scheduler import JOB_ID, start_scheduler, stop_scheduler

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
WAIT_S = 10.0


class TickingClock:
    """A clock that moves one second each time it is read."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self) -> datetime:
        self.reads += 1
        return T0 + timedelta(seconds=self.reads)


class ObservedReindexer:
    """The real reindexer, watched: counts runs, can fail its first run or hold it open until released."""

    def __init__(
        self,
        inner: Reindexer,
        *,
        fail_first: Exception | None = None,
        hold_first: bool = False,
        hold_at_first_commit: bool = False,
    ) -> None:
        self.inner = inner
        self.fail_first = fail_first
        self.hold_first = hold_first
        self.hold_at_first_commit = hold_at_first_commit
        self.held = threading.Event()  # set while the first run waits for `release`
        self.release = threading.Event()
        self.calls = 0
        self.finished = 0
        self._changed = threading.Condition()

    def run_once(self, on_progress: ProgressCallback | None = None) -> ReindexReport:
        with self._changed:
            self.calls += 1
            first = self.calls == 1
        try:
            if first and self.fail_first:
                raise self.fail_first
            callback = self._holding(on_progress) if first and self.hold_at_first_commit else on_progress
            report = self.inner.run_once(callback)
            if first and self.hold_first:
                self._hold()
            return report
        finally:
            with self._changed:
                self.finished += 1
                self._changed.notify_all()

    def wait_for_runs(self, count: int) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.finished >= count, WAIT_S)

    def _hold(self) -> None:
        self.held.set()
        self.release.wait(WAIT_S)

    def _holding(self, on_progress: ProgressCallback | None) -> ProgressCallback:
        def forward(progress: Progress) -> None:
            if progress.phase == "index" and progress.notes_done > 0 and not self.held.is_set():
                self._hold()
            if on_progress:
                on_progress(progress)

        return forward


def make_runner(
    services: Services,
    job: ObservedReindexer | Reindexer | None = None,
    *,
    guard: IndexGuard | None = None,
    retry_delays: tuple[float, ...] = (3600.0,),  # no retry fires within a test unless it asks for one
) -> IndexRunner:
    return IndexRunner(
        job or services.reindexer,
        watermarks=services.watermarks,
        store=services.store,
        docstore=services.docstore,
        clock=TickingClock(),
        guard=guard,
        retry_delays=retry_delays,
    )


def vault_notes(vault: Path) -> list[str]:
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if ".trash" not in p.parts)


def test_run_indexes_the_vault_and_status_reports_it(services: Services, vault: Path) -> None:
    runner = make_runner(services)

    async def scenario() -> None:
        report = await runner.run("start")
        assert report is not None
        assert sorted(report.added) == vault_notes(vault)
        status = await runner.status()
        assert (status.running, status.rerun_pending, status.progress) == (False, False, None)
        assert status.notes == len(vault_notes(vault))
        assert status.chunks == services.store.count() > status.notes
        assert (status.runs_completed, status.runs_failed, status.last_error) == (1, 0, None)
        assert (status.last_reason, status.last_started_at, status.last_finished_at) == (
            "start",
            T0 + timedelta(seconds=1),
            T0 + timedelta(seconds=2),
        )
        assert status.last_report is not None
        assert (status.last_report["added"], status.last_report["notes_total"]) == (len(vault_notes(vault)),) * 2
        assert status.last_report["started_at"] == report.started_at.isoformat()
        assert (status.file_errors, status.interrupted) == ((), False)
        assert status.to_json()["last_started_at"] == "2026-03-01T09:00:01+00:00"
        assert runner.last_report is report

    asyncio.run(scenario())


def test_status_lists_files_that_could_not_be_indexed(services: Services, vault: Path) -> None:
    (vault / "Huge.md").write_text("word " * 500_000, encoding="utf-8")
    runner = make_runner(services)

    async def scenario() -> None:
        await runner.run("start")
        status = await runner.status()
        assert [error.path for error in status.file_errors] == ["Huge.md"]
        assert "MAX_NOTE_BYTES" in status.file_errors[0].reason
        assert status.to_json()["file_errors"] == [{"path": "Huge.md", "error": status.file_errors[0].reason}]
        assert status.last_error is None  # one bad file does not fail the run

    asyncio.run(scenario())


def test_triggers_during_a_run_coalesce_into_one_more_run(services: Services, vault: Path) -> None:
    job = ObservedReindexer(services.reindexer, hold_first=True)
    runner = make_runner(services, job)

    async def scenario() -> None:
        first = asyncio.create_task(runner.run("start"))
        assert await asyncio.to_thread(job.held.wait, WAIT_S)
        # The first run has scanned already: only a run after it can see this note.
        (vault / "Inbox" / "Late arrival.md").write_text("# Late\n\nA quokkaphone memo.\n", encoding="utf-8")
        folded = await asyncio.gather(*(runner.run("watch") for _ in range(5)))
        assert folded == [None] * 5
        during = await runner.status()
        assert (during.running, during.rerun_pending) == (True, True)
        job.release.set()
        report = await first
        assert job.calls == 2
        assert report is not None and report.added == ["Inbox/Late arrival.md"]
        after = await runner.status()
        assert (after.running, after.rerun_pending, after.runs_completed, after.last_reason) == (
            False,
            False,
            2,
            "watch",
        )

    asyncio.run(scenario())


def test_failed_run_is_recorded_and_the_next_run_works(
    services: Services, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    job = ObservedReindexer(services.reindexer, fail_first=RuntimeError("disk on fire"))
    runner = make_runner(services, job)

    async def scenario() -> None:
        assert await runner.run("schedule") is None
        failed = await runner.status()
        assert (failed.running, failed.last_error, failed.runs_failed, failed.runs_completed) == (
            False,
            "RuntimeError: disk on fire",
            1,
            0,
        )
        assert failed.notes == 0
        report = await runner.run("schedule")
        assert report is not None and sorted(report.added) == vault_notes(vault)
        recovered = await runner.status()
        assert (recovered.last_error, recovered.runs_failed, recovered.runs_completed) == (None, 1, 1)

    asyncio.run(scenario())
    assert "disk on fire" in caplog.text


def test_run_whose_guard_refuses_fails_cleanly_and_the_next_run_succeeds(services: Services) -> None:
    busy = threading.Event()

    @contextlib.contextmanager
    def guard() -> Iterator[None]:
        if busy.is_set():
            raise ResourceBusy("DATA_DIR", "in use by another process")
        yield

    runner = make_runner(services, guard=guard)

    async def scenario() -> None:
        busy.set()
        assert await runner.run("schedule") is None
        status = await runner.status()
        assert status.last_error is not None and "in use by another process" in status.last_error
        busy.clear()
        assert await runner.run("schedule") is not None
        assert (await runner.status()).last_error is None

    asyncio.run(scenario())


def test_aclose_stops_a_run_at_its_next_commit_and_the_next_run_repairs(services: Services, vault: Path) -> None:
    job = ObservedReindexer(services.reindexer, hold_at_first_commit=True)
    runner = make_runner(services, job)

    async def scenario() -> None:
        first = asyncio.create_task(runner.run("start"))
        assert await asyncio.to_thread(job.held.wait, WAIT_S)
        closing = asyncio.create_task(runner.aclose())
        await asyncio.sleep(0)  # let aclose raise the stop flag before the run goes on
        job.release.set()
        assert await first is None
        await closing
        stopped = await runner.status()
        assert (stopped.running, stopped.interrupted, stopped.last_error) == (False, True, None)
        assert 0 < stopped.notes < len(vault_notes(vault))
        assert await runner.run("watch") is None  # closed
        assert job.calls == 1

        restarted = make_runner(services)
        assert await restarted.run("start") is not None
        healed = await restarted.status()
        assert (healed.interrupted, healed.notes) == (False, len(vault_notes(vault)))

    asyncio.run(scenario())


def test_scheduler_job_is_one_coalesced_instance_on_the_interval_and_runs_at_start(services: Services) -> None:
    job = ObservedReindexer(services.reindexer)
    runner = make_runner(services, job)
    settings = Settings(_env_file=None, sync_interval_minutes=60, watch=False).sync

    async def scenario() -> None:
        scheduler = start_scheduler(runner, settings)
        try:
            scheduled = scheduler.get_job(JOB_ID)
            assert (scheduled.max_instances, scheduled.coalesce, scheduled.misfire_grace_time) == (1, True, None)
            assert scheduled.trigger.interval == timedelta(minutes=60)
            assert await asyncio.to_thread(job.wait_for_runs, 1)
        finally:
            await stop_scheduler(scheduler)
        assert not scheduler.running
        await runner.aclose()
        status = await runner.status()
        assert (status.runs_completed, status.last_reason, job.calls) == (1, "schedule", 1)
        assert status.notes > 0

    asyncio.run(scenario())


def test_scheduler_runs_again_every_interval(services: Services) -> None:
    job = ObservedReindexer(services.reindexer)
    runner = make_runner(services, job)
    settings = Settings(_env_file=None, sync_interval_minutes=0.002, watch=False).sync  # 120 ms

    async def scenario() -> None:
        scheduler = start_scheduler(runner, settings, run_at_start=False)
        try:
            assert await asyncio.to_thread(job.wait_for_runs, 3)
        finally:
            await stop_scheduler(scheduler)
        await runner.aclose()

    asyncio.run(scenario())


def test_stopping_the_scheduler_mid_run_lets_the_run_finish(services: Services) -> None:
    job = ObservedReindexer(services.reindexer, hold_first=True)
    runner = make_runner(services, job)
    settings = Settings(_env_file=None, sync_interval_minutes=60, watch=False).sync

    async def scenario() -> None:
        scheduler = start_scheduler(runner, settings)
        assert await asyncio.to_thread(job.held.wait, WAIT_S)
        await stop_scheduler(scheduler)  # cancels the job's task, not the run in the worker thread
        assert runner.is_running
        job.release.set()
        await runner.aclose()
        status = await runner.status()
        assert (status.running, status.runs_completed, status.last_error, status.interrupted) == (
            False,
            1,
            None,
            False,
        )

    asyncio.run(scenario())
