"""Proposals kept server-side in SQLite until the user's next message approves or discards them."""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

from core.edits import DestructiveKind, ProposalStatus, ProposedEdit
from core.errors import InvalidRequest, NotFound
from core.tracing import span
from edits.diffs import content_hash, unified_diff
from rag.sqlite_migrations import Migration, SqliteDatabase

_COLUMNS = (
    "id, conversation_id, operation, path, new_path, base_hash, new_text, diff, created_at, expires_at, status, "
    "depends_on"
)
_FINAL_STATUSES = ("applied", "discarded", "expired", "conflict")


def _create_proposals(conn: sqlite3.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE proposals (
            id TEXT PRIMARY KEY,
            conversation_id TEXT NOT NULL,
            operation TEXT NOT NULL,
            path TEXT NOT NULL,
            new_path TEXT,
            base_hash TEXT,
            new_text TEXT,
            diff TEXT NOT NULL,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            status TEXT NOT NULL
        )
        """
    )
    conn.execute("CREATE INDEX proposals_by_conversation ON proposals (conversation_id, status)")


def _add_depends_on(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE proposals ADD COLUMN depends_on TEXT")


def _create_undo_requests(conn: sqlite3.Connection) -> None:
    # An undo shown in chat and waiting for the user's yes: at most one per conversation.
    conn.execute(
        "CREATE TABLE undo_requests (conversation_id TEXT PRIMARY KEY, change_set_id TEXT NOT NULL, "
        "expires_at TEXT NOT NULL)"
    )


def _add_confirm_word(conn: sqlite3.Connection) -> None:
    # The word ("delete", "move") an approval must name: set for a delete or move the user's message did not ask for.
    conn.execute("ALTER TABLE proposals ADD COLUMN confirm_word TEXT")


MIGRATIONS: tuple[Migration, ...] = (
    ("m001_create_proposals", _create_proposals),
    ("m002_add_depends_on", _add_depends_on),
    ("m003_create_undo_requests", _create_undo_requests),
    ("m004_add_confirm_word", _add_confirm_word),
)


def new_proposal(
    *,
    conversation_id: str,
    operation: str,
    path: str,
    before: str | None,
    after: str | None,
    now: datetime,
    ttl_minutes: float,
    new_path: str | None = None,
    depends_on: str | None = None,
) -> ProposedEdit:
    """Return a pending proposal with a fresh id, the diff of the whole note and the hash of `before`.

    Args:
        conversation_id: the conversation whose next user message answers the proposal.
        operation: what the tool does, shown to the user ("append to section" ...).
        path: the note's vault-relative path.
        before: the note's current text, or None when it does not exist (a create).
        after: its text after the edit (at `new_path` for a move), or None for a delete.
        now: the current time.
        ttl_minutes: how long the proposal stays open (WRITE settings `proposal_ttl_minutes`).
        new_path: where a move puts the note.
        depends_on: the proposal this one builds on and applies only after.

    """
    if before is None and after is None:
        raise InvalidRequest(f"{path!r} does not exist, so there is nothing to delete")
    return ProposedEdit(
        id=secrets.token_hex(4),
        conversation_id=conversation_id,
        operation=operation,
        path=path,
        new_path=new_path,
        base_hash=None if before is None else content_hash(before),
        new_text=after,
        diff=unified_diff(path, before, after, new_path=new_path),
        created_at=now,
        expires_at=now + timedelta(minutes=ttl_minutes),
        depends_on=depends_on,
    )


class SqliteProposalStore:
    """Keep proposals per conversation in one SQLite file; only code (never the model) changes their status."""

    def __init__(self, path: Path) -> None:
        self._db = SqliteDatabase(path, MIGRATIONS)

    def add(self, proposal: ProposedEdit) -> None:
        """Store a new proposal (its id must be new)."""
        attributes = {
            "librarian.edit.operation": proposal.operation,
            "librarian.edit.kind": proposal.kind,
            "librarian.edit.path": proposal.path,
        }
        with span("propose_edit", attributes):
            self._insert(proposal)

    def _insert(self, proposal: ProposedEdit) -> None:
        row = (
            proposal.id,
            proposal.conversation_id,
            proposal.operation,
            proposal.path,
            proposal.new_path,
            proposal.base_hash,
            proposal.new_text,
            proposal.diff,
            _utc_iso(proposal.created_at),
            _utc_iso(proposal.expires_at),
            proposal.status,
            proposal.depends_on,
        )
        try:
            with self._db.transaction() as conn:
                conn.execute(f"INSERT INTO proposals ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
        except sqlite3.IntegrityError as exc:
            raise InvalidRequest(f"a proposal with id {proposal.id} already exists") from exc

    def pending(self, conversation_id: str, now: datetime) -> list[ProposedEdit]:
        """Return the conversation's proposals still waiting for an answer and not expired, oldest first."""
        with self._db.transaction() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM proposals WHERE conversation_id = ? AND status = 'pending' "
                "AND expires_at > ? ORDER BY created_at, rowid",
                (conversation_id, _utc_iso(now)),
            ).fetchall()
        return [_from_row(row) for row in rows]

    def get(self, proposal_id: str) -> ProposedEdit | None:
        """Return the proposal with this id, whatever its status, or None."""
        with self._db.transaction() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM proposals WHERE id = ?", (proposal_id,)).fetchone()
        return None if row is None else _from_row(row)

    def mark(self, proposal_id: str, status: ProposalStatus) -> None:
        """Set the final status of a pending proposal; a proposal already decided keeps its status."""
        if status not in _FINAL_STATUSES:
            raise InvalidRequest(f"a proposal can be marked {', '.join(_FINAL_STATUSES)}, not {status!r}")
        with self._db.transaction() as conn:
            found = conn.execute("SELECT status FROM proposals WHERE id = ?", (proposal_id,)).fetchone()
            if found is None:
                raise NotFound(f"no proposal with id {proposal_id}")
            conn.execute("UPDATE proposals SET status = ? WHERE id = ? AND status = 'pending'", (status, proposal_id))

    def discard(self, proposal_ids: Sequence[str]) -> list[ProposedEdit]:
        """Mark these proposals discarded if still pending; return those that were, in the order given."""
        if not proposal_ids:
            return []
        marks = ", ".join("?" for _ in proposal_ids)
        with self._db.transaction() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM proposals WHERE id IN ({marks}) AND status = 'pending'", tuple(proposal_ids)
            ).fetchall()
            conn.execute(
                f"UPDATE proposals SET status = 'discarded' WHERE id IN ({marks}) AND status = 'pending'",
                tuple(proposal_ids),
            )
        found = {proposal.id: proposal for proposal in map(_from_row, rows)}
        return [found[pid] for pid in proposal_ids if pid in found]

    def require_words(self, words: Mapping[str, DestructiveKind]) -> None:
        """Remember, per proposal id, the word its approval must name ("yes delete"): a plain yes cannot apply it."""
        with self._db.transaction() as conn:
            conn.executemany("UPDATE proposals SET confirm_word = ? WHERE id = ?", [(w, i) for i, w in words.items()])

    def required_words(self, proposal_ids: Sequence[str]) -> dict[str, DestructiveKind]:
        """Return, for those of these proposals that need one, the word their approval must name."""
        if not proposal_ids:
            return {}
        marks = ", ".join("?" for _ in proposal_ids)
        with self._db.transaction() as conn:
            rows = conn.execute(
                f"SELECT id, confirm_word FROM proposals WHERE id IN ({marks}) AND confirm_word IS NOT NULL",
                tuple(proposal_ids),
            ).fetchall()
        return {str(pid): cast(DestructiveKind, str(word)) for pid, word in rows}

    def latest(self, conversation_id: str) -> ProposedEdit | None:
        """Return the conversation's most recent proposal, whatever its status, or None."""
        with self._db.transaction() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM proposals WHERE conversation_id = ? ORDER BY created_at DESC, rowid DESC "
                "LIMIT 1",
                (conversation_id,),
            ).fetchone()
        return None if row is None else _from_row(row)

    def request_undo(self, conversation_id: str, change_set_id: str, expires_at: datetime) -> None:
        """Remember that an undo of `change_set_id` was shown in the conversation and waits for a yes."""
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO undo_requests (conversation_id, change_set_id, expires_at) VALUES (?, ?, ?)",
                (conversation_id, change_set_id, _utc_iso(expires_at)),
            )

    def take_undo_request(self, conversation_id: str, now: datetime) -> str | None:
        """Forget the conversation's undo request; return its change set id if it had not expired."""
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT change_set_id, expires_at FROM undo_requests WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()
            conn.execute("DELETE FROM undo_requests WHERE conversation_id = ?", (conversation_id,))
        if row is None or str(row[1]) <= _utc_iso(now):
            return None
        return str(row[0])

    def undo_request(self, conversation_id: str, now: datetime) -> str | None:
        """Return the change set of the undo shown in the conversation and waiting for an answer, if not expired."""
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT change_set_id FROM undo_requests WHERE conversation_id = ? AND expires_at > ?",
                (conversation_id, _utc_iso(now)),
            ).fetchone()
        return None if row is None else str(row[0])

    def expire(self, now: datetime) -> int:
        """Mark every pending proposal whose time to live has passed as expired; return how many."""
        with self._db.transaction() as conn:
            cursor = conn.execute(
                "UPDATE proposals SET status = 'expired' WHERE status = 'pending' AND expires_at <= ?",
                (_utc_iso(now),),
            )
        return cursor.rowcount

    def close(self) -> None:
        """Release the connection."""
        self._db.close()


def _from_row(row: tuple[object, ...]) -> ProposedEdit:
    pid, conversation, operation, path, new_path, base_hash, new_text, diff, created, expires, status, depends_on = row
    return ProposedEdit(
        id=str(pid),
        conversation_id=str(conversation),
        operation=str(operation),
        path=str(path),
        new_path=None if new_path is None else str(new_path),
        base_hash=None if base_hash is None else str(base_hash),
        new_text=None if new_text is None else str(new_text),
        diff=str(diff),
        created_at=datetime.fromisoformat(str(created)),
        expires_at=datetime.fromisoformat(str(expires)),
        status=cast(ProposalStatus, status),
        depends_on=None if depends_on is None else str(depends_on),
    )


def _utc_iso(moment: datetime) -> str:
    # One fixed format (UTC, microseconds) so string comparison in SQL orders like time does.
    if moment.tzinfo is None:
        raise InvalidRequest("proposal times must be timezone-aware")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")
