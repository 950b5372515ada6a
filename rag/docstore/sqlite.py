"""SQLite docstore: the verbatim markdown of each note in one embedded file (the default without Redis)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from core.domain import StoredDoc
from rag.sqlite_migrations import Migration, SqliteDatabase


def _create_docs(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE docs (path TEXT PRIMARY KEY, markdown TEXT NOT NULL, content_hash TEXT NOT NULL)")
    conn.execute("CREATE INDEX docs_content_hash ON docs (content_hash)")


def _create_meta(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


MIGRATIONS: tuple[Migration, ...] = (("m001_create_docs", _create_docs), ("m002_create_meta", _create_meta))
"""Append-only: add new steps at the end, never edit released ones."""


class SqliteDocStore:
    """Keep notes in a `docs` table; the dedup set of a hash is the rows carrying it (indexed)."""

    def __init__(self, path: Path) -> None:
        self._db = SqliteDatabase(path, MIGRATIONS)

    def put(self, doc: StoredDoc) -> None:
        """Store or replace the markdown of a note."""
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO docs (path, markdown, content_hash) VALUES (?, ?, ?) "
                "ON CONFLICT (path) DO UPDATE SET markdown = excluded.markdown, content_hash = excluded.content_hash",
                (doc.path, doc.markdown, doc.content_hash),
            )

    def get(self, path: str) -> StoredDoc | None:
        """Return the stored note, or None."""
        with self._db.transaction() as conn:
            row = conn.execute("SELECT markdown, content_hash FROM docs WHERE path = ?", (path,)).fetchone()
        if row is None:
            return None
        return StoredDoc(path=path, markdown=row[0], content_hash=row[1])

    def delete(self, path: str) -> None:
        """Forget a note; deleting an unknown path does nothing."""
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM docs WHERE path = ?", (path,))

    def paths(self) -> set[str]:
        """Return every stored path."""
        with self._db.transaction() as conn:
            return {row[0] for row in conn.execute("SELECT path FROM docs")}

    def paths_with_hash(self, content_hash: str) -> set[str]:
        """Return the stored paths whose content has this hash."""
        with self._db.transaction() as conn:
            return {row[0] for row in conn.execute("SELECT path FROM docs WHERE content_hash = ?", (content_hash,))}

    def clear(self) -> None:
        """Forget every note and the generation marker."""
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM docs")
            conn.execute("DELETE FROM meta WHERE key = 'generation'")

    def count(self) -> int:
        """Return the number of stored notes."""
        with self._db.transaction() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0])

    def generation(self) -> str | None:
        """Return the index generation marker, or None."""
        with self._db.transaction() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return None if row is None else str(row[0])

    def set_generation(self, marker: str) -> None:
        """Store the index generation marker."""
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('generation', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (marker,),
            )

    def close(self) -> None:
        """Close the database file."""
        self._db.close()
