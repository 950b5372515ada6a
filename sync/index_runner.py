"""The one object that runs re-indexing inside the service: one run at a time, off the event loop, kept for status."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Protocol

from core.errors import AppError, UpstreamUnavailable
from core.ports import VectorStore, WatermarkStore
from sync.reindex import LAST_RUN, RUN_FLAG, ProgressCallback
from sync.report import Progress, ReindexReport

logger = logging.getLogger(__name__)

IndexGuard = Callable[[], AbstractContextManager[object]]


class ReindexJob(Protocol):
    """What the runner drives: `Reindexer` or anything that indexes the vault the same way."""

    def run_once(self, on_progress: ProgressCallback | None = None) -> ReindexReport:
        """Bring the index in line with the vault and return what was done."""
        ...


class _Stopped(Exception):
    """Raised from the progress callback at shutdown, so a run ends between two commits."""


@dataclass(frozen=True, slots=True)
class FileError:
    """A file the index could not take in, and why (from its watermark)."""

    path: str
    error: str


@dataclass(frozen=True, slots=True)
class IndexStatus:
    """A snapshot of the index and of the runs that keep it fresh, for `GET /v1/index/status`."""

    running: bool
    rerun_pending: bool  # a change arrived during the current run: one more run follows it
    progress: Progress | None  # of the current run
    notes: int  # notes confirmed in the index
    chunks: int | None  # None when the vector store cannot be reached
    file_errors: tuple[FileError, ...]
    runs_completed: int  # by this process
    runs_failed: int
    last_reason: str | None  # what asked for the latest run: "schedule", "watch", ...
    last_started_at: datetime | None
    last_finished_at: datetime | None
    last_error: str | None  # why the latest run failed; None once a run succeeds
    last_report: dict[str, object] | None  # summary of the latest successful run (this process or an earlier one)
    interrupted: bool  # a run was cut short (crash, shutdown); the next run repairs the index

    def to_json(self) -> dict[str, object]:
        """Return a JSON-ready dict."""
        return {
            "running": self.running,
            "rerun_pending": self.rerun_pending,
            "progress": asdict(self.progress) if self.progress else None,
            "notes": self.notes,
            "chunks": self.chunks,
            "file_errors": [{"path": e.path, "error": e.error} for e in self.file_errors],
            "runs_completed": self.runs_completed,
            "runs_failed": self.runs_failed,
            "last_reason": self.last_reason,
            "last_started_at": self.last_started_at.isoformat() if self.last_started_at else None,
            "last_finished_at": self.last_finished_at.isoformat() if self.last_finished_at else None,
            "last_error": self.last_error,
            "last_report": self.last_report,
            "interrupted": self.interrupted,
        }


@dataclass(frozen=True, slots=True)
class _Stored:
    notes: int
    chunks: int | None
    file_errors: tuple[FileError, ...]
    last_report: dict[str, object] | None
    interrupted: bool


def summarise_report(report: dict[str, object]) -> dict[str, object]:
    """Return a run report (`ReindexReport.to_json()`) with each list replaced by its length.

    A first run lists every note of the vault; a status reply needs the counts, and per-file errors come from
    the watermarks.
    """
    return {key: len(value) if isinstance(value, list) else value for key, value in report.items()}


class IndexRunner:
    """Serialise every re-index run of the service; a request during a run becomes one more run after it.

    Args:
        guard: entered around each run in the worker thread, e.g. the DATA_DIR lock that keeps a
            `librarian index` in another process from writing the same index at once.

    """

    def __init__(
        self,
        reindexer: ReindexJob,
        *,
        watermarks: WatermarkStore,
        store: VectorStore,
        clock: Callable[[], datetime],
        guard: IndexGuard | None = None,
    ) -> None:
        self._reindexer = reindexer
        self._watermarks = watermarks
        self._store = store
        self._clock = clock
        self._guard = guard
        # The active task is the lock: at most one exists, and every other request only sets `_again`.
        self._active: asyncio.Task[ReindexReport | None] | None = None
        self._again: str | None = None
        self._stop = threading.Event()
        self._closed = False
        self._progress: Progress | None = None
        self._reason: str | None = None
        self._started_at: datetime | None = None
        self._finished_at: datetime | None = None
        self._error: str | None = None
        self._last_report: ReindexReport | None = None
        self._completed = 0
        self._failed = 0

    @property
    def is_running(self) -> bool:
        """Return True while a run is in progress."""
        return self._active is not None and not self._active.done()

    @property
    def last_report(self) -> ReindexReport | None:
        """Return the report of the latest successful run of this process."""
        return self._last_report

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

    async def aclose(self) -> None:
        """Refuse new runs, end the current one at its next commit, and wait for it (before closing stores)."""
        self._closed = True
        self._again = None
        self._stop.set()
        if self._active is not None:
            await asyncio.shield(self._active)

    async def status(self) -> IndexStatus:
        """Return a snapshot of the runs and of the index (the stores are read in a worker thread)."""
        stored = await asyncio.to_thread(self._read_stored)
        running = self.is_running
        return IndexStatus(
            running=running,
            rerun_pending=running and self._again is not None,
            progress=self._progress if running else None,
            notes=stored.notes,
            chunks=stored.chunks,
            file_errors=stored.file_errors,
            runs_completed=self._completed,
            runs_failed=self._failed,
            last_reason=self._reason,
            last_started_at=self._started_at,
            last_finished_at=self._finished_at,
            last_error=self._error,
            last_report=stored.last_report,
            interrupted=stored.interrupted and not running,
        )

    async def _run_until_settled(self, reason: str) -> ReindexReport | None:
        report = await self._run_one(reason)
        while self._again is not None and not self._closed:
            reason, self._again = self._again, None
            report = await self._run_one(reason)
        return report

    async def _run_one(self, reason: str) -> ReindexReport | None:
        self._reason = reason
        self._started_at = self._clock()
        self._finished_at = None
        try:
            report = await asyncio.to_thread(self._run_in_thread)
        except _Stopped:
            logger.info("re-index stopped for shutdown; the next run finishes it")
            return None
        except AppError as exc:
            logger.warning("re-index (%s) failed: %s", reason, exc.message)
            self._record_failure(exc.message)
            return None
        except Exception as exc:  # the scheduler job: log it, keep it for the status, keep serving
            logger.exception("re-index (%s) failed", reason)
            self._record_failure(f"{type(exc).__name__}: {exc}")
            return None
        finally:
            self._finished_at = self._clock()
            self._progress = None
        self._error = None
        self._last_report = report
        self._completed += 1
        return report

    def _record_failure(self, error: str) -> None:
        self._error = error
        self._failed += 1

    def _run_in_thread(self) -> ReindexReport:
        with self._guard() if self._guard else nullcontext():
            return self._reindexer.run_once(self._on_progress)

    def _on_progress(self, progress: Progress) -> None:
        # Called in the worker thread after each commit: the one point where stopping leaves a repairable index.
        if self._stop.is_set() and progress.phase != "done":
            raise _Stopped
        self._progress = progress

    def _read_stored(self) -> _Stored:
        marks = self._watermarks.all()
        try:
            chunks: int | None = self._store.count()
        except UpstreamUnavailable as exc:
            logger.warning("index status without a chunk count: %s", exc.message)
            chunks = None
        last_run = self._watermarks.get_meta(LAST_RUN)
        return _Stored(
            notes=sum(1 for mark in marks.values() if mark.sha256),
            chunks=chunks,
            file_errors=tuple(
                FileError(path, mark.last_error) for path, mark in sorted(marks.items()) if mark.last_error
            ),
            last_report=summarise_report(json.loads(last_run)) if last_run else None,
            interrupted=self._watermarks.get_meta(RUN_FLAG) == "1",
        )
