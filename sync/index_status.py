"""What the stores say about the index (counts, errors, warnings, consistency, the last run), for every front."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from datetime import datetime

from core.errors import UpstreamUnavailable
from core.ports import DocStore, VectorStore, WatermarkStore
from rag.retrieve import EMPTY_VAULT_META
from sync.consistency import Consistency, check_consistency
from sync.reindex import LAST_RUN, RUN_FLAG, SCAN_WARNINGS
from sync.report import Progress

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FileIssue:
    """A file and what is wrong with it: why it could not be indexed, or what reading it found odd."""

    path: str
    reason: str

    def to_json(self) -> dict[str, str]:
        """Return a JSON-ready dict (`error` names the reason, as the API always did)."""
        return {"path": self.path, "error": self.reason}


@dataclass(frozen=True, slots=True)
class StoredStatus:
    """The index as its stores describe it, read in one go."""

    notes: int  # confirmed in the watermarks
    chunks: int | None  # None when the vector store cannot be reached
    model: str | None  # the model the index was built with
    dimensions: int | None
    file_errors: tuple[FileIssue, ...]
    warnings: tuple[FileIssue, ...]
    last_report: dict[str, object] | None  # summary of the latest successful run (any process)
    interrupted: bool  # a run was cut short (crash, shutdown); the next run repairs the index
    vault_empty: str | None  # the vault path when the last scan found no notes
    consistency: Consistency | None  # None while a run is going or was cut short, or a store is unreachable
    unreachable: str | None

    def to_json(self) -> dict[str, object]:
        """Return a JSON-ready dict."""
        return {
            "notes": self.notes,
            "chunks": self.chunks,
            "model": self.model,
            "dimensions": self.dimensions,
            "file_errors": [issue.to_json() for issue in self.file_errors],
            "warnings": [{"path": w.path, "warning": w.reason} for w in self.warnings],
            "last_report": self.last_report,
            "interrupted": self.interrupted,
            "vault_empty": self.vault_empty,
            "consistency": self.consistency.to_json() if self.consistency else None,
            "unreachable": self.unreachable,
        }


def summarise_report(report: dict[str, object]) -> dict[str, object]:
    """Return a run report (`ReindexReport.to_json()`) with each list replaced by its length.

    A first run lists every note of the vault; a status reply needs the counts, and per-file errors come from
    the watermarks.
    """
    return {key: len(value) if isinstance(value, list) else value for key, value in report.items()}


def read_stored_status(
    watermarks: WatermarkStore, store: VectorStore | None, docstore: DocStore | None
) -> StoredStatus:
    """Read the index's state from its stores (blocking: call it in a worker thread from async code).

    Without `store` and `docstore` (another process has them open) only what the watermarks say is read.
    """
    marks = watermarks.all()
    chunks: int | None = None
    identity = None
    consistency: Consistency | None = None
    unreachable: str | None = None
    interrupted = watermarks.get_meta(RUN_FLAG) == "1"
    try:
        if store is not None:
            chunks = store.count()
            identity = store.identity()
        if docstore is not None:
            docstore.count()  # reachable? (the consistency check below is skipped mid-run)
        # Mid-run (or after a crash, until the next run repairs it) the stores disagree by design.
        if store is not None and docstore is not None and not interrupted:
            consistency = check_consistency(watermarks, docstore, store, marks=marks)
    except UpstreamUnavailable as exc:
        logger.warning("index status without the store counts: %s", exc.message)
        unreachable = exc.message
    last_run = watermarks.get_meta(LAST_RUN)
    scan_warnings = json.loads(watermarks.get_meta(SCAN_WARNINGS) or "[]")
    return StoredStatus(
        notes=sum(1 for mark in marks.values() if mark.sha256),
        chunks=chunks,
        model=identity.model_id if identity else None,
        dimensions=identity.dim if identity else None,
        file_errors=tuple(FileIssue(path, mark.last_error) for path, mark in sorted(marks.items()) if mark.last_error),
        warnings=(
            *(FileIssue(path, reason) for path, reason in scan_warnings),
            *(FileIssue(path, warning) for path, mark in sorted(marks.items()) for warning in mark.warnings),
        ),
        last_report=summarise_report(json.loads(last_run)) if last_run else None,
        interrupted=interrupted,
        vault_empty=watermarks.get_meta(EMPTY_VAULT_META) or None,
        consistency=consistency,
        unreachable=unreachable,
    )


@dataclass(frozen=True, slots=True)
class IndexStatus:
    """A snapshot of the index and of the runs that keep it fresh, for `GET /v1/index/status`."""

    running: bool
    rerun_pending: bool  # a change arrived during the current run: one more run follows it
    progress: Progress | None  # of the current run
    stored: StoredStatus
    runs_completed: int  # by this process
    runs_failed: int
    last_reason: str | None  # what asked for the latest run: "schedule", "watch", ...
    last_started_at: datetime | None
    last_finished_at: datetime | None
    last_error: str | None  # why the latest run failed; None once a run succeeds
    failures_in_a_row: int
    next_retry_at: datetime | None  # when a failed run is tried again

    @property
    def notes(self) -> int:
        """Return the notes confirmed in the index."""
        return self.stored.notes

    @property
    def chunks(self) -> int | None:
        """Return the points in the vector store (None when it cannot be reached)."""
        return self.stored.chunks

    @property
    def file_errors(self) -> tuple[FileIssue, ...]:
        """Return the files that could not be indexed, and why."""
        return self.stored.file_errors

    @property
    def last_report(self) -> dict[str, object] | None:
        """Return the summary of the latest successful run (this process or an earlier one)."""
        return self.stored.last_report

    @property
    def interrupted(self) -> bool:
        """Return True when a run was cut short and no run is going to repair it yet."""
        return self.stored.interrupted and not self.running

    def to_json(self) -> dict[str, object]:
        """Return a JSON-ready dict."""
        stored = self.stored.to_json()
        return {
            "running": self.running,
            "rerun_pending": self.rerun_pending,
            "progress": asdict(self.progress) if self.progress else None,
            **stored,
            "interrupted": self.interrupted,
            "runs_completed": self.runs_completed,
            "runs_failed": self.runs_failed,
            "last_reason": self.last_reason,
            "last_started_at": self.last_started_at.isoformat() if self.last_started_at else None,
            "last_finished_at": self.last_finished_at.isoformat() if self.last_finished_at else None,
            "last_error": self.last_error,
            "failures_in_a_row": self.failures_in_a_row,
            "next_retry_at": self.next_retry_at.isoformat() if self.next_retry_at else None,
        }
