"""Term coverage and the vault's noise level on a real store (qdrant-client `:memory:`), and the gate using both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from app.wiring import Services, build_services
from core.domain import Chunk, EmbeddedChunk, Embedding, IndexIdentity, SearchFilters, SparseVector
from core.settings import Settings
from rag.answer.relevance_gate import RelevanceGate
from rag.answer.term_coverage import measure_term_coverage
from rag.answer.vault_noise import PROBE_QUESTIONS, VaultNoise
from rag.stores.server import ServerVectorStore
from tests.fakes import HashingEmbedder

DIM = 4
RARE, COMMON, ABSENT, SPELLED = 11, 12, 13, 14  # SPELLED: RARE spelled otherwise


def point(path: str, index: int, terms: tuple[int, ...]) -> EmbeddedChunk:
    chunk = Chunk(path=path, title=path, heading_path=(), anchor=f"[[{path}]]", text=path, index=index)
    sparse = SparseVector(terms, tuple(1.0 for _ in terms))
    return EmbeddedChunk(chunk=chunk, embedding=Embedding((1.0, 0.0, 0.0, 0.0), sparse), embed_key=f"{path}:{index}")


@pytest.fixture
def store() -> Iterator[ServerVectorStore]:
    opened = ServerVectorStore(QdrantClient(":memory:"), "vault")
    opened.reset(IndexIdentity("test/tiny", DIM))
    # COMMON is in every chunk, RARE in one note only, ABSENT nowhere.
    opened.upsert(
        [point(f"Note{n}.md", 0, (COMMON,)) for n in range(40)]
        + [point("Rare.md", 0, (RARE, COMMON)), point("Spelled.md", 0, (SPELLED,))]
    )
    yield opened
    opened.close()


def test_a_rare_word_found_counts_far_more_than_a_common_one(store: ServerVectorStore) -> None:
    rare_found = measure_term_coverage(store, [RARE, COMMON], ["Rare.md"])
    common_only = measure_term_coverage(store, [RARE, COMMON], ["Note1.md"])

    assert (rare_found.terms, rare_found.found, common_only.found) == (2, 2, 1)
    assert rare_found.share == pytest.approx(1.0)
    assert common_only.share is not None and common_only.share < 0.2


def test_a_word_the_vault_never_uses_weighs_most(store: ServerVectorStore) -> None:
    coverage = measure_term_coverage(store, [ABSENT, COMMON], ["Note1.md", "Note2.md"])

    assert coverage.found == 1
    assert coverage.share is not None and coverage.share < 0.2


def test_a_word_spelled_otherwise_in_the_notes_is_found_and_weighed_once(store: ServerVectorStore) -> None:
    # The question says ABSENT ("authorise"); its other spelling SPELLED ("authorize") is searched too.
    alone = measure_term_coverage(store, [ABSENT, COMMON], ["Spelled.md"])
    paired = measure_term_coverage(store, [ABSENT, SPELLED, COMMON], ["Spelled.md"], alternates=[(SPELLED, ABSENT)])

    assert (alone.terms, alone.found) == (2, 0)
    assert (paired.terms, paired.found) == (2, 1)
    assert paired.share is not None and paired.share > 0.8  # one note in 42 holds it: a rare word, found


def test_a_pair_of_spellings_is_weighed_by_the_chunks_holding_either(store: ServerVectorStore) -> None:
    # Found in Rare.md under one spelling: the pair is as rare as the two notes holding either, not unseen.
    paired = measure_term_coverage(store, [SPELLED, RARE, COMMON], ["Note1.md"], alternates=[(RARE, SPELLED)])
    one_spelling = measure_term_coverage(store, [SPELLED, COMMON], ["Note1.md"])

    assert paired.share is not None and one_spelling.share is not None
    assert paired.found == one_spelling.found == 1
    assert paired.share > one_spelling.share  # held by two chunks, not one: less rare, so less missed


def test_no_terms_or_no_notes_leave_the_share_unmeasured(store: ServerVectorStore) -> None:
    assert measure_term_coverage(store, [], ["Rare.md"]).share is None
    assert measure_term_coverage(store, [RARE], []).share is None


def test_the_rarity_is_counted_among_the_filtered_notes(store: ServerVectorStore) -> None:
    only_rare = measure_term_coverage(store, [RARE, COMMON], ["Note1.md"], filters=SearchFilters(paths=("Rare.md",)))
    everywhere = measure_term_coverage(store, [RARE, COMMON], ["Note1.md"])

    # Among one note both words are equally common, so the common one found carries more of the weight.
    assert only_rare.share is not None and everywhere.share is not None
    assert only_rare.share > everywhere.share


@pytest.fixture
def indexed(tmp_path: Path) -> Iterator[Services]:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Sourdough.md").write_text(
        "# Sourdough\n\nFeed the starter with rye flour the evening before a bake; it peaks by morning.\n"
        "Bake in a Dutch oven at 250 degrees, twenty minutes with the lid on.\n",
        encoding="utf-8",
    )
    (vault / "Garden.md").write_text("# Garden\n\nPlant the garlic in October, cloves 15 cm apart.\n", encoding="utf-8")
    services = build_services(
        Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data"), embedder=HashingEmbedder()
    )
    services.reindexer.run_once()
    yield services
    services.close()


def test_the_noise_level_is_measured_once_per_index_size_and_filter(indexed: Services) -> None:
    noise = VaultNoise(indexed.embedder, indexed.store)
    everywhere = noise.level()
    in_garden = noise.level(SearchFilters(paths=("Garden.md",)))

    assert everywhere is not None and in_garden is not None
    assert noise.level() == everywhere
    assert in_garden <= everywhere  # fewer notes come less close
    assert noise.level(SearchFilters(folder="Nowhere")) is None


def test_the_gate_measures_the_words_found_against_the_same_noise_level(indexed: Services) -> None:
    gate = RelevanceGate(indexed.embedder, indexed.store, floor=-0.1, term_weight=0.25)
    found = gate.measure("feed the starter with rye flour before a bake")
    missing = gate.measure("feed the starter with kombucha scoby tea")

    assert found.term_share == pytest.approx(1.0)
    assert missing.term_share is not None and missing.term_share < 0.5
    assert found.noise == missing.noise is not None


def test_missing_words_turn_a_cosine_that_clears_the_floor_into_a_refusal(indexed: Services) -> None:
    question = "feed the starter with kombucha scoby tea"  # shares "feed the starter with" with the note
    dense_only = RelevanceGate(indexed.embedder, indexed.store, floor=-0.1, term_weight=0.0)
    with_words = RelevanceGate(indexed.embedder, indexed.store, floor=-0.1, term_weight=1.0)

    assert dense_only.check(question).is_covered
    refused = with_words.check(question)
    assert not refused.is_covered and refused.term_share is not None
    assert with_words.check("feed the starter with rye flour before a bake").is_covered


def test_a_question_spelled_the_british_way_finds_and_is_covered_by_a_note_spelled_the_american_way(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "WordPress.md").write_text(
        "# WordPress\n\nAuthorize the app the quick way; the token expires after two weeks.\n", encoding="utf-8"
    )
    (vault / "Garden.md").write_text("# Garden\n\nPlant the garlic in October, cloves 15 cm apart.\n", encoding="utf-8")
    services = build_services(
        Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data"), embedder=HashingEmbedder()
    )
    try:
        services.reindexer.run_once()
        question = services.embedder.embed_query("authorise")
        coverage = RelevanceGate(services.embedder, services.store, floor=-0.1, term_weight=1.0).measure("authorise")
        lists = services.store.search_lists(question, limit=2)
    finally:
        services.close()

    assert coverage.term_share == pytest.approx(1.0)
    assert [hit.chunk.path for hit in lists.sparse] == ["WordPress.md"]


def test_a_prepared_gate_has_its_probe_questions_embedded_before_the_first_check(indexed: Services) -> None:
    asked: list[str] = []

    class Counting(HashingEmbedder):
        def embed_query(self, text: str) -> Embedding:
            asked.append(text)
            return super().embed_query(text)

    gate = RelevanceGate(Counting(), indexed.store, floor=-0.1)
    gate.prepare()  # at start (app/services/answering.py), in a worker thread
    probes = len(asked)
    gate.check("How many garlic cloves did I plant?")

    assert probes == len(PROBE_QUESTIONS) and asked[probes:] == ["How many garlic cloves did I plant?"]
