"""Rerankers: a fastembed cross-encoder loaded from a local folder, and the passthrough default."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from core.domain import SearchHit
from core.errors import InvalidRequest
from core.ports import Reranker
from core.settings import RetrievalSettings
from core.tracing import Attributes, span
from rag.embedding.dense_models import onnx_load_errors

if TYPE_CHECKING:
    from fastembed.rerank.cross_encoder import TextCrossEncoder

# fastembed's load_tokenizer needs these two; config.json and special_tokens_map.json are used when present.
REQUIRED_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")
# The usual places of the ONNX file in an exported model folder (Hugging Face / Optimum layouts).
ONNX_CANDIDATES = ("model.onnx", "onnx/model.onnx", "model_quantized.onnx", "onnx/model_quantized.onnx")


class PassthroughReranker:
    """Keep the retrieval order: the default when no cross-encoder is configured."""

    def rerank(self, query: str, hits: Sequence[SearchHit], *, top_k: int) -> list[SearchHit]:  # noqa: ARG002
        """Return the first `top_k` hits unchanged."""
        return list(hits[: max(top_k, 0)])


class FastembedReranker:
    """Score (query, chunk) pairs with a cross-encoder ONNX model from a local folder; calls block."""

    def __init__(self, model_dir: Path, *, threads: int | None = None, batch_size: int = 32) -> None:
        self._model_dir = model_dir
        self._batch_size = batch_size
        self._encoder = _load_cross_encoder(model_dir, threads=threads)

    def rerank(self, query: str, hits: Sequence[SearchHit], *, top_k: int) -> list[SearchHit]:
        """Return the best `top_k` hits for `query`, best first, scored by the cross-encoder's logits."""
        if not hits or top_k <= 0:
            return []
        documents = [hit.chunk.embed_text for hit in hits]
        traced: Attributes = {"librarian.rerank.candidates": len(hits), "librarian.rerank.model": self._model_dir.name}
        with span("rerank", traced):
            try:
                scores = [float(s) for s in self._encoder.rerank(query, documents, batch_size=self._batch_size)]
            except onnx_load_errors() as exc:
                raise InvalidRequest(f"the reranker in {self._model_dir} failed to score passages: {exc}") from exc
        # sorted() is stable, so equal scores keep the retrieval order.
        order = sorted(range(len(hits)), key=lambda i: scores[i], reverse=True)
        return [SearchHit(chunk=hits[i].chunk, score=scores[i]) for i in order[:top_k]]


def build_reranker(settings: RetrievalSettings, *, threads: int | None = None) -> Reranker:
    """Load the cross-encoder of RERANKER_MODEL_DIR, or pass hits through when none is configured."""
    if settings.reranker_model_dir is None:
        return PassthroughReranker()
    return FastembedReranker(settings.reranker_model_dir, threads=threads)


def find_onnx_file(model_dir: Path) -> str:
    """Return the ONNX file of a model folder, relative to it, or raise InvalidRequest naming what is missing."""
    if not model_dir.is_dir():
        raise InvalidRequest(f"reranker model folder {model_dir} does not exist")
    missing = [name for name in REQUIRED_TOKENIZER_FILES if not (model_dir / name).is_file()]
    model_file = next((name for name in ONNX_CANDIDATES if (model_dir / name).is_file()), None)
    if model_file is None:
        found = sorted({*model_dir.glob("*.onnx"), *model_dir.glob("onnx/*.onnx")})
        if len(found) == 1:
            model_file = found[0].relative_to(model_dir).as_posix()
        else:
            missing.append("a single ONNX model (model.onnx or onnx/model.onnx)")
    if missing or model_file is None:
        raise InvalidRequest(f"reranker model folder {model_dir} is missing {', '.join(missing)}")
    return model_file


def _load_cross_encoder(model_dir: Path, *, threads: int | None) -> TextCrossEncoder:
    from fastembed.common.model_description import ModelSource
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    folder = model_dir.expanduser().resolve()
    model_file = find_onnx_file(folder)
    # fastembed keeps custom models in a process-wide registry keyed by name, so the name pins folder and file.
    digest = hashlib.sha256(f"{folder}\0{model_file}".encode()).hexdigest()[:12]
    name = f"local/{folder.name}-{digest}"
    if not _is_registered(name):
        try:
            TextCrossEncoder.add_custom_model(
                model=name, sources=ModelSource(url=folder.as_uri()), model_file=model_file
            )
        except ValueError:
            # Registered by another thread in the meantime; anything else is a real error.
            if not _is_registered(name):
                raise
    try:
        # specific_model_path makes fastembed read the folder as is; cache_dir is only created, and it exists.
        return TextCrossEncoder(name, cache_dir=str(folder), threads=threads, specific_model_path=str(folder))
    except onnx_load_errors() as exc:
        raise InvalidRequest(f"reranker model in {folder} could not be loaded: {exc}") from exc


def _is_registered(name: str) -> bool:
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    return any(model["model"].lower() == name.lower() for model in TextCrossEncoder.list_supported_models())
