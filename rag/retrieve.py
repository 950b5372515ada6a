"""Hybrid retrieval: embed the query, fuse dense and BM25 results in the store, then rerank."""

from __future__ import annotations

from core.domain import Embedding, SearchFilters, SearchHit
from core.errors import IndexModelMismatch, InvalidRequest
from core.ports import Embedder, Reranker, VectorStore
from core.settings import RetrievalSettings


class Retriever:
    """Answers search queries over the index."""

    def __init__(self, embedder: Embedder, store: VectorStore, reranker: Reranker, settings: RetrievalSettings) -> None:
        self._embedder = embedder
        self._store = store
        self._reranker = reranker
        self._settings = settings
        self._is_identity_checked = False

    def has_index(self) -> bool:
        """Return True once the index holds at least one chunk."""
        return self._store.count() > 0

    def embed_query(self, query: str) -> Embedding:
        """Embed a query once, for callers that also check coverage with the same vector."""
        return self._embedder.embed_query(query.strip())

    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        filters: SearchFilters | None = None,
        embedding: Embedding | None = None,
    ) -> list[SearchHit]:
        """Return the best `k` chunks for `query` (default TOP_K), best first (pass `embedding` if already made)."""
        text = query.strip()
        if not text:
            raise InvalidRequest("the search query is empty")
        limit = k or self._settings.top_k
        if limit < 1:
            raise InvalidRequest("k must be at least 1")
        self._check_identity()
        candidates = max(limit, self._settings.rerank_candidates)
        hits = self._store.search(
            embedding or self._embedder.embed_query(text),
            limit=candidates,
            filters=filters,
            prefetch_limit=max(self._settings.prefetch_limit, candidates),
            rrf_k=self._settings.rrf_k,
        )
        return self._reranker.rerank(text, hits, top_k=limit)

    def _check_identity(self) -> None:
        """Refuse to search an index built by another model: its vectors would silently mean nothing."""
        if self._is_identity_checked:
            return
        stored = self._store.identity()
        wanted = self._embedder.identity
        if stored is not None and stored != wanted:
            raise IndexModelMismatch(
                f"the index was built with {stored.model_id} ({stored.dim} dimensions) but EMBED_MODEL is "
                f"{wanted.model_id} ({wanted.dim} dimensions); run `librarian index` to rebuild it"
            )
        self._is_identity_checked = stored is not None
