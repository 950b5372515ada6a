"""Rerankers: the passthrough default, and the fastembed loader on a tiny generated cross-encoder ONNX."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from pydantic import ValidationError
from tokenizers import Tokenizer

from core.domain import Chunk, SearchHit
from core.errors import InvalidRequest
from core.ports import Reranker
from core.settings import RetrievalSettings, Settings
from core.tracing import span
from rag.embedding.dense_models import bundled_tokenizer_dir
from rag.embedding.rerank import FastembedReranker, PassthroughReranker, build_reranker
from tests.span_recording import recording

KEYWORD = "banana"
CATALOGUE_RERANKER = "Xenova/ms-marco-MiniLM-L-6-v2"  # a name in fastembed's cross-encoder catalogue


def _write_keyword_cross_encoder(model_file: Path, *, vocab_size: int, keyword_id: int) -> None:
    """Write a cross-encoder whose logit counts KEYWORD in the passage segment (token type 1) of each pair."""
    weights = np.zeros(vocab_size, dtype=np.float32)
    weights[keyword_id] = 1.0
    ids = ("input_ids", "attention_mask", "token_type_ids")
    nodes = [
        helper.make_node("Gather", ["weights", "input_ids"], ["token_scores"], axis=0),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["passage"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["token_scores", "mask"], ["masked"]),
        helper.make_node("Mul", ["masked", "passage"], ["passage_scores"]),
        helper.make_node("ReduceSum", ["passage_scores", "axes"], ["logits"], keepdims=1),
    ]
    graph = helper.make_graph(
        nodes,
        "keyword_cross_encoder",
        [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"]) for name in ids],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[
            numpy_helper.from_array(weights, "weights"),
            numpy_helper.from_array(np.array([1], dtype=np.int64), "axes"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    model_file.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(model_file))


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("reranker")
    for file in bundled_tokenizer_dir().iterdir():
        if file.suffix == ".json":
            shutil.copy(file, folder / file.name)
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    keyword_id = tokenizer.token_to_id(KEYWORD)
    assert keyword_id is not None, "the keyword must be a single token of the vocabulary"
    _write_keyword_cross_encoder(
        folder / "onnx" / "model.onnx", vocab_size=tokenizer.get_vocab_size(), keyword_id=keyword_id
    )
    return folder


@pytest.fixture(scope="module")
def reranker(model_dir: Path) -> FastembedReranker:
    return FastembedReranker.from_folder(model_dir, threads=1)


def _hit(title: str, text: str, score: float) -> SearchHit:
    chunk = Chunk(path=f"{title}.md", title=title, heading_path=(), anchor=f"[[{title}]]", text=text)
    return SearchHit(chunk=chunk, score=score)


HITS = [
    _hit("Apples", "Apples keep for months in a cool cellar.", 0.9),
    _hit("Smoothie", "Blend a banana with yoghurt; a second banana makes it thicker.", 0.8),
    _hit("Bread", "Banana bread uses overripe fruit.", 0.7),
    _hit("Kubernetes", "Pods run on nodes.", 0.6),
]


def test_cross_encoder_puts_passages_with_the_keyword_first(reranker: FastembedReranker) -> None:
    reranked = reranker.rerank(f"what can I make with a {KEYWORD}?", HITS, top_k=4)

    assert [hit.chunk.title for hit in reranked] == ["Smoothie", "Bread", "Apples", "Kubernetes"]
    assert [hit.score for hit in reranked] == [2.0, 1.0, 0.0, 0.0]


def test_cross_encoder_returns_only_top_k_hits(reranker: FastembedReranker) -> None:
    reranked = reranker.rerank(KEYWORD, HITS, top_k=1)

    assert [hit.chunk for hit in reranked] == [HITS[1].chunk]


def test_a_rerank_is_a_span_under_the_active_one_with_its_candidate_count(
    reranker: FastembedReranker, model_dir: Path, tmp_path: Path
) -> None:
    settings = Settings(_env_file=None, vault_path=tmp_path / "vault", data_dir=tmp_path / "data")
    with recording(settings) as exporter, span("retrieval vault"):
        reranker.rerank(KEYWORD, HITS, top_k=2)
    retrieval, rerank = sorted(exporter.get_finished_spans(), key=lambda s: s.start_time or 0)

    assert rerank.name == "rerank" and rerank.parent is not None and retrieval.context is not None
    assert rerank.parent.span_id == retrieval.context.span_id
    assert dict(rerank.attributes or {}) == {
        "librarian.rerank.candidates": len(HITS),
        "librarian.rerank.model": model_dir.name,
    }


def test_cross_encoder_handles_no_hits_and_zero_top_k(reranker: FastembedReranker) -> None:
    assert reranker.rerank(KEYWORD, [], top_k=3) == []
    assert reranker.rerank(KEYWORD, HITS, top_k=0) == []


def test_cross_encoder_loads_twice_from_the_same_folder(model_dir: Path) -> None:
    again = FastembedReranker.from_folder(model_dir)

    assert again.rerank(KEYWORD, HITS, top_k=1)[0].chunk.title == "Smoothie"


def test_model_file_at_the_folder_root_is_found(model_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "flat"
    shutil.copytree(model_dir, folder)
    (folder / "onnx" / "model.onnx").rename(folder / "model.onnx")

    assert FastembedReranker.from_folder(folder).rerank(KEYWORD, HITS, top_k=1)[0].chunk.title == "Smoothie"


def test_folder_without_onnx_model_is_an_invalid_request(model_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "no-onnx"
    shutil.copytree(model_dir, folder)
    shutil.rmtree(folder / "onnx")

    with pytest.raises(InvalidRequest, match="ONNX model"):
        FastembedReranker.from_folder(folder)


def test_folder_without_tokenizer_is_an_invalid_request(model_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "no-tokenizer"
    shutil.copytree(model_dir, folder)
    (folder / "tokenizer.json").unlink()

    with pytest.raises(InvalidRequest, match=r"tokenizer\.json"):
        FastembedReranker.from_folder(folder)


def test_missing_folder_is_an_invalid_request(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match="does not exist"):
        FastembedReranker.from_folder(tmp_path / "nowhere")


def test_passthrough_keeps_order_and_scores_up_to_top_k() -> None:
    assert PassthroughReranker().rerank("anything", HITS, top_k=2) == HITS[:2]
    assert PassthroughReranker().rerank("anything", HITS, top_k=10) == HITS


def _retrieval(model_dir: Path | None) -> RetrievalSettings:
    return Settings(_env_file=None, top_k=2, rrf_k=60, reranker_model_dir=model_dir).retrieval


def test_build_reranker_passes_through_without_a_model_dir() -> None:
    assert isinstance(build_reranker(_retrieval(None)), PassthroughReranker)


def test_build_reranker_loads_the_configured_cross_encoder(model_dir: Path) -> None:
    reranker = build_reranker(_retrieval(model_dir))

    assert isinstance(reranker, FastembedReranker)
    assert reranker.rerank(KEYWORD, HITS, top_k=2)[0].chunk.title == "Smoothie"


@pytest.fixture(params=["passthrough", "cross-encoder"])
def any_reranker(request: pytest.FixtureRequest, model_dir: Path) -> Reranker:
    if request.param == "passthrough":
        return PassthroughReranker()
    return FastembedReranker.from_folder(model_dir, threads=1)


@pytest.mark.parametrize("top_k", [0, 1, 3, 10])
def test_every_reranker_returns_at_most_top_k_of_the_given_hits_best_first(any_reranker: Reranker, top_k: int) -> None:
    reranked = any_reranker.rerank(KEYWORD, HITS, top_k=top_k)

    assert len(reranked) == min(top_k, len(HITS))
    given = [hit.chunk for hit in HITS]
    assert all(hit.chunk in given for hit in reranked)
    assert len({hit.chunk.path for hit in reranked}) == len(reranked)
    scores = [hit.score for hit in reranked]
    assert scores == sorted(scores, reverse=True)


def test_every_reranker_is_deterministic_and_handles_no_hits(any_reranker: Reranker) -> None:
    assert any_reranker.rerank(KEYWORD, HITS, top_k=4) == any_reranker.rerank(KEYWORD, HITS, top_k=4)
    assert any_reranker.rerank(KEYWORD, [], top_k=4) == []


def _prefill_hub_cache(cache_dir: Path, model_dir: Path, name: str) -> None:
    """Lay a model folder out as the hub cache does after the one download (the network is never used)."""
    repo = cache_dir / f"models--{name.replace('/', '--')}"
    revision = "0" * 40
    shutil.copytree(model_dir, repo / "snapshots" / revision)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(revision)


def _named(tmp_path: Path, name: str) -> Settings:
    return Settings(_env_file=None, vault_path=tmp_path / "vault", data_dir=tmp_path / "data", reranker_model=name)


def test_named_reranker_is_loaded_from_the_models_folder_of_the_data_dir(
    model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    settings = _named(tmp_path, CATALOGUE_RERANKER.lower())  # names are matched as fastembed does, any case
    _prefill_hub_cache(tmp_path / "data" / "models", model_dir, CATALOGUE_RERANKER)

    reranker = build_reranker(settings.retrieval)

    assert [hit.chunk.title for hit in reranker.rerank(KEYWORD, HITS, top_k=2)] == ["Smoothie", "Bread"]


def test_named_reranker_missing_offline_fails_fast_with_advice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    with pytest.raises(InvalidRequest, match="not available offline") as caught:
        build_reranker(_named(tmp_path, CATALOGUE_RERANKER).retrieval)

    assert CATALOGUE_RERANKER in caught.value.message
    assert str(tmp_path / "data" / "models") in caught.value.message
    assert "RERANKER_MODEL_DIR" in caught.value.message


def test_unknown_reranker_name_is_an_invalid_request_naming_the_catalogue(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match="unknown reranker model") as caught:
        build_reranker(_named(tmp_path, "nobody/no-such-reranker").retrieval)

    assert "list_supported_models" in caught.value.message


def test_reranker_name_comes_from_the_environment_and_blank_is_unset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = {"vault_path": tmp_path / "vault", "data_dir": tmp_path / "data"}
    monkeypatch.setenv("RERANKER_MODEL", CATALOGUE_RERANKER)
    assert Settings(_env_file=None, **paths).retrieval.reranker_model == CATALOGUE_RERANKER

    monkeypatch.setenv("RERANKER_MODEL", "  ")
    assert isinstance(build_reranker(Settings(_env_file=None, **paths).retrieval), PassthroughReranker)


def test_a_named_reranker_and_a_reranker_folder_together_are_refused(model_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="RERANKER_MODEL_DIR"):
        Settings(
            _env_file=None,
            vault_path=tmp_path / "vault",
            data_dir=tmp_path / "data",
            reranker_model=CATALOGUE_RERANKER,
            reranker_model_dir=model_dir,
        )
