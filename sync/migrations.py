"""Named, append-only schema migrations of the watermark database: add steps at the end, never edit released ones."""

from __future__ import annotations

import sqlite3

from rag.sqlite_migrations import Migration


def _create_watermarks(conn: sqlite3.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE watermarks (
            path TEXT PRIMARY KEY,
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL,
            sha256 TEXT,
            indexed_at TEXT,
            last_error TEXT
        )
        """
    )


def _create_meta(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def _add_chunks_and_warnings(conn: sqlite3.Connection) -> None:
    # NULL chunks: written before counts were kept; the next run fills them in from the vector store.
    conn.execute("ALTER TABLE watermarks ADD COLUMN chunks INTEGER")
    conn.execute("ALTER TABLE watermarks ADD COLUMN warnings TEXT")  # a JSON list of strings, NULL for none


MIGRATIONS: tuple[Migration, ...] = (
    ("m001_create_watermarks", _create_watermarks),
    ("m002_create_meta", _create_meta),
    ("m003_add_chunks_and_warnings", _add_chunks_and_warnings),
)
