"""Diversity by note through the real retriever and embedded store: a long note no longer fills every slot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.wiring import Services, build_services
from core.settings import Settings
from tests.fakes import HashingEmbedder

LONG_NOTE = "\n\n".join(
    f"## Week {week}\n\nI feed the sourdough starter with rye flour at 21:00; the starter peaks by morning."
    for week in range(1, 9)
)
SHORT_NOTE = "# Bakery visit\n\nThe baker keeps a sourdough starter too, and buys her flour from the mill."


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Starter Log.md").write_text(f"# Starter Log\n\n{LONG_NOTE}\n", encoding="utf-8")
    (root / "Bakery.md").write_text(SHORT_NOTE + "\n", encoding="utf-8")
    (root / "Garden.md").write_text("# Garden\n\nPlant garlic in October.\n", encoding="utf-8")
    return root


def indexed(vault: Path, data_dir: Path, per_note: int) -> Services:
    settings = Settings(_env_file=None, vault_path=vault, data_dir=data_dir, max_chunks_per_note=per_note)
    services = build_services(settings, embedder=HashingEmbedder())
    services.reindexer.run_once()
    return services


@pytest.fixture
def without_limit(vault: Path, tmp_path: Path) -> Iterator[Services]:
    services = indexed(vault, tmp_path / "data-off", per_note=0)
    yield services
    services.close()


@pytest.fixture
def with_limit(vault: Path, tmp_path: Path) -> Iterator[Services]:
    services = indexed(vault, tmp_path / "data-on", per_note=2)
    yield services
    services.close()


QUESTION = "When do I feed the sourdough starter with rye flour?"


def test_without_the_limit_the_long_note_fills_every_slot(without_limit: Services) -> None:
    paths = [hit.chunk.path for hit in without_limit.retriever.search(QUESTION, k=4)]

    assert paths == ["Starter Log.md"] * 4  # the crowding the limit exists for


def test_with_the_limit_the_second_note_gets_a_slot(with_limit: Services) -> None:
    paths = [hit.chunk.path for hit in with_limit.retriever.search(QUESTION, k=4)]

    assert paths.count("Starter Log.md") == 2
    assert "Bakery.md" in paths
    assert len(paths) == 4


def test_a_search_filtered_to_one_note_still_gets_k_of_its_chunks(with_limit: Services) -> None:
    from core.domain import SearchFilters

    hits = with_limit.retriever.search(QUESTION, k=5, filters=SearchFilters(paths=("Starter Log.md",)))

    assert [hit.chunk.path for hit in hits] == ["Starter Log.md"] * 5


def test_passages_take_a_far_stronger_chunk_of_the_best_note_over_a_weak_hit(with_limit: Services) -> None:
    # Three chunks of the log hold every word of the question; the garden note only shares "I" at best.
    retriever = with_limit.retriever
    query = retriever.prepare(QUESTION)

    as_list = retriever.search_for(query, k=4)
    as_passages = retriever.search_for(query, k=4, passages=True)

    assert [hit.chunk.path for hit in as_list].count("Starter Log.md") == 2
    listed = {(hit.chunk.path, hit.chunk.index) for hit in as_list}
    added = [hit for hit in as_passages if (hit.chunk.path, hit.chunk.index) not in listed]
    kept = {(hit.chunk.path, hit.chunk.index) for hit in as_passages}
    dropped = [hit for hit in as_list if (hit.chunk.path, hit.chunk.index) not in kept]
    assert added and all(hit.chunk.path == "Starter Log.md" for hit in added)
    assert len(dropped) == len(added) and all(hit.chunk.path != "Starter Log.md" for hit in dropped)
    assert min(hit.score for hit in added) >= 2 * max(hit.score for hit in dropped)
    assert len(as_passages) == 4
