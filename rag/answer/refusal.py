"""The relevance floor: decide "the notes don't cover this" from the best dense cosine, before any model is asked."""

from __future__ import annotations

from dataclasses import dataclass

from core.domain import Embedding, SearchFilters
from core.errors import IndexModelMismatch, InvalidRequest
from core.ports import Embedder, VectorStore


@dataclass(frozen=True, slots=True)
class Coverage:
    """How well the notes cover a question: the best dense cosine (None: nothing indexed) and the verdict."""

    score: float | None
    is_covered: bool


def is_covered(score: float | None, floor: float) -> bool:
    """Return True when the best dense cosine reaches the floor; an empty index covers nothing."""
    return score is not None and score >= floor


class RelevanceGate:
    """Score a question against the index with the dense model alone and compare it with the floor.

    Fused RRF scores only rank hits, so they cannot say "nothing here is relevant"; a cosine can.
    """

    def __init__(self, embedder: Embedder, store: VectorStore, *, floor: float) -> None:
        self._embedder = embedder
        self._store = store
        self._floor = floor
        self._is_identity_checked = False

    @property
    def floor(self) -> float:
        """Return the cosine a question's best match must reach to count as covered."""
        return self._floor

    def check(
        self, query: str, filters: SearchFilters | None = None, *, embedding: Embedding | None = None
    ) -> Coverage:
        """Return the coverage of `query` by the notes that pass `filters` (pass `embedding` if already made)."""
        text = query.strip()
        if not text:
            raise InvalidRequest("the question is empty")
        self._check_identity()
        vector = embedding or self._embedder.embed_query(text)
        score = self._store.dense_top_score(vector, filters=filters)
        return Coverage(score=score, is_covered=is_covered(score, self._floor))

    def _check_identity(self) -> None:
        # Another model's vectors of the same size would give meaningless cosines, and so silent refusals.
        if self._is_identity_checked:
            return
        stored, wanted = self._store.identity(), self._embedder.identity
        if stored is not None and stored != wanted:
            raise IndexModelMismatch(
                f"the index was built with {stored.model_id} but EMBED_MODEL is {wanted.model_id}; "
                "run `librarian index` to rebuild it"
            )
        self._is_identity_checked = stored is not None
