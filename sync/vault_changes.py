"""What changed in the vault since the last index run, seen as the re-indexer first sees it: by size and mtime."""

from __future__ import annotations

from dataclasses import dataclass

from core.domain import Watermark
from core.ports import WatermarkStore
from core.settings import VaultSettings
from rag.notes.vault import FileStat, scan_vault


def has_same_stat(mark: Watermark, stat: FileStat) -> bool:
    """Return True when a file has the size and modification time its watermark recorded."""
    return (mark.mtime_ns, mark.size) == (stat.mtime_ns, stat.size)


@dataclass(frozen=True, slots=True)
class VaultChanges:
    """Notes added, changed and deleted in the vault since the last index run (not yet in the index)."""

    added: int
    modified: int  # size or mtime differ: a touched but identical note counts too, until the next run
    deleted: int

    @property
    def total(self) -> int:
        """Return how many notes the next run has to look at."""
        return self.added + self.modified + self.deleted

    def to_json(self) -> dict[str, int]:
        """Return a JSON-ready dict."""
        return {"added": self.added, "modified": self.modified, "deleted": self.deleted}


def changes_since_last_run(vault: VaultSettings, watermarks: WatermarkStore) -> VaultChanges | None:
    """Compare a walk of the vault with the watermarks (stat only, nothing is read or hashed; read-only).

    Returns None when nothing was indexed yet, or the vault shows no notes (the re-indexer keeps the index then).
    """
    marks = watermarks.all()
    if not marks:
        return None
    scan = scan_vault(vault)
    if not scan.notes:
        return None
    added = modified = 0
    for path, stat in scan.notes.items():
        mark = marks.get(path)
        if mark is None:
            added += 1
        # A note that failed with this very file is retried by every run but is no change (the status lists it).
        elif not has_same_stat(mark, stat):
            modified += 1
    # As the re-indexer: a note that could not be listed this time is not gone.
    deleted = sum(1 for path in marks if path not in scan.notes and not scan.is_unreadable(path))
    return VaultChanges(added=added, modified=modified, deleted=deleted)
