"""The change log: a write-ahead snapshot of each note before it is written, and one row per applied change."""

from __future__ import annotations

import builtins
import json
import os
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

from core.edits import AppliedChange, ChangeStatus, EditKind
from core.errors import InvalidRequest, NotFound
from rag.sqlite_migrations import Migration, SqliteDatabase

_COLUMNS = (
    "id, change_set_id, at, conversation_id, proposal_id, operation, kind, path, new_path, "
    "hash_before, hash_after, snapshot, status, undoes"
)


def _create_changes(conn: sqlite3.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE changes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            change_set_id TEXT NOT NULL,
            at TEXT NOT NULL,
            conversation_id TEXT NOT NULL,
            proposal_id TEXT NOT NULL,
            operation TEXT NOT NULL,
            kind TEXT NOT NULL,
            path TEXT NOT NULL,
            new_path TEXT,
            hash_before TEXT,
            hash_after TEXT,
            snapshot TEXT,
            status TEXT NOT NULL,
            undoes TEXT
        )
        """
    )
    conn.execute("CREATE INDEX changes_by_set ON changes (change_set_id)")


def _add_created_folders(conn: sqlite3.Connection) -> None:
    # Rows logged before this column created no folder anyone knows of: '[]' keeps them readable, and undo then
    # removes no folder for them (the safe direction: an empty folder left behind, never one the user made).
    conn.execute("ALTER TABLE changes ADD COLUMN created_folders TEXT NOT NULL DEFAULT '[]'")


MIGRATIONS: tuple[Migration, ...] = (
    ("m001_create_changes", _create_changes),
    ("m002_add_created_folders", _add_created_folders),
)


@dataclass(frozen=True, slots=True)
class ChangeStart:
    """What is about to be written, logged (with the previous text) before the write."""

    change_set_id: str
    conversation_id: str
    proposal_id: str
    operation: str
    kind: EditKind
    path: str
    new_path: str | None
    before: str | None  # the note's text now; snapshotted when not None
    hash_before: str | None
    hash_after: str | None  # expected after the write
    undoes: str | None = None
    created_folders: tuple[str, ...] = ()  # folders the write will create for the note, outermost first


@dataclass(frozen=True, slots=True)
class ChangeSetSummary:
    """One change set as listed: who made it (conversation or `crew:<team>:<run>`), when, which notes, its state."""

    change_set_id: str
    conversation_id: str
    first_at: datetime
    last_at: datetime
    paths: tuple[str, ...]  # in the order written, each once
    entries: int
    is_undone: bool
    undoes: str | None  # the change set this one reverted, for an undo


def new_change_set_id() -> str:
    """Return a fresh id for the changes of one approval or one undo."""
    return secrets.token_hex(6)


class SqliteChangeLog:
    """Log changes in SQLite and keep previous note texts as snapshot files, both under DATA_DIR."""

    def __init__(self, path: Path, snapshots_dir: Path) -> None:
        self._db = SqliteDatabase(path, MIGRATIONS)
        self._snapshots = snapshots_dir

    def begin(self, start: ChangeStart, *, now: datetime) -> int:
        """Snapshot the previous text (fsynced) and log the change as "started"; return the entry id.

        The snapshot file is durable before the row that names it, and both before the note is written, so a
        crash at any point leaves either nothing to undo or an entry whose previous text can be restored.
        """
        snapshot = None if start.before is None else self._write_snapshot(start.before)
        row = (
            start.change_set_id,
            _utc_iso(now),
            start.conversation_id,
            start.proposal_id,
            start.operation,
            start.kind,
            start.path,
            start.new_path,
            start.hash_before,
            start.hash_after,
            snapshot,
            "started",
            start.undoes,
            json.dumps(list(start.created_folders)),
        )
        with self._db.transaction() as conn:
            cursor = conn.execute(
                f"INSERT INTO changes ({_COLUMNS}, created_folders) VALUES (NULL{', ?' * len(row)})", row
            )
        if cursor.lastrowid is None:
            raise InvalidRequest("the change log did not record the change")
        return cursor.lastrowid

    def finish(self, change_id: int, *, hash_after: str | None, trash_path: str | None = None) -> None:
        """Mark a started change applied, with the hash read back after the write (None: the note is gone).

        Args:
            change_id: the entry `begin` returned.
            hash_after: the hash of the note read back after the write, None when it is gone.
            trash_path: for a delete, where the writer put the note in `.trash/`; kept in `new_path`, so undo can
                bring that copy back (a delete left "started" by a crash has none and is restored from its snapshot).

        """
        with self._db.transaction() as conn:
            cursor = conn.execute(
                "UPDATE changes SET status = 'applied', hash_after = ?, new_path = COALESCE(?, new_path) WHERE id = ?",
                (hash_after, trash_path, change_id),
            )
        if cursor.rowcount == 0:
            raise NotFound(f"no change log entry {change_id}")

    def mark_undone(self, change_set_id: str) -> None:
        """Mark every entry of a change set undone, so the next undo reaches the set before it."""
        with self._db.transaction() as conn:
            conn.execute("UPDATE changes SET status = 'undone' WHERE change_set_id = ?", (change_set_id,))

    def snapshot_text(self, change: AppliedChange) -> str | None:
        """Return the note's text from before the change, or None when it did not exist."""
        if change.snapshot is None:
            return None
        try:
            # Bytes, not read_text: universal newlines would turn a CRLF note's snapshot into LF.
            return (self._snapshots / change.snapshot).read_bytes().decode("utf-8")
        except OSError as exc:
            raise NotFound(f"the snapshot of {change.path} ({change.snapshot}) is missing: {exc}") from exc

    def created_folders(self, change: AppliedChange) -> tuple[str, ...]:
        """Return the folders the change created for its note, outermost first (() when none or not recorded)."""
        with self._db.transaction() as conn:
            row = conn.execute("SELECT created_folders FROM changes WHERE id = ?", (change.id,)).fetchone()
        try:
            folders = json.loads(row[0]) if row is not None else []
        except (TypeError, ValueError):
            folders = []  # an unreadable record removes no folder: one left behind is the safe mistake
        return tuple(folder for folder in folders if isinstance(folder, str)) if isinstance(folders, list) else ()

    def list(self, limit: int = 50) -> builtins.list[AppliedChange]:
        """Return the most recent entries, newest first (undo entries included)."""
        with self._db.transaction() as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM changes ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [_from_row(row) for row in rows]

    def is_undone(self, proposal_id: str) -> bool:
        """Return True when the change a proposal made was undone since."""
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT 1 FROM changes WHERE proposal_id = ? AND undoes IS NULL AND status = 'undone' LIMIT 1",
                (proposal_id,),
            ).fetchone()
        return row is not None

    def change_set(self, change_set_id: str) -> builtins.list[AppliedChange]:
        """Return the entries of one change set in the order written ([] when there is no such set)."""
        with self._db.transaction() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM changes WHERE change_set_id = ? ORDER BY id", (change_set_id,)
            ).fetchall()
        return [_from_row(row) for row in rows]

    def change_sets(self, limit: int = 20, *, include_undos: bool = False) -> builtins.list[ChangeSetSummary]:
        """Return the newest change sets, newest first (by their last write); undo sets only with `include_undos`."""
        where = "" if include_undos else "WHERE undoes IS NULL"
        with self._db.transaction() as conn:
            ids = conn.execute(
                f"SELECT change_set_id FROM changes {where} GROUP BY change_set_id ORDER BY MAX(id) DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [_summary(self.change_set(str(found[0]))) for found in ids]

    def last_change_set(self) -> builtins.list[AppliedChange]:
        """Return the entries of the newest change set not yet undone (and not an undo), in the order written."""
        with self._db.transaction() as conn:
            found = conn.execute(
                "SELECT change_set_id FROM changes WHERE undoes IS NULL AND status != 'undone' ORDER BY id DESC LIMIT 1"
            ).fetchone()
            if found is None:
                return []
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM changes WHERE change_set_id = ? ORDER BY id", (found[0],)
            ).fetchall()
        return [_from_row(row) for row in rows]

    def close(self) -> None:
        """Release the connection."""
        self._db.close()

    def _write_snapshot(self, text: str) -> str:
        self._snapshots.mkdir(parents=True, exist_ok=True)
        name = f"{secrets.token_hex(8)}.md"
        target = self._snapshots / name
        with open(target, "xb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        _fsync_dir(self._snapshots)
        return name


def _fsync_dir(folder: Path) -> None:
    # A new file's directory entry is only durable once its folder is fsynced (POSIX; Windows has no dir fds).
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _from_row(row: tuple[object, ...]) -> AppliedChange:
    (cid, set_id, at, conversation, proposal, operation, kind, path, new_path, before, after, snap, status, undoes) = (
        row
    )
    return AppliedChange(
        id=cast(int, cid),
        change_set_id=str(set_id),
        at=datetime.fromisoformat(str(at)),
        conversation_id=str(conversation),
        proposal_id=str(proposal),
        operation=str(operation),
        kind=cast(EditKind, kind),
        path=str(path),
        new_path=None if new_path is None else str(new_path),
        hash_before=None if before is None else str(before),
        hash_after=None if after is None else str(after),
        snapshot=None if snap is None else str(snap),
        status=cast(ChangeStatus, status),
        undoes=None if undoes is None else str(undoes),
    )


def _summary(entries: builtins.list[AppliedChange]) -> ChangeSetSummary:
    first, last = entries[0], entries[-1]
    return ChangeSetSummary(
        change_set_id=first.change_set_id,
        conversation_id=first.conversation_id,
        first_at=first.at,
        last_at=last.at,
        paths=tuple(dict.fromkeys(entry.path for entry in entries)),
        entries=len(entries),
        is_undone=all(entry.status == "undone" for entry in entries),
        undoes=first.undoes,
    )


def _utc_iso(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise InvalidRequest("change log times must be timezone-aware")
    return moment.astimezone(UTC).isoformat()
