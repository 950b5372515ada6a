"""What one re-index run did, and the progress it reports while running."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Literal


@dataclass(frozen=True, slots=True)
class Progress:
    """A progress event: how many notes and chunks are done out of the planned work."""

    phase: Literal["scan", "index", "done"]
    notes_done: int = 0
    notes_total: int = 0
    chunks_done: int = 0


@dataclass(slots=True)
class ReindexReport:
    """The outcome of `Reindexer.run_once`."""

    started_at: datetime
    finished_at: datetime | None = None
    notes_total: int = 0
    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (old path, new path)
    refreshed: list[str] = field(default_factory=list)  # unchanged notes re-indexed because an embed changed
    restored: list[str] = field(default_factory=list)  # unchanged notes whose lost index entries were rebuilt
    unchanged: int = 0
    chunks_indexed: int = 0
    chunks_embedded: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    rebuilt_reason: str | None = None
    repaired: list[str] = field(default_factory=list)  # entries an interrupted run left, dropped
    healed: list[str] = field(default_factory=list)  # what the consistency repair did, one sentence each

    @property
    def seconds(self) -> float:
        """Return the wall time of the run."""
        end = self.finished_at or self.started_at
        return (end - self.started_at).total_seconds()

    def to_json(self) -> dict[str, object]:
        """Return a JSON-ready dict."""
        data = asdict(self)
        data["started_at"] = self.started_at.isoformat()
        data["finished_at"] = self.finished_at.isoformat() if self.finished_at else None
        data["seconds"] = round(self.seconds, 3)
        return data
