"""One re-index run in its worker thread: the guard it holds, its progress, stopping it, and logging its outcome."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Protocol

from sync.reindex import ProgressCallback
from sync.report import Progress, ReindexReport

logger = logging.getLogger(__name__)

IndexGuard = Callable[[], AbstractContextManager[object]]
_WARNINGS_LOGGED = 5


class ReindexJob(Protocol):
    """What the runner drives: `Reindexer` or anything that indexes the vault the same way."""

    def run_once(self, on_progress: ProgressCallback | None = None) -> ReindexReport:
        """Bring the index in line with the vault and return what was done."""
        ...


class RunStopped(Exception):
    """Raised from the progress callback at shutdown, so a run ends between two commits."""


class ReindexWorker:
    """Run the job under its guard in the calling thread, keep its progress, and stop it when asked.

    Args:
        guard: entered around each run (e.g. a lock the run must hold).

    """

    def __init__(self, job: ReindexJob, guard: IndexGuard | None) -> None:
        self._job = job
        self._guard = guard
        self._stop = threading.Event()
        self._is_first = True  # no run of this process has succeeded yet
        self.progress: Progress | None = None

    def stop(self) -> None:
        """End the current run at its next commit, and any later one before it writes."""
        self._stop.set()

    def run(self, *, is_first: bool) -> ReindexReport:
        """Run the job once (call in a worker thread); raise `RunStopped` when stopped before it finished."""
        self._is_first = is_first
        with self._guard() if self._guard else nullcontext():
            return self._job.run_once(self._on_progress)

    def _on_progress(self, progress: Progress) -> None:
        # Called in the worker thread before the first batch and after each commit: points where stopping leaves a
        # repairable index.
        if self._stop.is_set() and progress.phase != "done":
            raise RunStopped
        starts_indexing = self.progress is None or self.progress.phase != "index"
        if starts_indexing and progress.phase == "index" and self._is_first:
            # The first run after start can take minutes (a new vault): say so once, and where to follow it.
            logger.info(
                "indexing %d new or changed notes in the background (GET /v1/index/status shows progress)",
                progress.notes_total,
            )
        self.progress = progress


def log_outcome(report: ReindexReport, *, is_first: bool) -> None:
    """Log one line per run that changed something (and always for the first), naming warned files."""
    changed = report.added or report.modified or report.deleted or report.renamed or report.restored
    if not (is_first or changed or report.errors):
        return
    shown = [*report.errors, *report.warnings][:_WARNINGS_LOGGED]
    more = len(report.errors) + len(report.warnings) - len(shown)
    issues = "; ".join(f"{path}: {reason}" for path, reason in shown) + (f"; and {more} more" if more else "")
    logger.info(
        "indexed %d notes (%d chunks written, %d embedded) in %.1f s: +%d ~%d -%d, %d errors, %d warnings%s",
        report.notes_total,
        report.chunks_indexed,
        report.chunks_embedded,
        report.seconds,
        len(report.added),
        len(report.modified),
        len(report.deleted),
        len(report.errors),
        len(report.warnings),
        f" ({issues}; `librarian status` lists them all)" if issues else "",
    )
