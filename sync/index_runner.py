"""The one object that runs re-indexing in the service: one run at a time, off the event loop, retried on failure."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from core.errors import AppError, EmptyVault, UpstreamUnavailable
from core.ports import DocStore, VectorStore, WatermarkStore
from sync.index_status import IndexStatus, read_stored_status
from sync.reindex_worker import IndexGuard, ReindexJob, ReindexWorker, RunStopped, log_outcome
from sync.report import Progress, ReindexReport

logger = logging.getLogger(__name__)

# Seconds before retrying a failed run (a Redis or Qdrant that went away), then every minute until it succeeds.
RETRY_DELAYS = (2.0, 5.0, 10.0, 20.0, 40.0, 60.0)
START_RUN_GRACE_SECONDS = 5.0  # how long `settled` waits for the run at start to begin
EARLY_RETRY_AFTER = 2.0  # a status call that finds the stores answering retries early, at most this often
SNAPSHOT_TRIES = 3  # reads of the stores for one status, while runs keep ending during the read


class RunFailed(AppError):
    """The run a caller waited for failed (the message says why) or was stopped by shutdown."""


class IndexRunner:
    """Serialise every re-index run of the service; a request during a run becomes one more run after it.

    A failed run is retried with backoff (RETRY_DELAYS) until one succeeds, so an index left half updated by a
    Redis or Qdrant outage is finished soon after the dependency is back, not at the next file change.

    Args:
        guard: entered around each run in the worker thread (e.g. a lock the run must hold).

    """

    def __init__(
        self,
        reindexer: ReindexJob,
        *,
        watermarks: WatermarkStore,
        store: VectorStore,
        docstore: DocStore,
        clock: Callable[[], datetime],
        guard: IndexGuard | None = None,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
        early_retry_after: float = EARLY_RETRY_AFTER,
    ) -> None:
        self._watermarks = watermarks
        self._store = store
        self._docstore = docstore
        self._clock = clock
        self._worker = ReindexWorker(reindexer, guard)
        self._retry_delays = retry_delays
        self._early_retry_after = early_retry_after
        self._failed_at = 0.0  # time.monotonic() of the latest failure
        # The active task is the lock: at most one exists, and every other request only sets `_again`.
        self._active: asyncio.Task[ReindexReport | None] | None = None
        self._again: str | None = None
        self._closed = False
        self._reason: str | None = None
        self._started_at: datetime | None = None
        self._finished_at: datetime | None = None
        self._error: str | None = None
        self._last_report: ReindexReport | None = None
        self._completed = 0
        self._failed = 0
        self._started = 0  # runs begun by this process; run n resolves the waiters of n
        self._waiters: dict[int, list[asyncio.Future[ReindexReport]]] = {}
        self._failures_in_a_row = 0
        self._retry: asyncio.Task[None] | None = None
        self._next_retry_at: datetime | None = None
        self._repaired_for: tuple[str, ...] = ()
        self._failed_upstream = False  # the latest failure was a store that did not answer

    @property
    def is_running(self) -> bool:
        """Return True while a run is in progress."""
        return self._active is not None and not self._active.done()

    @property
    def progress(self) -> Progress | None:
        """Return how far the current run is, None when no run is going."""
        return self._worker.progress if self.is_running else None

    @property
    def last_report(self) -> ReindexReport | None:
        """Return the report of the latest successful run of this process."""
        return self._last_report

    async def settled(self, *, begun_within: float = START_RUN_GRACE_SECONDS) -> None:
        """Return when no run is going, first waiting up to `begun_within` seconds for a first run to begin.

        The run at start is begun by the scheduler just after the service starts: what should not share the cores
        with it (the model's warm-up, which times its reading) waits here. A failed run ends the wait too.
        """
        deadline = time.monotonic() + begun_within
        while not self._started and not self._closed and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        while (active := self._active) is not None and not active.done():
            await asyncio.wait({active})  # not `await active`: a cancelled waiter must not cancel the run

    async def run(self, reason: str = "manual") -> ReindexReport | None:
        """Re-index now, or once more after the current run if one is going; return the report of a run made.

        Returns None when the request was folded into the current run, when the run failed (see `status`),
        or after `aclose`.
        """
        if self._closed:
            return None
        if self.is_running:
            self._again = reason
            return None
        self._active = asyncio.create_task(self._run_until_settled(reason), name="reindex")
        # Shielded: a cancelled caller (scheduler shutdown, watcher stop) must not abandon the worker thread,
        # which writes the index until `run_once` returns; `aclose` waits for that instead.
        return await asyncio.shield(self._active)

    async def run_fresh(self, reason: str) -> ReindexReport:
        """Wait for a run that starts after this call (now, or right after the current one) and return its report.

        Raises:
            RunFailed: that run failed, or the service is shutting down.

        """
        if self._closed:
            raise RunFailed("the service is shutting down")
        waiter: asyncio.Future[ReindexReport] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(self._started + 1, []).append(waiter)
        if self.is_running:
            self._again = self._again or reason
        else:
            self._active = asyncio.create_task(self._run_until_settled(reason), name="reindex")
        return await asyncio.shield(waiter)

    async def aclose(self) -> None:
        """Refuse new runs, end the current one at its next commit, and wait for it (before closing stores)."""
        self._closed = True
        self._again = None
        self._worker.stop()
        await self._cancel_retry()
        if self._active is not None:
            await asyncio.shield(self._active)
        for waiters in self._waiters.values():
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_exception(RunFailed("the service is shutting down"))
        self._waiters.clear()

    async def status(self) -> IndexStatus:
        """Return a snapshot of the runs and of the index (the stores are read in a worker thread).

        A disagreement between the stores (an emptied Redis, a lost Qdrant volume) starts a repair run.
        """
        # The stores are read in a thread while a run may end: read again until the runs are where they were before
        # the read, so that a status saying the first run is done shows what it wrote (its warnings too).
        for _ in range(SNAPSHOT_TRIES):
            before = (self._started, self._completed, self._failed, self.is_running)
            stored = await asyncio.to_thread(read_stored_status, self._watermarks, self._store, self._docstore)
            if (self._started, self._completed, self._failed, self.is_running) == before:
                break
        if stored.unreachable is None:
            self.retry_now()  # the stores answer again: a failed run need not wait out its backoff
        if stored.consistency is not None:
            self.request_repair(stored.consistency.problems)
        running = self.is_running
        return IndexStatus(
            running=running,
            rerun_pending=running and self._again is not None,
            progress=self._worker.progress if running else None,
            stored=stored,
            runs_completed=self._completed,
            runs_failed=self._failed,
            last_reason=self._reason,
            last_started_at=self._started_at,
            last_finished_at=self._finished_at,
            last_error=self._error,
            failures_in_a_row=self._failures_in_a_row,
            next_retry_at=self._next_retry_at,
        )

    def retry_now(self) -> None:
        """Run a pending retry at once (call from the event loop when the stores were just seen answering).

        Only a run that failed on an unreachable store is retried early; any other failure keeps its backoff.
        """
        if self._retry is None or not self._failed_upstream or self.is_running or self._closed:
            return
        if time.monotonic() - self._failed_at < self._early_retry_after:
            return  # a store that is up but fails every run must not be retried on every status poll
        self._retry.cancel()
        self._retry = None
        self._next_retry_at = None
        self._active = asyncio.create_task(self._run_until_settled("retry"), name="reindex")

    def request_repair(self, problems: tuple[str, ...]) -> None:
        """Start a repair run when the stores disagree (call from the event loop); `()` says they agree."""
        # Once per distinct disagreement: a repair that cannot mend it must not rerun on every status poll.
        if not problems:
            self._repaired_for = ()
            return
        if problems == self._repaired_for or self.is_running or self._retry is not None or self._closed:
            return
        logger.warning("the index stores disagree (%s); repairing", "; ".join(problems))
        self._repaired_for = problems
        self._active = asyncio.create_task(self._run_until_settled("repair"), name="reindex")

    async def _run_until_settled(self, reason: str) -> ReindexReport | None:
        report = await self._run_one(reason)
        while self._again is not None and not self._closed:
            reason, self._again = self._again, None
            report = await self._run_one(reason)
        return report

    async def _run_one(self, reason: str) -> ReindexReport | None:
        await self._cancel_retry()  # this run is the retry, or makes it moot
        self._started += 1
        number = self._started
        self._reason = reason
        self._started_at = self._clock()
        self._finished_at = None
        try:
            report = await asyncio.to_thread(self._worker.run, is_first=self._last_report is None)
        except RunStopped:
            logger.info("re-index stopped for shutdown; the next run finishes it")
            self._settle(number, RunFailed("the service is shutting down"))
            return None
        except AppError as exc:
            logger.warning("re-index (%s) failed: %s", reason, exc.message)
            self._failed_upstream = isinstance(exc, UpstreamUnavailable)
            self._record_failure(number, exc.message, retry=not isinstance(exc, EmptyVault))
            return None
        except Exception as exc:  # the scheduler job: log it, keep it for the status, keep serving
            logger.exception("re-index (%s) failed", reason)
            self._failed_upstream = False
            self._record_failure(number, f"{type(exc).__name__}: {exc}", retry=True)
            return None
        finally:
            self._finished_at = self._clock()
            self._worker.progress = None
        self._error = None
        self._failures_in_a_row = 0
        self._completed += 1
        log_outcome(report, is_first=self._last_report is None)
        self._last_report = report
        self._settle(number, report)
        return report

    def _settle(self, number: int, outcome: ReindexReport | RunFailed) -> None:
        for waiter in self._waiters.pop(number, []):
            if waiter.done():
                continue
            if isinstance(outcome, RunFailed):
                waiter.set_exception(outcome)
            else:
                waiter.set_result(outcome)

    def _record_failure(self, number: int, error: str, *, retry: bool) -> None:
        self._failed_at = time.monotonic()
        self._error = error
        self._failed += 1
        self._failures_in_a_row += 1
        self._settle(number, RunFailed(error))
        if retry and not self._closed:
            delay = self._retry_delays[min(self._failures_in_a_row, len(self._retry_delays)) - 1]
            self._next_retry_at = self._clock() + timedelta(seconds=delay)
            self._retry = asyncio.create_task(self._retry_after(delay), name="reindex-retry")
            logger.info("re-index retries in %.0f s (failure %d in a row)", delay, self._failures_in_a_row)

    async def _retry_after(self, delay: float) -> None:
        await asyncio.sleep(delay)
        self._retry = None  # from here on the run itself is the retry; `_run_one` must not cancel this task
        self._next_retry_at = None
        await self.run("retry")

    async def _cancel_retry(self) -> None:
        retry, self._retry = self._retry, None
        self._next_retry_at = None
        if retry is not None and retry is not asyncio.current_task():
            retry.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await retry
