"""SQLite files shared by threads, brought up to date by named, append-only migrations (simonw/llm style)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path

from core.errors import InvalidRequest, UpstreamUnavailable

Migration = tuple[str, Callable[[sqlite3.Connection], None]]
"""A named schema step. Never edit, rename or reorder a released step: append a new one.

The step runs inside the runner's transaction, so it must use `conn.execute` (not `executescript`, which commits).
"""

_BUSY_TIMEOUT_S = 10.0

_CREATE_MIGRATIONS_TABLE = """
CREATE TABLE IF NOT EXISTS _migrations (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    applied_at TEXT NOT NULL
)
"""


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    """Return the names of the migrations recorded in `conn`, in the order they were applied."""
    conn.execute(_CREATE_MIGRATIONS_TABLE)
    return [row[0] for row in conn.execute("SELECT name FROM _migrations ORDER BY id")]


def apply_migrations(conn: sqlite3.Connection, migrations: Sequence[Migration]) -> list[str]:
    """Apply, in order, each migration not yet recorded, each in its own transaction; return the names applied.

    Raises:
        ValueError: two migrations share a name.
        InvalidRequest: the file records migrations this code does not know (written by another version).

    """
    names = [name for name, _ in migrations]
    if len(set(names)) != len(names):
        raise ValueError(f"migration names must be unique, got {names}")
    with conn:
        recorded = applied_migrations(conn)
    if recorded != names[: len(recorded)]:
        raise InvalidRequest(
            f"the database was migrated by another version of this program (recorded {recorded}, known {names}); "
            "use a matching version or delete the file to rebuild it"
        )
    applied: list[str] = []
    for name, migrate in migrations[len(recorded) :]:
        with conn:
            # IMMEDIATE takes the write lock first, so two processes opening the file at once cannot both apply.
            conn.execute("BEGIN IMMEDIATE")
            if conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone() is not None:
                continue
            migrate(conn)
            conn.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                (name, datetime.now(UTC).isoformat()),
            )
        applied.append(name)
    return applied


class SqliteDatabase:
    """One WAL-mode connection to a SQLite file, migrated on open and shared by threads under a lock."""

    def __init__(self, path: Path, migrations: Sequence[Migration]) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._conn = _open_migrated(path, migrations)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Yield the connection inside one transaction: commit on success, roll back on error."""
        try:
            with self._lock, self._conn:
                yield self._conn
        except sqlite3.OperationalError as exc:
            # Locked, full or vanished database files are an environment problem the user must see plainly.
            raise UpstreamUnavailable("sqlite", f"{self.path}: {exc}") from exc

    def close(self) -> None:
        """Close the connection; later calls fail."""
        with self._lock:
            self._conn.close()


def _open_migrated(path: Path, migrations: Sequence[Migration]) -> sqlite3.Connection:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # check_same_thread=False: the async service calls in from worker threads; SqliteDatabase's lock
        # serialises them on this one connection.
        conn = sqlite3.connect(path, timeout=_BUSY_TIMEOUT_S, check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        raise InvalidRequest(f"cannot open the SQLite database {path}: {exc}") from exc
    with ExitStack() as on_failure:
        on_failure.callback(conn.close)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            apply_migrations(conn, migrations)
        except sqlite3.Error as exc:
            raise InvalidRequest(f"cannot open the SQLite database {path}: {exc}") from exc
        on_failure.pop_all()
    return conn
