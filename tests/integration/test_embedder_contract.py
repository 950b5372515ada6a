"""The Embedder contract, run against the HashingEmbedder double and the bundled fastembed model."""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core.domain import Embedding, IndexIdentity
from core.errors import InvalidRequest
from core.ports import Embedder
from core.settings import BUNDLED_EMBED_MODEL, EmbeddingSettings, Settings
from rag.embedding.dense_models import Prefixes, prefixes_for
from rag.embedding.embedders import FastembedEmbedder, build_embedder
from tests.fakes import HashingEmbedder

# A vault outside every test's DATA_DIR (Settings refuses a vault inside it).
SAMPLE_VAULT = Path(__file__).resolve().parents[2] / "sample_vault"

QUERY = "how to bake sourdough bread"
SOURDOUGH = (
    "Sourdough bread: feed the starter the day before, mix flour, water and salt, let the dough rise "
    "overnight and bake the loaf in a very hot oven."
)
KUBERNETES = (
    "Kubernetes schedules pods onto the nodes of a cluster; a deployment keeps the desired number of "
    "replicas running and rolls out new container images."
)
TEXTS = [SOURDOUGH, KUBERNETES, "A short note.", "", "Meeting notes, 2024-05-01: ship v2!", "bread " * 40]


def _settings(cache_dir: Path, model: str = BUNDLED_EMBED_MODEL) -> EmbeddingSettings:
    # batch_size 4 makes TEXTS span two batches.
    return Settings(
        _env_file=None,
        embed_model=model,
        embed_threads=2,
        embed_batch_size=4,
        chunk_overlap_tokens=0,
        data_dir=cache_dir.parent,
        vault_path=SAMPLE_VAULT,
    ).embedding.model_copy(update={"cache_dir": cache_dir})


@pytest.fixture(scope="module")
def bundled_embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    return build_embedder(_settings(tmp_path_factory.mktemp("models")))


@pytest.fixture(scope="module", params=["hashing", pytest.param("fastembed-bundled", marks=pytest.mark.model)])
def embedder(request: pytest.FixtureRequest) -> Embedder:
    if request.param == "hashing":
        return HashingEmbedder()
    bundled: Embedder = request.getfixturevalue("bundled_embedder")
    return bundled


def _cosine(a: Embedding, b: Embedding) -> float:
    return sum(x * y for x, y in zip(a.dense, b.dense, strict=True))


def _assert_same(a: Embedding, b: Embedding) -> None:
    # Batches are padded to their longest text, which moves float32 results in the last digits.
    assert a.dense == pytest.approx(b.dense, abs=1e-5)
    assert a.sparse == b.sparse


def test_dense_vectors_have_the_identity_dimension_and_unit_length(embedder: Embedder) -> None:
    for embedding in [*embedder.embed_documents(TEXTS), embedder.embed_query(QUERY), embedder.embed_query("")]:
        assert len(embedding.dense) == embedder.identity.dim
        assert all(isinstance(value, float) for value in embedding.dense)
        assert math.sqrt(sum(value * value for value in embedding.dense)) == pytest.approx(1.0, abs=1e-6)


def test_embed_documents_keeps_order_and_matches_one_by_one_results(embedder: Embedder) -> None:
    batch = embedder.embed_documents(TEXTS)

    assert len(batch) == len(TEXTS)
    for text, embedding in zip(TEXTS, batch, strict=True):
        _assert_same(embedding, embedder.embed_documents([text])[0])
    assert embedder.embed_documents([]) == []


def test_related_texts_are_closer_than_unrelated_ones(embedder: Embedder) -> None:
    query = embedder.embed_query(QUERY)
    sourdough, kubernetes = embedder.embed_documents([SOURDOUGH, KUBERNETES])

    assert _cosine(query, sourdough) > _cosine(query, kubernetes) + 0.1


def test_query_sparse_weights_are_one_per_distinct_term(embedder: Embedder) -> None:
    sparse = embedder.embed_query("bread oven bread").sparse

    assert len(sparse.indices) == len(set(sparse.indices)) == 2
    assert sparse.values == (1.0, 1.0)


def test_a_query_searches_its_words_in_their_other_spelling_too(embedder: Embedder) -> None:
    british = embedder.embed_query("colour of the bread")
    (american,) = embedder.embed_documents(["color"])[0].sparse.indices
    (bread,) = embedder.embed_query("bread").sparse.indices

    assert american in british.sparse.indices
    assert [own for alternate, own in british.alternates if alternate == american] != []
    assert american not in british.terms and bread in british.terms
    assert len(british.terms) == len(british.sparse.indices) - 1  # the added spelling is no word of its own


def test_a_query_without_other_spellings_is_only_its_own_words(embedder: Embedder) -> None:
    plain = embedder.embed_query("bread oven")

    assert plain.alternates == ()
    assert plain.terms == tuple(dict.fromkeys(plain.sparse.indices))


def test_document_sparse_weights_grow_with_term_frequency(embedder: Embedder) -> None:
    (bread_index,) = embedder.embed_query("bread").sparse.indices
    (oven_index,) = embedder.embed_query("oven").sparse.indices
    sparse = embedder.embed_documents(["bread bread bread oven"])[0].sparse
    weights = dict(zip(sparse.indices, sparse.values, strict=True))

    assert len(sparse.indices) == len(sparse.values) == 2
    assert weights[bread_index] > weights[oven_index] > 0.0


def test_empty_text_counts_only_the_special_tokens(embedder: Embedder) -> None:
    assert embedder.count_tokens("") == 2


def test_count_tokens_grows_with_the_text(embedder: Embedder) -> None:
    words = SOURDOUGH.split()
    counts = [embedder.count_tokens(" ".join(words[:n])) for n in range(len(words) + 1)]

    assert counts == sorted(counts)
    assert counts[-1] > counts[0]


def test_count_tokens_is_exact_beyond_the_window(embedder: Embedder) -> None:
    words = embedder.max_tokens + 100

    assert embedder.count_tokens("apple " * words) == words + 2


def test_identity_is_stable_across_calls(embedder: Embedder) -> None:
    before = embedder.identity
    embedder.embed_documents([SOURDOUGH])

    assert embedder.identity == before
    assert before.model_id
    assert embedder.max_tokens > 2


def test_concurrent_calls_give_the_sequential_results(embedder: Embedder) -> None:
    queries = [f"{QUERY} {n}" for n in range(8)]
    expected_docs = embedder.embed_documents(TEXTS)
    expected_queries = [embedder.embed_query(query) for query in queries]

    with ThreadPoolExecutor(max_workers=4) as pool:
        docs = [pool.submit(embedder.embed_documents, TEXTS) for _ in range(2)]
        found = list(pool.map(embedder.embed_query, queries))

    for future in docs:
        for got, want in zip(future.result(), expected_docs, strict=True):
            _assert_same(got, want)
    for got, want in zip(found, expected_queries, strict=True):
        _assert_same(got, want)


@pytest.mark.model
def test_bundled_model_is_minilm_with_a_256_token_window(bundled_embedder: Embedder) -> None:
    assert bundled_embedder.identity == IndexIdentity(model_id=BUNDLED_EMBED_MODEL, dim=384)
    assert bundled_embedder.max_tokens == 256


def test_unknown_model_name_is_an_invalid_request(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match="list_supported_models"):
        FastembedEmbedder(_settings(tmp_path, model="nobody/no-such-model"))


def test_catalogue_model_not_cached_offline_fails_fast_with_advice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    with pytest.raises(InvalidRequest, match="not available offline") as caught:
        FastembedEmbedder(_settings(tmp_path / "models", model="BAAI/bge-small-en-v1.5")).embed_query("x")

    assert "BAAI/bge-small-en-v1.5" in caught.value.message
    assert BUNDLED_EMBED_MODEL in caught.value.message


@pytest.mark.model
def test_build_embedder_keeps_the_hub_offline_for_the_bundled_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)

    embedder = build_embedder(_settings(tmp_path, model=BUNDLED_EMBED_MODEL))

    assert embedder.identity.model_id == BUNDLED_EMBED_MODEL
    assert os.environ["HF_HUB_OFFLINE"] == "1"


def test_build_embedder_leaves_the_hub_reachable_for_catalogue_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A user who names a catalogue model wants it downloaded once; forcing offline mode would forbid that.
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)

    with pytest.raises(InvalidRequest):
        build_embedder(_settings(tmp_path, model="nobody/no-such-model"))

    assert "HF_HUB_OFFLINE" not in os.environ


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        (BUNDLED_EMBED_MODEL, Prefixes()),
        ("sentence-transformers/all-MiniLM-L6-v2", Prefixes()),
        ("intfloat/multilingual-e5-large", Prefixes("query: ", "passage: ")),
        ("BAAI/bge-small-en-v1.5", Prefixes("Represent this sentence for searching relevant passages: ", "")),
        ("nomic-ai/nomic-embed-text-v1.5-Q", Prefixes("search_query: ", "search_document: ")),
        ("snowflake/snowflake-arctic-embed-xs", Prefixes("Represent this sentence for searching relevant passages: ")),
        ("mixedbread-ai/mxbai-embed-large-v1", Prefixes("Represent this sentence for searching relevant passages: ")),
        ("jinaai/jina-embeddings-v2-small-en", Prefixes()),
    ],
)
def test_prefixes_follow_the_model_family(model: str, expected: Prefixes) -> None:
    assert prefixes_for(model) == expected
