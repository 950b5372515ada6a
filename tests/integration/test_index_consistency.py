"""Self-healing index: a lost docstore, lost points or lost watermarks are noticed cheaply and mended in place."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from app.wiring import Services, build_services
from core.settings import Settings
from sync.consistency import GENERATION, check_consistency
from tests.fakes import HashingEmbedder
from tests.redis_server import PrivateRedis, private_redis


def open_services(settings: Settings) -> Services:
    return build_services(settings, embedder=HashingEmbedder())


@pytest.fixture
def indexed(services: Services) -> Services:
    report = services.reindexer.run_once()
    assert report.added and not report.healed
    return services


def stored_texts(services: Services) -> dict[str, str]:
    return {path: doc.markdown for path in services.docstore.paths() if (doc := services.docstore.get(path))}


def test_a_fresh_index_is_consistent_and_counts_every_chunk(indexed: Services) -> None:
    found = check_consistency(indexed.watermarks, indexed.docstore, indexed.store)

    assert found.is_consistent
    assert found.notes == indexed.docstore.count() > 0
    assert found.chunks == found.expected_chunks == indexed.store.count()


def test_an_emptied_docstore_is_noticed_and_refilled_without_re_embedding(indexed: Services, vault: Path) -> None:
    before = stored_texts(indexed)
    indexed.docstore.clear()

    found = check_consistency(indexed.watermarks, indexed.docstore, indexed.store)
    assert not found.is_consistent
    assert "the docstore was emptied or replaced" in found.problems[0]

    report = indexed.reindexer.run_once()

    assert report.chunks_embedded == 0
    count = len(before)
    assert report.healed == [f"the docstore was missing {count} of {count} notes; restored {count} from the vault"]
    assert stored_texts(indexed) == before
    assert check_consistency(indexed.watermarks, indexed.docstore, indexed.store).is_consistent


def test_a_docstore_note_changed_on_disk_since_is_re_indexed_not_restored_stale(indexed: Services, vault: Path) -> None:
    path = sorted(indexed.docstore.paths())[0]
    indexed.docstore.clear()
    note = vault / path
    note.write_text(note.read_text(encoding="utf-8") + "\nA line added while the docstore was away.\n", "utf-8")

    report = indexed.reindexer.run_once()

    stored = indexed.docstore.get(path)
    assert stored is not None and stored.markdown.endswith("A line added while the docstore was away.\n")
    assert path in report.modified or path in report.restored
    assert check_consistency(indexed.watermarks, indexed.docstore, indexed.store).is_consistent


def test_notes_that_lost_their_points_are_re_indexed_and_only_their_chunks_re_embedded(indexed: Services) -> None:
    counts = indexed.store.chunk_counts()
    lost = sorted(counts)[:2]
    indexed.store.delete_paths(lost)

    found = check_consistency(indexed.watermarks, indexed.docstore, indexed.store)
    assert found.problems == (
        f"the vector store holds {found.chunks} chunks, the index accounts for {found.expected_chunks}",
    )

    report = indexed.reindexer.run_once()

    assert sorted(report.restored) == lost
    assert report.chunks_embedded == sum(counts[path] for path in lost)
    assert (report.added, report.modified) == ([], [])
    assert indexed.store.chunk_counts() == counts
    assert check_consistency(indexed.watermarks, indexed.docstore, indexed.store).is_consistent


def test_deleted_watermarks_are_rebuilt_from_the_vault_reusing_every_stored_vector(
    indexed: Services, settings: Settings
) -> None:
    counts = indexed.store.chunk_counts()
    texts = stored_texts(indexed)
    indexed.close()
    (settings.data_dir / "watermarks.sqlite").unlink()
    reopened = open_services(settings)
    try:
        found = check_consistency(reopened.watermarks, reopened.docstore, reopened.store)
        assert found.problems == (
            f"the watermarks are missing: {sum(counts.values())} chunks in the vector store belong to no known note",
        )

        report = reopened.reindexer.run_once()

        assert report.chunks_embedded == 0
        assert sorted(report.restored) == sorted(counts)
        assert report.added == []
        assert reopened.store.chunk_counts() == counts
        assert stored_texts(reopened) == texts
        assert check_consistency(reopened.watermarks, reopened.docstore, reopened.store).is_consistent
    finally:
        reopened.close()


def test_a_lost_vector_store_is_rebuilt_whole(indexed: Services, settings: Settings) -> None:
    counts = indexed.store.chunk_counts()
    indexed.close()
    shutil.rmtree(settings.data_dir / "qdrant-edge")
    reopened = open_services(settings)
    try:
        report = reopened.reindexer.run_once()

        assert report.rebuilt_reason == "the vector index is missing; rebuilding the whole index"
        assert report.chunks_embedded == sum(counts.values())
        assert reopened.store.chunk_counts() == counts
        assert check_consistency(reopened.watermarks, reopened.docstore, reopened.store).is_consistent
    finally:
        reopened.close()


def test_marks_written_before_counts_were_kept_get_them_without_re_indexing(indexed: Services) -> None:
    counts = indexed.store.chunk_counts()
    with indexed.watermarks._db.transaction() as conn:  # what an index built by an older version holds
        conn.execute("UPDATE watermarks SET chunks = NULL")
    indexed.watermarks.set_meta(GENERATION, "")
    found = check_consistency(indexed.watermarks, indexed.docstore, indexed.store)
    assert found.expected_chunks is None

    report = indexed.reindexer.run_once()

    assert (report.restored, report.chunks_indexed, report.healed) == ([], 0, [])
    assert {path: mark.chunks for path, mark in indexed.watermarks.all().items()} == counts
    assert check_consistency(indexed.watermarks, indexed.docstore, indexed.store).is_consistent


@pytest.fixture
def redis_settings(settings: Settings, tmp_path: Path) -> Iterator[tuple[Settings, PrivateRedis]]:
    with private_redis(tmp_path / "redis") as server:
        yield settings.model_copy(update={"redis_url": SecretStr(server.url)}), server


def test_a_redis_flushall_is_noticed_and_the_docstore_refilled(redis_settings: tuple[Settings, PrivateRedis]) -> None:
    settings, server = redis_settings
    services = open_services(settings)
    try:
        services.reindexer.run_once()
        texts = stored_texts(services)
        server.flushall()

        assert services.docstore.count() == 0
        assert not check_consistency(services.watermarks, services.docstore, services.store).is_consistent

        report = services.reindexer.run_once()

        assert report.chunks_embedded == 0 and report.healed
        assert stored_texts(services) == texts
        assert check_consistency(services.watermarks, services.docstore, services.store).is_consistent
    finally:
        services.close()
