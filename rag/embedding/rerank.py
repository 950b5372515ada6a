"""Rerankers: a fastembed cross-encoder (named from its catalogue, or a local folder), and the passthrough default."""

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
EXAMPLE_RERANKER = "Xenova/ms-marco-MiniLM-L-6-v2"


class PassthroughReranker:
    """Keep the retrieval order: the default when no cross-encoder is configured."""

    def rerank(self, query: str, hits: Sequence[SearchHit], *, top_k: int) -> list[SearchHit]:  # noqa: ARG002
        """Return the first `top_k` hits unchanged."""
        return list(hits[: max(top_k, 0)])


class FastembedReranker:
    """Score (query, chunk) pairs with a fastembed cross-encoder ONNX model; calls block."""

    def __init__(self, encoder: TextCrossEncoder, *, label: str, batch_size: int = 32) -> None:
        self._encoder = encoder
        self._label = label  # the folder or catalogue name, for traces and errors
        self._batch_size = batch_size

    @classmethod
    def from_folder(cls, model_dir: Path, *, threads: int | None = None) -> FastembedReranker:
        """Load the cross-encoder exported into a local folder (ONNX file and tokenizer files)."""
        return cls(_load_cross_encoder(model_dir, threads=threads), label=model_dir.name)

    @classmethod
    def from_catalogue(cls, name: str, *, cache_dir: Path, threads: int | None = None) -> FastembedReranker:
        """Load a fastembed catalogue cross-encoder, downloaded into `cache_dir` on first use."""
        model_id = _catalogue_name(name)
        return cls(_load_catalogue_cross_encoder(model_id, cache_dir=cache_dir, threads=threads), label=model_id)

    def rerank(self, query: str, hits: Sequence[SearchHit], *, top_k: int) -> list[SearchHit]:
        """Return the best `top_k` hits for `query`, best first, scored by the cross-encoder's logits."""
        if not hits or top_k <= 0:
            return []
        documents = [hit.chunk.embed_text for hit in hits]
        traced: Attributes = {"librarian.rerank.candidates": len(hits), "librarian.rerank.model": self._label}
        with span("rerank", traced):
            try:
                scores = [float(s) for s in self._encoder.rerank(query, documents, batch_size=self._batch_size)]
            except onnx_load_errors() as exc:
                raise InvalidRequest(f"the reranker {self._label} failed to score passages: {exc}") from exc
        # sorted() is stable, so equal scores keep the retrieval order.
        order = sorted(range(len(hits)), key=lambda i: scores[i], reverse=True)
        return [SearchHit(chunk=hits[i].chunk, score=scores[i]) for i in order[:top_k]]


def build_reranker(settings: RetrievalSettings, *, threads: int | None = None) -> Reranker:
    """Load the cross-encoder of RERANKER_MODEL or RERANKER_MODEL_DIR, or pass hits through when none is set."""
    if settings.reranker_model is not None:
        return FastembedReranker.from_catalogue(
            settings.reranker_model, cache_dir=settings.reranker_cache_dir, threads=threads
        )
    if settings.reranker_model_dir is None:
        return PassthroughReranker()
    return FastembedReranker.from_folder(settings.reranker_model_dir, threads=threads)


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


def _catalogue_name(name: str) -> str:
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    known = {str(model["model"]).lower(): str(model["model"]) for model in TextCrossEncoder.list_supported_models()}
    model_id = known.get(name.strip().lower())
    if model_id is None:
        raise InvalidRequest(
            f"unknown reranker model {name!r}; name a fastembed cross-encoder such as {EXAMPLE_RERANKER!r} "
            '(list them with: python -c "from fastembed.rerank.cross_encoder import TextCrossEncoder; '
            "print([m['model'] for m in TextCrossEncoder.list_supported_models()])\"), or set RERANKER_MODEL_DIR "
            "to a local model folder"
        )
    return model_id


def _load_catalogue_cross_encoder(model_id: str, *, cache_dir: Path, threads: int | None) -> TextCrossEncoder:
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    try:
        # With HF_HUB_OFFLINE=1 fastembed only looks in cache_dir, so a missing model fails here at once.
        return TextCrossEncoder(model_name=model_id, cache_dir=str(cache_dir), threads=threads)
    except onnx_load_errors() as exc:
        raise InvalidRequest(
            f"reranker model {model_id!r} is not available offline ({exc}); run once with the hub reachable "
            f"(HF_HUB_OFFLINE unset or 0) to download it into DATA_DIR/models ({cache_dir}), or set "
            "RERANKER_MODEL_DIR to a local model folder instead"
        ) from exc


def _is_registered(name: str) -> bool:
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    return any(model["model"].lower() == name.lower() for model in TextCrossEncoder.list_supported_models())
