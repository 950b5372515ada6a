"""SQLite watermark store: what the indexer last saw of each file, plus index-level metadata."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from core.domain import Watermark
from rag.sqlite_migrations import SqliteDatabase
from sync.migrations import MIGRATIONS

# chunks/warnings NULL in the new row keep what an existing row says (a touched but identical file).
_RECORD_SUCCESS = """
INSERT INTO watermarks (path, mtime_ns, size, sha256, indexed_at, last_error, chunks, warnings)
VALUES (?, ?, ?, ?, ?, NULL, ?, ?)
ON CONFLICT (path) DO UPDATE SET
    mtime_ns = excluded.mtime_ns, size = excluded.size, sha256 = excluded.sha256,
    indexed_at = excluded.indexed_at, last_error = NULL,
    chunks = COALESCE(excluded.chunks, watermarks.chunks),
    warnings = CASE WHEN ? THEN excluded.warnings ELSE watermarks.warnings END
"""

_RECORD_ERROR = """
INSERT INTO watermarks (path, mtime_ns, size, sha256, indexed_at, last_error, chunks, warnings)
VALUES (?, ?, ?, NULL, ?, ?, NULL, NULL)
ON CONFLICT (path) DO UPDATE SET
    mtime_ns = excluded.mtime_ns, size = excluded.size, sha256 = NULL,
    indexed_at = excluded.indexed_at, last_error = excluded.last_error, chunks = NULL, warnings = NULL
"""

# Pending keeps `indexed_at`: it still tells when the file last finished a run.
_MARK_PENDING = """
INSERT INTO watermarks (path, mtime_ns, size, sha256, indexed_at, last_error) VALUES (?, ?, ?, NULL, NULL, NULL)
ON CONFLICT (path) DO UPDATE SET
    mtime_ns = excluded.mtime_ns, size = excluded.size, sha256 = NULL, last_error = NULL, chunks = NULL
"""

WATERMARKS_FILE = "watermarks.sqlite"  # under DATA_DIR

_SELECT = "SELECT path, mtime_ns, size, sha256, indexed_at, last_error, chunks, warnings FROM watermarks"


class SqliteWatermarkStore:
    """Keep one watermark row per file and a key/value `meta` table in one SQLite file.

    `indexed_at` is when the last run on the file finished, successfully or with an error (UTC).
    `clear()` forgets the files only: meta values (such as the model identity) survive until overwritten.
    """

    def __init__(self, path: Path) -> None:
        self._db = SqliteDatabase(path, MIGRATIONS)

    def all(self) -> dict[str, Watermark]:
        """Return every watermark keyed by path."""
        with self._db.transaction() as conn:
            rows = conn.execute(_SELECT).fetchall()
        return {row[0]: _watermark(*row) for row in rows}

    def mark_pending(self, path: str, *, mtime_ns: int, size: int) -> None:
        """Record that indexing of `path` started: no hash and no error until the run confirms."""
        with self._db.transaction() as conn:
            conn.execute(_MARK_PENDING, (path, mtime_ns, size))

    def record_success(
        self,
        path: str,
        *,
        mtime_ns: int,
        size: int,
        sha256: str,
        at: datetime,
        chunks: int | None = None,
        warnings: Sequence[str] | None = None,
    ) -> None:
        """Record that `path` with this content is fully indexed, clearing any earlier error."""
        shown = json.dumps(list(warnings)) if warnings else None
        with self._db.transaction() as conn:
            row = (path, mtime_ns, size, sha256, _utc_iso(at), chunks, shown, warnings is not None)
            conn.execute(_RECORD_SUCCESS, row)

    def record_error(self, path: str, *, mtime_ns: int, size: int, error: str, at: datetime) -> None:
        """Record that `path` could not be indexed, and why; its hash is forgotten so the next run retries."""
        with self._db.transaction() as conn:
            conn.execute(_RECORD_ERROR, (path, mtime_ns, size, _utc_iso(at), error))

    def set_chunk_counts(self, counts: dict[str, int]) -> None:
        """Record how many points each confirmed note has."""
        with self._db.transaction() as conn:
            conn.executemany(
                "UPDATE watermarks SET chunks = ? WHERE path = ? AND sha256 IS NOT NULL",
                [(count, path) for path, count in counts.items()],
            )

    def delete(self, path: str) -> None:
        """Forget a path that left the vault; an unknown path does nothing."""
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM watermarks WHERE path = ?", (path,))

    def clear(self) -> None:
        """Forget every file (a full re-index follows); meta values are kept."""
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM watermarks")

    def get_meta(self, key: str) -> str | None:
        """Return a stored index-level value, or None."""
        with self._db.transaction() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Store or replace an index-level value."""
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def close(self) -> None:
        """Close the database file."""
        self._db.close()


def _watermark(
    path: str,
    mtime_ns: int,
    size: int,
    sha256: str | None,
    indexed_at: str | None,
    last_error: str | None,
    chunks: int | None,
    warnings: str | None,
) -> Watermark:
    return Watermark(
        path=path,
        mtime_ns=mtime_ns,
        size=size,
        sha256=sha256,
        indexed_at=None if indexed_at is None else datetime.fromisoformat(indexed_at),
        last_error=last_error,
        chunks=chunks,
        warnings=tuple(json.loads(warnings)) if warnings else (),
    )


def _utc_iso(at: datetime) -> str:
    # A naive time is ambiguous (local? UTC?); the injected clock must be timezone-aware.
    if at.utcoffset() is None:
        raise ValueError(f"expected a timezone-aware datetime, got naive {at.isoformat()}")
    return at.astimezone(UTC).isoformat()
