"""Contract suite: the SQLite and Redis docstores keep verbatim markdown and dedup sets the same way."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis

from core.domain import StoredDoc
from core.errors import InvalidRequest, UpstreamUnavailable
from core.ports import DocStore
from core.settings import Settings, StoreSettings
from rag.docstore import build_docstore
from rag.docstore.redis import RedisDocStore, redact_url
from rag.docstore.sqlite import SqliteDocStore

# A vault outside every test's DATA_DIR (Settings refuses a vault inside it).
SAMPLE_VAULT = Path(__file__).resolve().parents[2] / "sample_vault"

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")
BOGUS_PASSWORD = "hunter2-s3cret-Pw"
CLOSED_PORT_URL = f"redis://librarian:{BOGUS_PASSWORD}@127.0.0.1:1/0"

ALPHA = StoredDoc(path="Projects/Alpha.md", markdown="# Alpha\n\nLaunch plan.\n", content_hash="h-alpha")
BETA = StoredDoc(path="Projects/Beta.md", markdown="# Beta\n", content_hash="h-beta")


def _store_settings(data_dir: Path, redis_url: str | None) -> StoreSettings:
    return Settings(_env_file=None, data_dir=data_dir, vault_path=SAMPLE_VAULT, redis_url=redis_url).store


def _connect_redis_or_skip() -> redis.Redis:
    client = redis.Redis.from_url(REDIS_URL, decode_responses=True, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.exceptions.RedisError as exc:
        client.close()
        reason = f"Redis is not reachable at {redact_url(REDIS_URL)} ({exc}); set REDIS_URL or start redis-server"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}. CI is set, so the Redis contract tests must run.")
        pytest.skip(reason)
    return client


def _delete_namespace(client: redis.Redis, namespace: str) -> None:
    keys = list(client.scan_iter(match=f"{namespace}:*"))
    if keys:
        client.delete(*keys)


@pytest.fixture
def redis_client() -> Iterator[redis.Redis]:
    client = _connect_redis_or_skip()
    yield client
    client.close()


@pytest.fixture
def namespace(redis_client: redis.Redis) -> Iterator[str]:
    name = f"test-{uuid.uuid4().hex}"
    yield name
    _delete_namespace(redis_client, name)


@pytest.fixture(params=["sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[DocStore]:
    docstore: DocStore
    if request.param == "sqlite":
        docstore = SqliteDocStore(tmp_path / "docstore.sqlite")
    else:
        client = request.getfixturevalue("redis_client")
        docstore = RedisDocStore(client, namespace=request.getfixturevalue("namespace"))
    yield docstore
    docstore.close()


def test_get_returns_none_for_unknown_path(store: DocStore) -> None:
    assert store.get("Nowhere.md") is None


def test_put_then_get_returns_the_same_doc(store: DocStore) -> None:
    store.put(ALPHA)
    assert store.get(ALPHA.path) == ALPHA


def test_put_replaces_the_stored_doc(store: DocStore) -> None:
    store.put(ALPHA)
    changed = StoredDoc(path=ALPHA.path, markdown="# Alpha v2\n", content_hash="h-alpha-2")
    store.put(changed)
    assert store.get(ALPHA.path) == changed
    assert store.paths() == {ALPHA.path}


def test_put_of_the_same_doc_twice_is_idempotent(store: DocStore) -> None:
    store.put(ALPHA)
    store.put(ALPHA)
    assert store.paths() == {ALPHA.path}
    assert store.paths_with_hash(ALPHA.content_hash) == {ALPHA.path}


def test_paths_lists_every_stored_path(store: DocStore) -> None:
    assert store.paths() == set()
    store.put(ALPHA)
    store.put(BETA)
    assert store.paths() == {ALPHA.path, BETA.path}


def test_delete_forgets_the_doc_and_its_path(store: DocStore) -> None:
    store.put(ALPHA)
    store.put(BETA)
    store.delete(ALPHA.path)
    assert store.get(ALPHA.path) is None
    assert store.paths() == {BETA.path}
    assert store.get(BETA.path) == BETA


def test_delete_of_an_unknown_path_does_nothing(store: DocStore) -> None:
    store.put(ALPHA)
    store.delete("Nowhere.md")
    assert store.paths() == {ALPHA.path}


def test_paths_with_hash_groups_notes_with_identical_content(store: DocStore) -> None:
    copy = StoredDoc(path="Archive/Alpha copy.md", markdown=ALPHA.markdown, content_hash=ALPHA.content_hash)
    store.put(ALPHA)
    store.put(copy)
    store.put(BETA)
    assert store.paths_with_hash(ALPHA.content_hash) == {ALPHA.path, copy.path}
    assert store.paths_with_hash(BETA.content_hash) == {BETA.path}
    assert store.paths_with_hash("h-unknown") == set()


def test_put_of_a_changed_doc_moves_its_path_to_the_new_hash(store: DocStore) -> None:
    copy = StoredDoc(path="Archive/Alpha copy.md", markdown=ALPHA.markdown, content_hash=ALPHA.content_hash)
    store.put(ALPHA)
    store.put(copy)
    store.put(StoredDoc(path=copy.path, markdown="edited\n", content_hash="h-edited"))
    assert store.paths_with_hash(ALPHA.content_hash) == {ALPHA.path}
    assert store.paths_with_hash("h-edited") == {copy.path}


def test_delete_of_the_last_path_empties_the_hash_set(store: DocStore) -> None:
    store.put(ALPHA)
    store.put(StoredDoc(path=ALPHA.path, markdown="v2", content_hash="h-v2"))
    assert store.paths_with_hash(ALPHA.content_hash) == set()
    store.delete(ALPHA.path)
    assert store.paths_with_hash("h-v2") == set()


def test_clear_forgets_every_doc_and_hash(store: DocStore) -> None:
    store.put(ALPHA)
    store.put(BETA)
    store.clear()
    assert store.paths() == set()
    assert store.get(ALPHA.path) is None
    assert store.paths_with_hash(ALPHA.content_hash) == set()
    store.put(BETA)
    assert store.paths() == {BETA.path}


def test_count_follows_puts_and_deletes(store: DocStore) -> None:
    assert store.count() == 0
    store.put(ALPHA)
    store.put(BETA)
    store.put(ALPHA)  # a replacement is still one note
    assert store.count() == 2
    store.delete(ALPHA.path)
    assert store.count() == 1


def test_generation_is_unset_until_set_and_survives_puts(store: DocStore) -> None:
    assert store.generation() is None
    store.set_generation("g1")
    store.put(ALPHA)
    assert store.generation() == "g1"
    store.set_generation("g2")
    assert store.generation() == "g2"


def test_clear_forgets_the_generation_too(store: DocStore) -> None:
    store.set_generation("g1")
    store.put(ALPHA)
    store.clear()
    assert store.generation() is None
    assert store.count() == 0


def test_redis_flushall_loses_the_generation_and_the_notes(redis_client: redis.Redis, namespace: str) -> None:
    # What a Redis restarted without persistence does to the docstore; the re-indexer must notice it.
    store = RedisDocStore(redis_client, namespace=namespace)
    store.set_generation("g1")
    store.put(ALPHA)
    _delete_namespace(redis_client, namespace)
    assert (store.generation(), store.count(), store.get(ALPHA.path)) == (None, 0, None)


@pytest.mark.parametrize(
    ("path", "markdown"),
    [
        ("Tagebuch/Übermäßige Größe.md", "Grüße aus Köln: äöüÄÖÜß\n"),
        ("日记/東京 メモ.md", "# 見出し\n\n中文内容，日本語のテキスト。\n"),
        ("Ideas/🚀 Launch 🎉.md", "Emoji 👩‍👩‍👧‍👦 and flags 🇩🇪 survive\n"),
        ("Notes/Windows line endings.md", "line one\r\nline two  \r\n\ttrailing tab\t\n\n  "),
        ("Odd/name with * ? [brackets] and : colon.md", "glob characters in the path\n"),
    ],
)
def test_unicode_paths_and_contents_round_trip_exactly(store: DocStore, path: str, markdown: str) -> None:
    doc = StoredDoc(path=path, markdown=markdown, content_hash=f"h-{path}")
    store.put(doc)
    assert store.get(path) == doc
    assert store.paths() == {path}
    assert store.paths_with_hash(doc.content_hash) == {path}


def test_large_doc_round_trips_exactly(store: DocStore) -> None:
    line = "Ünïcödé line with trailing spaces and CRLF 日本 🚀   \r\n"
    markdown = line * (2_000_000 // len(line.encode())) + "end without newline \t "
    assert len(markdown.encode()) >= 1_990_000
    doc = StoredDoc(path="Big/Huge note.md", markdown=markdown, content_hash="h-big")
    store.put(doc)
    fetched = store.get(doc.path)
    assert fetched is not None
    assert fetched.markdown == markdown


def test_puts_from_worker_threads_all_land(store: DocStore) -> None:
    docs = [StoredDoc(path=f"Daily/{i:03}.md", markdown=f"day {i}\n", content_hash=f"h{i % 7}") for i in range(120)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(store.put, docs))
    assert store.paths() == {doc.path for doc in docs}
    assert store.paths_with_hash("h3") == {doc.path for doc in docs if doc.content_hash == "h3"}


def test_sqlite_docstore_keeps_docs_across_reopen(tmp_path: Path) -> None:
    first = SqliteDocStore(tmp_path / "docstore.sqlite")
    first.put(ALPHA)
    first.put(BETA)
    first.close()
    reopened = SqliteDocStore(tmp_path / "docstore.sqlite")
    try:
        assert reopened.get(ALPHA.path) == ALPHA
        assert reopened.paths() == {ALPHA.path, BETA.path}
        assert reopened.paths_with_hash(BETA.content_hash) == {BETA.path}
    finally:
        reopened.close()


def test_redis_keys_follow_the_documented_layout(redis_client: redis.Redis, namespace: str) -> None:
    store = RedisDocStore(redis_client, namespace=namespace)
    store.put(ALPHA)
    assert redis_client.hgetall(f"{namespace}:doc:{ALPHA.path}") == {
        "markdown": ALPHA.markdown,
        "content_hash": ALPHA.content_hash,
    }
    assert redis_client.smembers(f"{namespace}:paths") == {ALPHA.path}
    assert redis_client.smembers(f"{namespace}:hash:{ALPHA.content_hash}") == {ALPHA.path}
    store.delete(ALPHA.path)
    assert list(redis_client.scan_iter(match=f"{namespace}:*")) == []


def test_redis_clear_leaves_other_namespaces_intact(redis_client: redis.Redis, namespace: str) -> None:
    neighbour_namespace = f"{namespace}x"  # shares the prefix, so a sloppy pattern would hit it
    mine = RedisDocStore(redis_client, namespace=namespace)
    neighbour = RedisDocStore(redis_client, namespace=neighbour_namespace)
    try:
        mine.put(ALPHA)
        neighbour.put(BETA)
        redis_client.set("unrelated-key", "stays")
        mine.clear()
        assert mine.paths() == set()
        assert neighbour.get(BETA.path) == BETA
        assert neighbour.paths_with_hash(BETA.content_hash) == {BETA.path}
        assert redis_client.get("unrelated-key") == "stays"
    finally:
        _delete_namespace(redis_client, neighbour_namespace)
        redis_client.delete("unrelated-key")


def test_redis_docstore_works_with_a_client_returning_bytes(namespace: str) -> None:
    client = redis.Redis.from_url(REDIS_URL)  # no decode_responses
    store = RedisDocStore(client, namespace=namespace)
    try:
        store.put(ALPHA)
        assert store.get(ALPHA.path) == ALPHA
        assert store.paths_with_hash(ALPHA.content_hash) == {ALPHA.path}
    finally:
        store.close()


def test_redis_namespace_with_a_colon_is_rejected(redis_client: redis.Redis) -> None:
    with pytest.raises(ValueError, match="namespace"):
        RedisDocStore(redis_client, namespace="a:b")


@pytest.mark.parametrize(
    "operation",
    ["put", "get", "delete", "paths", "paths_with_hash", "clear"],
)
def test_unreachable_redis_raises_upstream_unavailable_without_the_password(operation: str) -> None:
    store = build_docstore(_store_settings(Path("/nonexistent-data-dir"), CLOSED_PORT_URL))
    calls = {
        "put": lambda: store.put(ALPHA),
        "get": lambda: store.get(ALPHA.path),
        "delete": lambda: store.delete(ALPHA.path),
        "paths": store.paths,
        "paths_with_hash": lambda: store.paths_with_hash("h"),
        "clear": store.clear,
    }
    try:
        with pytest.raises(UpstreamUnavailable) as caught:
            calls[operation]()
    finally:
        store.close()
    assert caught.value.service == "redis"
    assert "127.0.0.1:1" in str(caught.value)
    assert BOGUS_PASSWORD not in str(caught.value)
    assert BOGUS_PASSWORD not in repr(caught.value.__cause__)


def test_invalid_redis_url_raises_invalid_request_without_the_password() -> None:
    with pytest.raises(InvalidRequest) as caught:
        RedisDocStore.from_url(f"http://user:{BOGUS_PASSWORD}@127.0.0.1:6379/0")
    assert "http://user:***@127.0.0.1:6379/0" in str(caught.value)
    assert BOGUS_PASSWORD not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("redis://user:pw@host:6379/0", "redis://user:***@host:6379/0"),
        ("redis://:pw@host:6379", "redis://:***@host:6379"),
        ("redis://host:6379/2", "redis://host:6379/2"),
        ("unix:///run/redis.sock?db=1&password=pw", "unix:///run/redis.sock?db=1&password=***"),
        ("redis://user:pw@[::1:6379", "<unparseable URL>"),
    ],
)
def test_redact_url_hides_the_password(url: str, expected: str) -> None:
    assert redact_url(url) == expected


def test_build_docstore_uses_sqlite_in_data_dir_without_redis_url(tmp_path: Path) -> None:
    store = build_docstore(_store_settings(tmp_path / "data", None))
    try:
        assert isinstance(store, SqliteDocStore)
        store.put(ALPHA)
    finally:
        store.close()
    assert (tmp_path / "data" / "docstore.sqlite").is_file()


def test_build_docstore_uses_redis_when_redis_url_is_set(tmp_path: Path, redis_client: redis.Redis) -> None:
    store = build_docstore(_store_settings(tmp_path, REDIS_URL))
    try:
        assert isinstance(store, RedisDocStore)
        assert store.get(f"missing-{uuid.uuid4().hex}.md") is None
    finally:
        store.close()
    assert not (tmp_path / "docstore.sqlite").exists()
