"""The real Embedder: a fastembed dense model plus qdrant-edge BM25 sparse vectors, blocking (run it in a thread)."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from core.domain import Embedding, IndexIdentity, SparseVector
from core.errors import InvalidRequest
from core.ports import Embedder
from core.settings import BUNDLED_EMBED_MODEL, EmbeddingSettings
from rag.embedding.dense_models import describe_dense_model, load_dense_model, prefixes_for
from rag.spellings import with_other_spellings

if TYPE_CHECKING:
    from fastembed import TextEmbedding
    from qdrant_edge import Bm25
    from qdrant_edge import SparseVector as EdgeSparseVector
    from tokenizers import Tokenizer

FALLBACK_MAX_TOKENS = 512
# A query is embedded from its first `window * QUERY_CHARS_PER_TOKEN` characters: far more than the dense model's
# window holds (English averages about four characters a token), so the model sees all it can, while a 1 MB
# message is no longer tokenized whole (about a second of CPU) only to be cut to the window. BM25 gets the same
# text, so the sparse and dense halves of a query describe the same words.
QUERY_CHARS_PER_TOKEN = 16


@dataclass(frozen=True, slots=True)
class _LoadedModels:
    dense: TextEmbedding
    bm25: Bm25
    counter: Tokenizer
    max_tokens: int


class FastembedEmbedder:
    """Embed text with a fastembed dense model and qdrant-edge BM25; every call blocks on ONNX work.

    The ONNX model loads on first use, so commands that only need the model's identity (a no-op re-index,
    `status`) do not pay for it.
    """

    def __init__(self, settings: EmbeddingSettings) -> None:
        model_id, dim = describe_dense_model(settings.model)
        self._settings = settings
        self._identity = IndexIdentity(model_id=model_id, dim=dim)
        self._prefixes = prefixes_for(model_id)
        self._batch_size = settings.batch_size
        self._load_lock = threading.Lock()
        self._loaded: _LoadedModels | None = None

    def _models(self) -> _LoadedModels:
        # No lock around inference: onnxruntime documents InferenceSession.run as thread-safe, the loaded
        # fastembed model only reads its session and tokenizer, and BM25 is immutable; a query thus never waits
        # behind a re-index batch (tests/integration/test_embedder_contract.py checks concurrent calls).
        loaded = self._loaded
        if loaded is None:
            with self._load_lock:
                if self._loaded is None:
                    self._loaded = _load_models(self._settings, self._identity.model_id)
                loaded = self._loaded
        return loaded

    @property
    def identity(self) -> IndexIdentity:
        """Return the model id and dense dimension, stored with the index."""
        return self._identity

    @property
    def dense_model(self) -> TextEmbedding:
        """Return the bare fastembed model (benchmarks compare the whole pipeline against it)."""
        return self._models().dense

    @property
    def max_tokens(self) -> int:
        """Return the dense model's window in tokens (special tokens included)."""
        return self._models().max_tokens

    def count_tokens(self, text: str) -> int:
        """Return the tokens of `text` as it is embedded as a document (prefix and special tokens included)."""
        return len(self._models().counter.encode(self._prefixes.document + text).ids)

    def embed_documents(self, texts: Sequence[str]) -> list[Embedding]:
        """Embed texts to be stored (document prefix, BM25 document weights), in input order."""
        models = self._models()
        # Batches of similar length: a batch is padded to its longest text, and chunk lengths vary a lot, so
        # unsorted batches spend most of their time (and memory) on padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        embeddings: list[Embedding | None] = [None] * len(texts)
        for start in range(0, len(order), self._batch_size):
            indices = order[start : start + self._batch_size]
            prefixed = [self._prefixes.document + texts[i] for i in indices]
            dense = _unit_rows(list(models.dense.passage_embed(prefixed, batch_size=self._batch_size)))
            for i, vector in zip(indices, dense, strict=True):
                embeddings[i] = Embedding(dense=vector, sparse=_sparse(models.bm25.embed_document(texts[i])))
        return [embedding for embedding in embeddings if embedding is not None]

    @property
    def max_query_chars(self) -> int:
        """Return how many characters of a query are embedded (the rest is beyond the model's window)."""
        return self.max_tokens * QUERY_CHARS_PER_TOKEN

    def embed_query(self, text: str) -> Embedding:
        """Embed a query's first `max_query_chars` (query prefix; BM25 query weights, its words' other spellings)."""
        models = self._models()
        query = text[: self.max_query_chars]
        dense = _unit_rows(list(models.dense.query_embed([self._prefixes.query + query])))
        sparse, alternates = with_other_spellings(
            _sparse(models.bm25.embed_query(query)), query, lambda word: models.bm25.embed_query(word).indices
        )
        return Embedding(dense=dense[0], sparse=sparse, alternates=alternates)


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    """Load the configured dense model (the bundled one by default) with BM25."""
    if settings.model == BUNDLED_EMBED_MODEL:
        # Set here, not at import: the bundled model never needs the hub, so it must never ask (or hang on) it.
        # A catalogue model is the user's opt-in to one download into DATA_DIR/models.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return FastembedEmbedder(settings)


def _load_models(settings: EmbeddingSettings, model_id: str) -> _LoadedModels:
    from qdrant_edge import Bm25

    model = load_dense_model(settings.model, cache_dir=settings.cache_dir, threads=settings.threads)
    counter, max_tokens = _counting_tokenizer(model.embedding, model_id)
    return _LoadedModels(dense=model.embedding, bm25=Bm25(), counter=counter, max_tokens=max_tokens)


def _counting_tokenizer(dense: TextEmbedding, model_id: str) -> tuple[Tokenizer, int]:
    """Return a copy of the model's tokenizer that neither truncates nor pads, and the model's window."""
    from tokenizers import Tokenizer

    loaded = getattr(dense.model, "tokenizer", None)
    if not isinstance(loaded, Tokenizer):
        raise InvalidRequest(f"embedding model {model_id!r} has no text tokenizer, so chunks cannot be sized")
    truncation = loaded.truncation
    max_tokens = int(truncation["max_length"]) if truncation else FALLBACK_MAX_TOKENS
    # A copy, so counting texts longer than the window is exact and the embedding tokenizer is untouched.
    counter = Tokenizer.from_str(loaded.to_str())
    counter.no_truncation()
    counter.no_padding()
    return counter, max_tokens


def _unit_rows(rows: list[NDArray[Any]]) -> list[tuple[float, ...]]:
    """Return the vectors as tuples of Python floats, scaled to unit length (some models don't normalise)."""
    matrix = np.asarray(rows, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = matrix / np.where(norms == 0.0, 1.0, norms)
    return [tuple(row) for row in unit.tolist()]


def _sparse(vector: EdgeSparseVector) -> SparseVector:
    """Translate a qdrant-edge sparse vector into the domain type."""
    return SparseVector(indices=tuple(int(i) for i in vector.indices), values=tuple(float(v) for v in vector.values))
