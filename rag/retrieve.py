"""Hybrid retrieval: embed the query, fuse dense and BM25 results in the store, then rerank."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from core.domain import Chunk, Embedding, Fusion, SearchFilters, SearchHit
from core.errors import IndexModelMismatch, InvalidRequest
from core.ports import Embedder, Reranker, VectorStore, WatermarkStore
from core.settings import RetrievalSettings
from core.tracing import OPERATION, span
from rag.answer.neighbours import MAX_DISTANCE, Place, with_neighbours
from rag.answer.secrets import redact_secrets
from rag.diversity import FAR_STRONGER, diversify_by_note
from rag.follow_up import (
    Query,
    fuse_by_rank,
    is_follow_up,
    is_topic_switch,
    leans_on_context,
    with_earlier,
)
from rag.named_sections import named_sections_first
from rag.search_trace import SearchTrace, trace_hits

RERANK_QUERY_CHARS = 4_096
_TAG = re.compile(r"(?<![^\s(,])#[^\s#,;:!?()\[\]]+")  # "#project/librarian", "#area/garden"
_HEADING_LINE = re.compile(r"^#{1,6}\s.*$", re.MULTILINE)
# The notes a question names otherwise than by words (`search_for`'s `among`: a day's notes) weigh double in the
# fusion: their second best chunk stands beside the search's best. Asked "What did I write yesterday?", the words
# find nothing of that day, and at weight 1 the day's Plan lost its slot to other days' notes.
NAMED_NOTES_WEIGHT = 2.0
ANSWERED_FROM_WEIGHT = 0.5
EMPTY_VAULT_META = "vault_empty"  # watermarks meta: the vault path when the last scan found no notes, else ""
INDEX_BUILDING = (
    "Your vault is still being indexed, so I can't search it yet. Ask again in a minute "
    "(GET /v1/index/status shows the progress)."
)


class Retriever:
    """Answers search queries over the index."""

    def __init__(
        self,
        embedder: Embedder,
        store: VectorStore,
        reranker: Reranker,
        settings: RetrievalSettings,
        *,
        watermarks: WatermarkStore | None = None,
    ) -> None:
        self._embedder = embedder
        self._store = store
        self._reranker = reranker
        self._settings = settings
        self._watermarks = watermarks  # tells an empty vault from an index still being built
        self._is_identity_checked = False

    def has_index(self) -> bool:
        """Return True once the index holds at least one chunk."""
        return self._store.count() > 0

    def unready_reason(self) -> str | None:
        """Return why nothing can be searched yet (an empty vault, or the first index still running), else None."""
        if self.has_index():
            return None
        empty_vault = self._watermarks.get_meta(EMPTY_VAULT_META) if self._watermarks else None
        if empty_vault:
            return f"No notes found in {empty_vault}: there is nothing to search yet. Is VAULT_PATH right?"
        return INDEX_BUILDING

    def embed_query(self, query: str) -> Embedding:
        """Embed a query once, for callers that also check coverage with the same vector."""
        with span("embeddings", {OPERATION: "embeddings"}):
            return self._embedder.embed_query(query.strip())

    def similarities(self, query: str, texts: Sequence[str]) -> list[float]:
        """Return how close in meaning each of `texts` is to `query` (dense cosine; the refusal's closest sentences)."""
        if not texts:
            return []
        wanted = self.embed_query(query).dense
        with span("embeddings", {OPERATION: "embeddings"}):
            embedded = self._embedder.embed_documents(list(texts))
        return [sum(a * b for a, b in zip(wanted, item.dense, strict=False)) for item in embedded]

    def prepare(self, question: str, earlier: str = "") -> Query:
        """Embed `question` once for the relevance gate and the search; a follow-up of `earlier` also after it."""
        embedding = self.embed_query(question)
        leans = bool(earlier.strip()) and leans_on_context(question, embedding)
        if not leans and not is_follow_up(embedding, earlier, text=question):
            return Query(question.strip(), embedding)
        text = with_earlier(question, earlier)
        in_context = (text, self.embed_query(text))
        if leans:  # "Tell me more", "And why did I replace it?": nothing to search for on its own
            return Query(question.strip(), embedding, in_context, only_in_context=True)
        switched = is_topic_switch(question, embedding, earlier=self.embed_query(earlier))
        return Query(question.strip(), embedding, in_context, is_topic_switch=switched)

    def search_for(
        self,
        query: Query,
        *,
        k: int | None = None,
        passages: bool = False,
        among: Sequence[str] = (),
        only_among: bool = False,
    ) -> list[SearchHit]:
        """Return the best `k` chunks for a prepared query; a follow-up's two searches are fused by rank.

        `passages`: the hits are what a model reads to answer, not a list of notes (see `search`).
        `among`: notes the question names otherwise than by words (agent/day_notes.py: the notes of a day), searched
        apart and fused by rank with the rest, so their best chunks stand beside the search's best. `only_among`:
        those notes alone are searched ("What did I do on Monday?" is about the day's notes, and other days' passages
        only gave the 0.5B another day's line to answer with).
        """
        if among and only_among:
            text, embedding = query.in_context or (query.text, query.embedding)
            paths = SearchFilters(paths=tuple(among))
            return self.search(text, k=k, embedding=embedding, filters=paths, passages=passages)
        if query.in_context is None and not among:
            return self.search(query.text, k=k, embedding=query.embedding, passages=passages)
        earlier_notes = query.earlier_notes
        if query.in_context is not None and query.only_in_context and not among and not earlier_notes:
            text, embedding = query.in_context
            return self.search(text, k=k, embedding=embedding, passages=passages)
        limit = k or self._settings.top_k
        depth = max(limit, self._settings.rerank_candidates)
        text, embedding = query.in_context or (query.text, query.embedding)
        lists = [] if query.only_in_context else [self.search(query.text, k=depth, embedding=query.embedding)]
        if query.in_context is not None:
            lists.append(self.search(text, k=depth, embedding=embedding))
        weights = [1.0] * len(lists)
        if among:
            lists.append(self.search(text, k=depth, embedding=embedding, filters=SearchFilters(paths=tuple(among))))
            weights.append(NAMED_NOTES_WEIGHT)
        if earlier_notes:
            paths = SearchFilters(paths=earlier_notes)
            lists.append(self.search(text, k=depth, embedding=embedding, filters=paths))
            weights.append(ANSWERED_FROM_WEIGHT)
        fused = fuse_by_rank(lists, rrf_k=self._settings.rrf_k, weights=weights)
        fused = saying_something(fused) if passages else fused
        outweigh = FAR_STRONGER if passages else 0.0  # fused by rank: one scale, whatever ranked the lists
        return diversify_by_note(fused, limit=limit, per_note=self._settings.max_chunks_per_note, outweigh=outweigh)

    def nearest_sections(self, query: Query, *, limit: int) -> list[str]:
        """Return the anchors of the `limit` sections nearest a prepared query, best first, each once.

        What a refusal lists under "Notes searched:" when the relevance floor judged the notes not to cover the
        question; none for a message saying nothing ("???").
        """
        if query.says_nothing:
            return []
        hits = self.search_for(query, k=max(limit, self._settings.top_k), passages=True)
        return list(dict.fromkeys(hit.chunk.anchor for hit in hits))[:limit]

    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        filters: SearchFilters | None = None,
        embedding: Embedding | None = None,
        passages: bool = False,
    ) -> list[SearchHit]:
        """Return the best `k` chunks for `query` (default TOP_K), best first (pass `embedding` if already made).

        `passages`: the hits are what a model reads to answer, so a note's chunk over its share (MAX_CHUNKS_PER_NOTE)
        far stronger than the weakest hit takes its slot (rag/diversity.py); a list of notes keeps its breadth.
        Not after a cross-encoder, whose scores are logits, not one positive scale.
        """
        text = query.strip()
        if not text:
            raise InvalidRequest("the search query is empty")
        limit = k or self._settings.top_k
        if limit < 1:
            raise InvalidRequest("k must be at least 1")
        self._check_identity()
        candidates = max(limit, self._settings.rerank_candidates)
        with span("retrieval vault", {OPERATION: "retrieval", "librarian.retrieval.k": limit}) as traced:
            traced.set_content("gen_ai.retrieval.query.text", text)
            hits = self._store.search(
                embedding or self._embedder.embed_query(text),
                limit=candidates,
                filters=filters,
                prefetch_limit=max(self._settings.prefetch_limit, candidates),
                fusion=self._fusion(),
            )
            # A cross-encoder reads at most its window too: a pasted megabyte costs no more than a page.
            # Every candidate is ranked, so the diversity step has the next notes to fill slots with.
            reranked = self._reranker.rerank(text[:RERANK_QUERY_CHARS], hits, top_k=len(hits))
            reranked = named_sections_first(text, reranked)  # "… in week 45?": the section "Week 45 (2 – 8 Nov)"
            reranked = saying_something(reranked) if passages else reranked
            outweigh = FAR_STRONGER if passages and self._settings.reranker is None else 0.0
            ranked = diversify_by_note(
                reranked, limit=limit, per_note=self._settings.max_chunks_per_note, outweigh=outweigh
            )
            traced.set_attribute("librarian.retrieval.candidates", len(hits))
            traced.set_attribute("librarian.retrieval.hits", len(ranked))
            traced.set_attribute("librarian.retrieval.notes", len({hit.chunk.path for hit in ranked}))
            # The one way out of the index: every search (prompt, tools, retrieval-only replies, the API, the CLI).
            if not self._settings.redact_secrets:
                return ranked
            return [replace(hit, chunk=_without_secrets(hit.chunk)) for hit in ranked]

    def with_neighbours(
        self, hits: Sequence[SearchHit], *, max_chars: int, max_distance: int = MAX_DISTANCE
    ) -> list[SearchHit]:
        """Return `hits` and their neighbouring chunks while the passages fit `max_chars` (rag/answer/neighbours.py)."""

        def read_chunks(places: Sequence[Place]) -> list[Chunk]:
            chunks = self._store.chunks_at(places)
            return [_without_secrets(chunk) for chunk in chunks] if self._settings.redact_secrets else chunks

        return with_neighbours(hits, read_chunks, max_chars=max_chars, max_distance=max_distance)

    def trace(self, query: str, *, k: int | None = None, filters: SearchFilters | None = None) -> SearchTrace:
        """Search as `search` does, and tell for each hit its place in the dense and the BM25 list (the tracer).

        Two more store queries read the lists apart, as deep as the search's prefetches; `search` is unchanged.
        """
        if not query.strip():
            raise InvalidRequest("the search query is empty")
        embedding = self.embed_query(query)
        hits = self.search(query, k=k, filters=filters, embedding=embedding)
        depth = max(self._settings.prefetch_limit, k or self._settings.top_k, self._settings.rerank_candidates)
        lists = self._store.search_lists(embedding, limit=depth, filters=filters)
        return trace_hits(hits, lists, depth=depth, fusion=self._fusion(), reranker=self._settings.reranker)

    def _fusion(self) -> Fusion:
        return Fusion(rrf_k=self._settings.rrf_k)

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


def saying_something(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """Return `hits` without the chunks that are only tags (and headings): a passage of them says nothing to read.

    A daily note's title section is often its tags alone ("#project/librarian" under "Wednesday, 11 November
    2026"); asked about a day, it took the second of six passages. A list of notes keeps them.
    """
    return [hit for hit in hits if _TAG.sub("", _HEADING_LINE.sub("", hit.chunk.text)).strip()]


def _without_secrets(chunk: Chunk) -> Chunk:
    text = redact_secrets(chunk.text)
    return chunk if text == chunk.text else replace(chunk, text=text)
