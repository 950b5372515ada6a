"""One contract suite for both VectorStore adapters: qdrant-edge on tmp_path and qdrant-client on `:memory:`."""

from __future__ import annotations

import contextlib
import random
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.domain import EmbeddedChunk, Fusion, IndexIdentity, RankedLists, SearchFilters
from core.errors import IndexModelMismatch, InvalidRequest, UpstreamUnavailable
from core.ports import VectorStore
from core.settings import Settings
from rag.search_trace import trace_hits
from rag.stores import build_vector_store
from rag.stores import edge as edge_store
from rag.stores.edge import EdgeVectorStore
from rag.stores.server import ServerVectorStore
from tests.integration.vector_store_support import DIM, IDENTITY, UNREACHABLE, Backend, bm25_score, item, query, vec

# A vault outside every test's DATA_DIR (Settings refuses a vault inside it).
SAMPLE_VAULT = Path(__file__).resolve().parents[2] / "sample_vault"


@pytest.fixture(params=["edge", "server"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    return Backend(request.param, tmp_path)


@pytest.fixture
def store(backend: Backend) -> Iterator[VectorStore]:
    opened = backend.open()
    opened.reset(IDENTITY)
    yield opened
    opened.close()


def test_search_finds_the_matching_chunk_best_first(store: VectorStore) -> None:
    items = [
        item("Alpha.md", dense=vec({0: 1.0}), terms={1: 1.0}, tags=("Project/Librarian",)),
        item("Notes/Beta.md", dense=vec({1: 1.0}), terms={2: 1.0}),
        item("Notes/Gamma.md", dense=vec({1: 0.5, 2: 0.5}), terms={3: 1.0}),
    ]
    store.upsert(items)

    hits = store.search(query(vec({1: 1.0}), {2: 1.0}), limit=3)

    assert hits[0].chunk == items[1].chunk
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    assert {hit.chunk for hit in hits} == {entry.chunk for entry in items}


def test_rrf_lifts_sparse_only_and_keeps_dense_only_matches(store: VectorStore) -> None:
    dense_match = item("Dense.md", dense=vec({0: 1.0}), terms={7: 1.0})
    sparse_match = item("Sparse.md", dense=vec({1: 1.0}), terms={5: 1.0})
    neither = item("Neither.md", dense=vec({0: -1.0}), terms={6: 1.0})
    store.upsert([dense_match, sparse_match, neither])

    fused = store.search(query(vec({0: 1.0}), {5: 1.0}), limit=3)
    dense_only = store.search(query(vec({0: 1.0})), limit=3)  # empty sparse query: the dense branch alone

    assert [hit.chunk.path for hit in fused] == ["Sparse.md", "Dense.md", "Neither.md"]
    assert [hit.chunk.path for hit in dense_only] == ["Dense.md", "Sparse.md", "Neither.md"]


def test_a_dense_weight_lifts_the_dense_lists_places_over_the_bm25_lists(store: VectorStore) -> None:
    store.upsert(
        [
            item("Dense.md", dense=vec({0: 1.0}), terms={7: 1.0}),
            item("Runner.md", dense=vec({0: 0.9, 1: 0.1}), terms={8: 1.0}),
            item("Sparse.md", dense=vec({1: 1.0}), terms={5: 1.0}),
        ]
    )
    probe = query(vec({0: 1.0}), {5: 1.0})

    # Two candidates per branch: dense [Dense, Runner], BM25 [Sparse]. Qdrant scores place p (from 0) of a list
    # of weight w as 1 / ((p + 1) / w + k - 1): Runner, second in the weighted list, passes Sparse, first in its own.
    even = store.search(probe, limit=2, prefetch_limit=2, fusion=Fusion(rrf_k=10))
    weighted = store.search(probe, limit=2, prefetch_limit=2, fusion=Fusion(rrf_k=10, dense_weight=3.0))

    assert [hit.chunk.path for hit in even] == ["Dense.md", "Sparse.md"]
    assert [hit.score for hit in even] == pytest.approx([1 / 10, 1 / 10])
    assert [hit.chunk.path for hit in weighted] == ["Dense.md", "Runner.md"]
    assert [hit.score for hit in weighted] == pytest.approx([1 / (1 / 3 + 9), 1 / (2 / 3 + 9)])


def test_distribution_based_fusion_ranks_by_normalised_scores_of_both_branches(store: VectorStore) -> None:
    dense_match = item("Dense.md", dense=vec({0: 1.0}), terms={7: 1.0})
    sparse_match = item("Sparse.md", dense=vec({1: 1.0}), terms={5: 1.0})
    both = item("Both.md", dense=vec({0: 0.9, 1: 0.1}), terms={5: 1.0})
    store.upsert([dense_match, sparse_match, both])

    hits = store.search(query(vec({0: 1.0}), {5: 1.0}), limit=3, fusion=Fusion(method="dbsf"))

    assert hits[0].chunk.path == "Both.md"
    assert {hit.chunk.path for hit in hits} == {"Dense.md", "Sparse.md", "Both.md"}
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)


def test_search_lists_returns_each_branch_apart_and_its_places_explain_the_fused_scores(store: VectorStore) -> None:
    store.upsert(
        [
            item("Dense.md", dense=vec({0: 1.0}), terms={7: 1.0}),
            item("Both.md", dense=vec({0: 0.8, 1: 0.2}), terms={5: 1.0}),
            item("Sparse.md", dense=vec({1: 1.0}), terms={5: 2.0}),
            item("Neither.md", dense=vec({0: -1.0}), terms={6: 1.0}),
        ]
    )
    probe = query(vec({0: 1.0}), {5: 1.0})

    lists = store.search_lists(probe, limit=3)
    fused = store.search(probe, limit=3, prefetch_limit=3, fusion=Fusion(rrf_k=10))
    traced = trace_hits(fused, lists, depth=3, fusion=Fusion(rrf_k=10), reranker=None)

    assert [hit.chunk.path for hit in lists.dense] == ["Dense.md", "Both.md", "Sparse.md"]
    assert [hit.chunk.path for hit in lists.sparse] == ["Sparse.md", "Both.md"]  # only points sharing a term
    assert lists.dense[0].score == pytest.approx(1.0) and lists.sparse[0].score > lists.sparse[1].score
    places = {t.hit.chunk.path: (t.dense and t.dense.rank, t.bm25 and t.bm25.rank) for t in traced.hits}
    assert places == {"Both.md": (2, 2), "Dense.md": (1, None), "Sparse.md": (3, 1)}
    # The places give back exactly the scores the store's own fusion computed.
    assert [t.rrf for t in traced.hits] == pytest.approx([hit.score for hit in fused])


def test_search_lists_filters_both_branches_and_skips_bm25_for_a_query_without_terms(store: VectorStore) -> None:
    store.upsert(
        [
            item("Keep/One.md", dense=vec({0: 0.5, 1: 0.5}), terms={5: 1.0}),
            item("Drop/One.md", dense=vec({0: 1.0}), terms={5: 3.0}),
        ]
    )
    kept = store.search_lists(query(vec({0: 1.0}), {5: 1.0}), limit=5, filters=SearchFilters(folder="Keep"))
    no_terms = store.search_lists(query(vec({0: 1.0})), limit=5)

    assert [h.chunk.path for h in kept.dense] == [h.chunk.path for h in kept.sparse] == ["Keep/One.md"]
    assert [h.chunk.path for h in no_terms.dense] == ["Drop/One.md", "Keep/One.md"] and no_terms.sparse == ()


FILTER_CASES = {
    "folder with sub-folders": (
        SearchFilters(folder="/Projects/"),
        ("Projects/Librarian/Design/Wanted.md", "Projects/Other.md"),
        ("Archive/Projects/Old.md", "Projects.md"),
    ),
    "nested tag matches its parent": (
        SearchFilters(tags=("#project",)),
        ("A.md", "B.md"),
        ("C.md", "D.md"),
    ),
    "paths": (
        SearchFilters(paths=("Keep/One.md", "Keep/Two.md")),
        ("Keep/One.md", "Keep/Two.md"),
        ("Keep/Three.md", "Drop/One.md"),
    ),
}


@pytest.mark.parametrize("case", FILTER_CASES, ids=list(FILTER_CASES))
def test_filters_restrict_both_dense_and_sparse_branches(store: VectorStore, case: str) -> None:
    filters, (dense_target, sparse_target), outsiders = FILTER_CASES[case]
    wanted_tags = ("Project/Librarian",)
    other_tags = ("projects", "other/project")
    store.upsert(
        [
            # Outsiders beat both targets in both branches: with prefetch_limit=2 an unfiltered branch would
            # return only them, and the filtered result would lose the targets.
            *(item(path, dense=vec({0: 1.0}), terms={1: 3.0}, tags=other_tags) for path in outsiders),
            item(dense_target, dense=vec({0: 0.5, 2: 0.5}), terms={4: 1.0}, tags=wanted_tags),
            item(sparse_target, dense=vec({3: 1.0}), terms={1: 0.5}, tags=wanted_tags),
        ]
    )

    hits = store.search(query(vec({0: 1.0}), {1: 1.0}), limit=5, filters=filters, prefetch_limit=2)

    # The sparse target ranks first only if the filtered sparse branch found it.
    assert [hit.chunk.path for hit in hits] == [sparse_target, dense_target]


def test_upsert_of_the_same_path_and_index_replaces_the_point(store: VectorStore) -> None:
    store.upsert([item("Note.md", dense=vec({0: 1.0}), text="first draft")])
    store.upsert([item("Note.md", dense=vec({0: 1.0}), text="second draft")])

    hits = store.search(query(vec({0: 1.0})), limit=5)

    assert store.count() == 1
    assert [hit.chunk.text for hit in hits] == ["second draft"]


def test_delete_paths_removes_all_and_only_that_notes_points(store: VectorStore) -> None:
    store.upsert([item("Gone.md", i, dense=vec({i: 1.0})) for i in range(3)])
    store.upsert([item("Kept.md", i, dense=vec({i: 1.0})) for i in range(2)])

    store.delete_paths(["Gone.md", "Never/Indexed.md"])

    assert store.count() == 2
    assert store.indexed_paths() == {"Kept.md"}
    assert {hit.chunk.path for hit in store.search(query(vec({0: 1.0})), limit=10)} == {"Kept.md"}


def test_bm25_after_deletions_counts_only_the_points_left(store: VectorStore, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every re-index of a note deletes its points and writes new ones: a word of one note edited often must not
    # come to count as common (qdrant-edge counted deleted points in its IDF until the shard was loaded again).
    monkeypatch.setattr(edge_store, "REOPEN_SECONDS", 0.0)
    rare = item("Rare.md", dense=vec({0: 1.0}), terms={1: 1.0, 2: 1.0})
    store.upsert([rare, *(item(f"Other {n}.md", dense=vec({0: 1.0}), terms={2: 1.0}) for n in range(3))])
    alone = bm25_score(store, 1)
    versions = [item(f"Rare {n}.md", dense=vec({0: 1.0}), terms={1: 1.0}) for n in range(20)]

    store.upsert(versions)
    store.delete_paths(version.chunk.path for version in versions)
    store.flush()

    assert bm25_score(store, 1) == pytest.approx(alone)
    assert [hit.chunk.path for hit in store.search(query(vec({0: 1.0}), {1: 1.0}), limit=1)] == ["Rare.md"]


def test_embeddings_for_paths_round_trips_the_stored_vectors(store: VectorStore) -> None:
    # Unit vectors of exact binary fractions: cosine storage normalises and stores float32.
    first = item("A.md", 0, dense=vec({0: 0.5, 1: 0.5, 2: 0.5, 3: 0.5}), terms={3: 1.5, 11: 0.25})
    second = item("A.md", 1, dense=vec({4: 1.0}))  # no sparse terms at all
    other = item("B.md", dense=vec({5: 1.0}), terms={2: 1.0})
    store.upsert([first, second, other])

    found = store.embeddings_for_paths(["A.md"])

    assert found == {first.embed_key: first.embedding, second.embed_key: second.embedding}


def test_indexed_paths_and_count_cover_every_point(store: VectorStore) -> None:
    paths = [f"Folder{i % 7}/Note{i}.md" for i in range(300)]  # more than one upsert batch
    store.upsert([item(path, chunk, dense=vec({chunk: 1.0})) for path in paths for chunk in range(2)])

    assert store.count() == 600
    assert store.indexed_paths() == set(paths)


def test_chunk_counts_count_the_points_of_each_note(store: VectorStore) -> None:
    store.upsert([item("A.md", chunk, dense=vec({chunk: 1.0})) for chunk in range(3)])
    store.upsert([item("B.md", 0, dense=vec({0: 1.0}))])
    store.delete_paths(["C.md"])

    assert store.chunk_counts() == {"A.md": 3, "B.md": 1}


def test_chunks_at_reads_chunks_by_place_in_the_order_asked_and_leaves_out_absent_ones(store: VectorStore) -> None:
    stored = [item("A.md", chunk, dense=vec({chunk: 1.0})) for chunk in range(3)] + [item("B.md", dense=vec({0: 1.0}))]
    store.upsert(stored)

    chunks = store.chunks_at([("A.md", 2), ("Missing.md", 0), ("B.md", 0), ("A.md", 3), ("A.md", 0)])

    assert chunks == [stored[2].chunk, stored[3].chunk, stored[0].chunk]
    assert store.chunks_at([]) == []


def test_identity_survives_reopening_and_reset_changes_dim_and_empties(backend: Backend) -> None:
    store = backend.open()
    store.reset(IDENTITY)
    store.upsert([item("Note.md", dense=vec({0: 1.0}), terms={1: 1.0})])
    store.flush()

    store = backend.reopen(store)
    assert store.identity() == IDENTITY
    assert store.count() == 1
    assert store.search(query(vec({0: 1.0}), {1: 1.0}), limit=1)[0].chunk.path == "Note.md"

    smaller = IndexIdentity(model_id="test/smaller", dim=4)
    store.reset(smaller)
    assert store.identity() == smaller
    assert store.count() == 0
    with pytest.raises(IndexModelMismatch):
        store.upsert([item("Note.md", dense=vec({0: 1.0}))])
    store.upsert([item("Note.md", dense=vec({0: 1.0}, dim=4))])

    store = backend.reopen(store)
    assert store.identity() == smaller
    assert store.indexed_paths() == {"Note.md"}
    store.close()
    store.close()  # closing twice is harmless


def test_store_without_identity_is_empty_and_refuses_writes(backend: Backend) -> None:
    store = backend.open()

    assert store.identity() is None
    assert store.search(query(vec({0: 1.0}), {1: 1.0}), limit=5) == []
    assert store.count() == 0
    assert store.indexed_paths() == set()
    assert store.embeddings_for_paths(["Note.md"]) == {}
    assert store.chunks_at([("Note.md", 0)]) == []
    store.delete_paths(["Note.md"])
    with pytest.raises(InvalidRequest, match="call reset"):
        store.upsert([item("Note.md", dense=vec({0: 1.0}))])
    store.close()


def test_search_refuses_a_query_of_another_dimension(store: VectorStore) -> None:
    store.upsert([item("Note.md", dense=vec({0: 1.0}))])

    with pytest.raises(IndexModelMismatch):
        store.search(query(vec({0: 1.0}, dim=4)), limit=1)


def test_dense_top_score_is_the_cosine_of_the_best_dense_match(store: VectorStore) -> None:
    store.upsert(
        [
            item("Best.md", dense=vec({1: 1.0}), terms={9: 1.0}),
            item("Projects/Other.md", dense=vec({0: 1.0}), terms={1: 5.0}),  # the sparse terms play no part
        ]
    )
    probe = query(vec({0: 3.0, 1: 4.0}), {1: 1.0})  # not unit length: cosine normalises it

    assert store.dense_top_score(probe) == pytest.approx(0.8, abs=1e-5)
    assert store.dense_top_score(probe, filters=SearchFilters(folder="Projects")) == pytest.approx(0.6, abs=1e-5)
    assert store.dense_top_score(query(vec({2: 1.0}))) == pytest.approx(0.0, abs=1e-5)
    assert store.dense_top_score(query(vec({1: -1.0})), filters=SearchFilters(paths=("Best.md",))) == pytest.approx(
        -1.0, abs=1e-5
    )


def test_dense_top_score_is_none_when_nothing_can_match(backend: Backend) -> None:
    store = backend.open()
    probe = query(vec({0: 1.0}))
    assert store.dense_top_score(probe) is None  # no collection yet
    assert store.search_lists(probe, limit=3) == RankedLists((), ())
    store.reset(IDENTITY)
    assert store.dense_top_score(probe) is None  # empty collection
    store.upsert([item("Note.md", dense=vec({0: 1.0}))])

    assert store.dense_top_score(probe, filters=SearchFilters(folder="Elsewhere")) is None
    with pytest.raises(IndexModelMismatch):
        store.dense_top_score(query(vec({0: 1.0}, dim=4)))
    store.close()


def test_term_counts_count_the_points_holding_each_sparse_term(store: VectorStore) -> None:
    store.upsert(
        [
            item("Projects/A.md", dense=vec({0: 1.0}), terms={1: 2.0, 2: 1.0}),
            item("Projects/A.md", 1, dense=vec({0: 1.0}), terms={1: 1.0}),
            item("Areas/B.md", dense=vec({1: 1.0}), terms={1: 0.5, 3: 1.0}),
        ]
    )

    assert store.term_counts([1, 2, 3, 4], cap=10) == {1: 3, 2: 1, 3: 1, 4: 0}
    assert store.term_counts([1, 3], cap=2) == {1: 2, 3: 1}  # "at least cap" is all a rarity weight needs
    assert store.term_counts([1, 3], cap=10, filters=SearchFilters(folder="Projects")) == {1: 2, 3: 0}
    assert store.term_counts([1, 2], cap=10, filters=SearchFilters(paths=("Areas/B.md",))) == {1: 1, 2: 0}
    assert store.term_counts([], cap=10) == {}


def test_term_counts_are_zero_when_nothing_is_indexed(backend: Backend) -> None:
    store = backend.open()
    assert store.term_counts([1, 2], cap=5) == {1: 0, 2: 0}  # no collection yet
    store.reset(IDENTITY)
    assert store.term_counts([1, 2], cap=5) == {1: 0, 2: 0}
    store.close()


def random_items(rng: random.Random) -> list[EmbeddedChunk]:
    folders = ["Projects/Librarian", "Projects/Other", "Areas", ""]
    tags = [("project/librarian",), ("Project",), ("area",), ()]
    items = []
    for n in range(24):
        path = f"{folders[n % 4]}/Note{n}.md".lstrip("/")
        terms = {rng.randrange(12): round(rng.uniform(0.5, 3.0), 3) for _ in range(rng.randint(0, 4))}
        dense = tuple(rng.uniform(-1.0, 1.0) for _ in range(DIM))
        items.append(item(path, n % 3, dense=dense, terms=terms, tags=tags[n % 4]))
    return items


FUSIONS = {
    "rrf k=10": Fusion(rrf_k=10),
    "rrf k=60, dense weighted": Fusion(rrf_k=60, dense_weight=2.5),
    "dbsf": Fusion(method="dbsf"),
}


@pytest.mark.parametrize("fusion", FUSIONS.values(), ids=list(FUSIONS))
@pytest.mark.parametrize("prefetch_limit", [5, 50])
def test_both_adapters_rank_the_same_data_identically(tmp_path: Path, prefetch_limit: int, fusion: Fusion) -> None:
    rng = random.Random(20240611)
    items = random_items(rng)
    # qdrant-client's local mode normalises DBSF scores with the sample deviation in float64; the engine (edge
    # and server) differs in the last percent, never in the order.
    tolerance = 1e-5 if fusion.method == "rrf" else 2e-2
    stores = [Backend("edge", tmp_path).open(), Backend("server", tmp_path).open()]
    filter_options = [None, SearchFilters(folder="Projects"), SearchFilters(tags=("project",))]
    for store in stores:
        store.reset(IDENTITY)
        store.upsert(items)

    for _ in range(6):
        probe = query(
            tuple(rng.uniform(-1.0, 1.0) for _ in range(DIM)), {rng.randrange(12): 1.0, rng.randrange(12): 1.0}
        )
        for filters in filter_options:
            edge_hits, server_hits = (
                store.search(probe, limit=30, filters=filters, prefetch_limit=prefetch_limit, fusion=fusion)
                for store in stores
            )
            assert [h.chunk for h in edge_hits] == [h.chunk for h in server_hits]
            assert [h.score for h in edge_hits] == pytest.approx([h.score for h in server_hits], rel=tolerance)
            assert edge_hits
    for store in stores:
        store.close()


def build_settled(tmp_path: Path, url: str | None) -> VectorStore:
    """Build a store and wait for threads it started (qdrant-client's server version check) to finish."""
    before = set(threading.enumerate())
    with pytest.warns(UserWarning, match="server version") if url else contextlib.nullcontext():
        store = build_vector_store(
            Settings(
                _env_file=None, data_dir=tmp_path, vault_path=SAMPLE_VAULT, qdrant_url=url, qdrant_collection="v"
            ).store
        )
        for thread in set(threading.enumerate()) - before:
            thread.join(timeout=10)
    return store


@pytest.mark.parametrize(("url", "expected"), [(None, EdgeVectorStore), (UNREACHABLE, ServerVectorStore)])
def test_build_vector_store_picks_the_adapter_from_settings(tmp_path: Path, url: str | None, expected: type) -> None:
    store = build_settled(tmp_path, url)

    assert isinstance(store, expected)
    assert not (tmp_path / "qdrant-edge").exists()  # nothing is created before reset()
    store.close()


def test_server_store_reports_an_unreachable_server_as_unavailable(tmp_path: Path) -> None:
    store = build_settled(tmp_path, UNREACHABLE)

    with pytest.raises(UpstreamUnavailable, match="qdrant is unavailable"):
        store.count()
    store.close()
