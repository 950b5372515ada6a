"""The vault's link graph in SQLite: outgoing links per note, so backlinks and embed dependents stay current."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from core.domain import Link
from rag.notes.links import LinkResolver
from rag.sqlite_migrations import Migration, SqliteDatabase


def _create_links(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE links (source TEXT NOT NULL, target TEXT NOT NULL, name_key TEXT NOT NULL, "
        "heading TEXT, block TEXT, is_embed INTEGER NOT NULL, line INTEGER NOT NULL)"
    )
    conn.execute("CREATE INDEX links_source ON links(source)")
    conn.execute("CREATE INDEX links_name_key ON links(name_key)")


MIGRATIONS: tuple[Migration, ...] = (("m001_create_links", _create_links),)


def link_name_key(target: str) -> str:
    """Return the case-insensitive file-name key of a link target ("Folder/My Note.md" -> "my note")."""
    name = PurePosixPath(target).name
    return name.removesuffix(".md").removesuffix(".MD").lower()


class SqliteLinkIndex:
    """Stores each note's outgoing links; resolution happens at query time so renames are seen at once."""

    def __init__(self, path: Path) -> None:
        self._db = SqliteDatabase(path, MIGRATIONS)

    def replace_links(self, source: str, links: Sequence[Link]) -> None:
        """Replace the outgoing links of `source` (same-note links are not stored)."""
        rows = [
            (source, link.target, link_name_key(link.target), link.heading, link.block, int(link.is_embed), link.line)
            for link in links
            if link.target
        ]
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM links WHERE source = ?", (source,))
            conn.executemany("INSERT INTO links VALUES (?, ?, ?, ?, ?, ?, ?)", rows)

    def delete_source(self, source: str) -> None:
        """Forget the outgoing links of a note that left the vault."""
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM links WHERE source = ?", (source,))

    def clear(self) -> None:
        """Forget every link."""
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM links")

    def sources(self) -> set[str]:
        """Return every note that has stored links."""
        with self._db.transaction() as conn:
            return {row[0] for row in conn.execute("SELECT DISTINCT source FROM links")}

    def linking_sources(self, paths: Iterable[str], resolver: LinkResolver, *, embeds_only: bool = False) -> set[str]:
        """Return the notes whose links (or only embeds) resolve to any of `paths` under `resolver`."""
        wanted = set(paths)
        keys = sorted({link_name_key(path) for path in wanted})
        if not keys:
            return set()
        placeholders = ",".join("?" * len(keys))
        query = f"SELECT source, target FROM links WHERE name_key IN ({placeholders})"
        if embeds_only:
            query += " AND is_embed = 1"
        with self._db.transaction() as conn:
            rows = conn.execute(query, keys).fetchall()
        return {source for source, target in rows if resolver.resolve(target, source_path=source).path in wanted}

    def backlinks(self, path: str, resolver: LinkResolver) -> list[str]:
        """Return the notes linking to `path`, sorted."""
        return sorted(self.linking_sources([path], resolver) - {path})

    def outgoing(self, source: str) -> list[tuple[str, str | None, bool]]:
        """Return (target as written, heading, is_embed) of a note's links in file order."""
        with self._db.transaction() as conn:
            rows = conn.execute(
                "SELECT target, heading, is_embed FROM links WHERE source = ? ORDER BY line", (source,)
            ).fetchall()
        return [(target, heading, bool(is_embed)) for target, heading, is_embed in rows]

    def close(self) -> None:
        """Close the connection."""
        self._db.close()
