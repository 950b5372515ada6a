"""Hybrid retrieval: embed the query, fuse dense and BM25 results in the store, then rerank."""

from __future__ import annotations

from core.domain import SearchFilters, SearchHit
from core.errors import InvalidRequest
from core.ports import Embedder, Reranker, VectorStore
from core.settings import RetrievalSettings


class Retriever:
    """Answers search queries over the index."""

    def __init__(self, embedder: Embedder, store: VectorStore, reranker: Reranker, settings: RetrievalSettings) -> None:
        self._embedder = embedder
        self._store = store
        self._reranker = reranker
        self._settings = settings

    def search(self, query: str, *, k: int | None = None, filters: SearchFilters | None = None) -> list[SearchHit]:
        """Return the best `k` chunks for `query` (default TOP_K), best first."""
        text = query.strip()
        if not text:
            raise InvalidRequest("the search query is empty")
        limit = k or self._settings.top_k
        if limit < 1:
            raise InvalidRequest("k must be at least 1")
        candidates = max(limit, self._settings.rerank_candidates)
        hits = self._store.search(
            self._embedder.embed_query(text),
            limit=candidates,
            filters=filters,
            prefetch_limit=max(self._settings.prefetch_limit, candidates),
            rrf_k=self._settings.rrf_k,
        )
        return self._reranker.rerank(text, hits, top_k=limit)
