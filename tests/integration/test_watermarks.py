"""SqliteWatermarkStore on tmp_path: pending/success/error rows, meta, persistence and named migrations."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from core.domain import Watermark
from core.errors import InvalidRequest
from rag.sqlite_migrations import Migration, SqliteDatabase, applied_migrations, apply_migrations
from sync.migrations import MIGRATIONS
from sync.watermarks import SqliteWatermarkStore

# Migrations already released; editing, renaming or reordering them would corrupt existing databases.
RELEASED_MIGRATIONS = ["m001_create_watermarks", "m002_create_meta"]

AT = datetime(2025, 3, 14, 9, 26, 53, tzinfo=UTC)
LATER = AT + timedelta(hours=2)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "watermarks.sqlite"


@pytest.fixture
def store(db_path: Path) -> Iterator[SqliteWatermarkStore]:
    watermarks = SqliteWatermarkStore(db_path)
    yield watermarks
    watermarks.close()


def _recorded_migrations(db_path: Path) -> list[str]:
    conn = sqlite3.connect(db_path)
    try:
        return applied_migrations(conn)
    finally:
        conn.close()


def test_new_store_has_no_watermarks_or_meta(store: SqliteWatermarkStore) -> None:
    assert store.all() == {}
    assert store.get_meta("model") is None


def test_mark_pending_creates_a_pending_row(store: SqliteWatermarkStore) -> None:
    store.mark_pending("A.md", mtime_ns=111, size=10)
    assert store.all() == {
        "A.md": Watermark(path="A.md", mtime_ns=111, size=10, sha256=None, indexed_at=None, last_error=None)
    }
    assert store.all()["A.md"].is_pending


def test_record_success_stores_hash_stat_and_time(store: SqliteWatermarkStore) -> None:
    store.mark_pending("A.md", mtime_ns=111, size=10)
    store.record_success("A.md", mtime_ns=222, size=12, sha256="abc", at=AT)
    mark = store.all()["A.md"]
    assert mark == Watermark(path="A.md", mtime_ns=222, size=12, sha256="abc", indexed_at=AT, last_error=None)
    assert not mark.is_pending


def test_mark_pending_after_success_drops_the_hash_but_keeps_indexed_at(store: SqliteWatermarkStore) -> None:
    store.record_success("A.md", mtime_ns=222, size=12, sha256="abc", at=AT)
    store.mark_pending("A.md", mtime_ns=333, size=14)
    mark = store.all()["A.md"]
    assert (mark.mtime_ns, mark.size, mark.sha256, mark.indexed_at) == (333, 14, None, AT)
    assert mark.is_pending


def test_record_error_keeps_the_reason_and_is_not_pending(store: SqliteWatermarkStore) -> None:
    store.record_success("A.md", mtime_ns=222, size=12, sha256="abc", at=AT)
    store.record_error("A.md", mtime_ns=333, size=2_000_001, error="note too large", at=LATER)
    mark = store.all()["A.md"]
    assert mark == Watermark(
        path="A.md", mtime_ns=333, size=2_000_001, sha256=None, indexed_at=LATER, last_error="note too large"
    )
    assert not mark.is_pending


def test_mark_pending_clears_a_previous_error(store: SqliteWatermarkStore) -> None:
    store.record_error("A.md", mtime_ns=1, size=1, error="boom", at=AT)
    store.mark_pending("A.md", mtime_ns=2, size=2)
    mark = store.all()["A.md"]
    assert mark.last_error is None
    assert mark.is_pending


def test_record_success_after_an_error_clears_the_error(store: SqliteWatermarkStore) -> None:
    store.record_error("A.md", mtime_ns=1, size=1, error="boom", at=AT)
    store.record_success("A.md", mtime_ns=2, size=2, sha256="fixed", at=LATER)
    mark = store.all()["A.md"]
    assert (mark.sha256, mark.last_error, mark.indexed_at) == ("fixed", None, LATER)


def test_datetimes_come_back_timezone_aware_in_utc(store: SqliteWatermarkStore) -> None:
    berlin_summer = timezone(timedelta(hours=2))
    local = datetime(2025, 7, 1, 12, 0, 0, 123456, tzinfo=berlin_summer)
    store.record_success("A.md", mtime_ns=1, size=1, sha256="x", at=local)
    indexed_at = store.all()["A.md"].indexed_at
    assert indexed_at is not None
    assert indexed_at.utcoffset() == timedelta(0)
    assert indexed_at == local
    assert indexed_at.hour == 10


def test_naive_datetimes_are_rejected(store: SqliteWatermarkStore) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        store.record_success("A.md", mtime_ns=1, size=1, sha256="x", at=datetime(2025, 1, 1))
    assert store.all() == {}


def test_unicode_paths_are_kept_exactly(store: SqliteWatermarkStore) -> None:
    paths = ["Tagebuch/Größe.md", "日记/東京.md", "Ideas/🚀 Launch.md", "Notes/note.md", "Notes/Note.md"]
    for path in paths:
        store.record_success(path, mtime_ns=1, size=1, sha256=path, at=AT)
    assert {path: mark.sha256 for path, mark in store.all().items()} == {path: path for path in paths}


def test_delete_forgets_only_that_path(store: SqliteWatermarkStore) -> None:
    store.record_success("A.md", mtime_ns=1, size=1, sha256="a", at=AT)
    store.record_success("B.md", mtime_ns=1, size=1, sha256="b", at=AT)
    store.delete("A.md")
    store.delete("Nowhere.md")
    assert set(store.all()) == {"B.md"}


def test_clear_forgets_every_file_but_keeps_meta(store: SqliteWatermarkStore) -> None:
    store.record_success("A.md", mtime_ns=1, size=1, sha256="a", at=AT)
    store.mark_pending("B.md", mtime_ns=1, size=1)
    store.set_meta("model", "minilm/384")
    store.clear()
    assert store.all() == {}
    assert store.get_meta("model") == "minilm/384"


def test_set_meta_stores_and_overwrites_values(store: SqliteWatermarkStore) -> None:
    store.set_meta("model", "minilm/384")
    store.set_meta("last_run", "2025-03-14T09:26:53+00:00")
    store.set_meta("model", "bge-small/384")
    assert store.get_meta("model") == "bge-small/384"
    assert store.get_meta("last_run") == "2025-03-14T09:26:53+00:00"
    assert store.get_meta("missing") is None


def test_watermarks_and_meta_persist_across_reopen(db_path: Path) -> None:
    first = SqliteWatermarkStore(db_path)
    first.record_success("A.md", mtime_ns=5, size=6, sha256="a", at=AT)
    first.mark_pending("B.md", mtime_ns=7, size=8)
    first.set_meta("model", "minilm/384")
    first.close()
    reopened = SqliteWatermarkStore(db_path)
    try:
        assert reopened.all() == {
            "A.md": Watermark(path="A.md", mtime_ns=5, size=6, sha256="a", indexed_at=AT),
            "B.md": Watermark(path="B.md", mtime_ns=7, size=8, sha256=None, indexed_at=None),
        }
        assert reopened.get_meta("model") == "minilm/384"
    finally:
        reopened.close()


def test_writes_from_worker_threads_all_land(store: SqliteWatermarkStore) -> None:
    def index(number: int) -> None:
        path = f"Daily/{number:03}.md"
        store.mark_pending(path, mtime_ns=number, size=number)
        store.record_success(path, mtime_ns=number, size=number, sha256=f"h{number}", at=AT)

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(index, range(100)))
    marks = store.all()
    assert len(marks) == 100
    assert all(mark.sha256 == f"h{mark.mtime_ns}" for mark in marks.values())


def test_migrations_are_applied_once_and_recorded(db_path: Path) -> None:
    SqliteWatermarkStore(db_path).close()
    SqliteWatermarkStore(db_path).close()
    assert _recorded_migrations(db_path) == [name for name, _ in MIGRATIONS]


def test_recorded_migrations_are_a_prefix_of_the_code_list(db_path: Path) -> None:
    SqliteWatermarkStore(db_path).close()
    names = [name for name, _ in MIGRATIONS]
    recorded = _recorded_migrations(db_path)
    assert recorded == names[: len(recorded)]
    assert names[: len(RELEASED_MIGRATIONS)] == RELEASED_MIGRATIONS
    assert len(set(names)) == len(names)


def test_opening_an_older_database_applies_only_the_new_migrations(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path)
    try:
        assert apply_migrations(conn, MIGRATIONS[:1]) == [MIGRATIONS[0][0]]
        conn.execute("INSERT INTO watermarks (path, mtime_ns, size, sha256) VALUES ('Old.md', 1, 2, 'old')")
        conn.commit()
        assert apply_migrations(conn, MIGRATIONS) == [name for name, _ in MIGRATIONS[1:]]
        assert apply_migrations(conn, MIGRATIONS) == []
    finally:
        conn.close()
    store = SqliteWatermarkStore(db_path)
    try:
        assert store.all()["Old.md"].sha256 == "old"
    finally:
        store.close()


def test_a_database_from_an_unknown_version_is_refused(db_path: Path) -> None:
    SqliteWatermarkStore(db_path).close()
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("INSERT INTO _migrations (name, applied_at) VALUES ('m999_from_the_future', 'x')")
    conn.close()
    with pytest.raises(InvalidRequest, match="m999_from_the_future"):
        SqliteWatermarkStore(db_path)


def test_a_failing_migration_is_rolled_back_and_not_recorded(tmp_path: Path) -> None:
    def create_table(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE kept (x INTEGER)")

    def half_done(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half (x INTEGER)")
        raise RuntimeError("migration bug")

    migrations: list[Migration] = [("m001_kept", create_table), ("m002_half", half_done)]
    with pytest.raises(RuntimeError, match="migration bug"):
        SqliteDatabase(tmp_path / "x.sqlite", migrations)
    conn = sqlite3.connect(tmp_path / "x.sqlite")
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert applied_migrations(conn) == ["m001_kept"]
    finally:
        conn.close()
    assert "kept" in tables
    assert "half" not in tables


def test_duplicate_migration_names_are_refused(tmp_path: Path) -> None:
    def noop(conn: sqlite3.Connection) -> None:
        conn.execute("SELECT 1")

    with pytest.raises(ValueError, match="unique"):
        SqliteDatabase(tmp_path / "x.sqlite", [("m001", noop), ("m001", noop)])


def test_a_file_that_is_not_sqlite_is_reported_clearly(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(b"definitely not a database" * 100)
    with pytest.raises(InvalidRequest, match="cannot open the SQLite database"):
        SqliteWatermarkStore(db_path)
