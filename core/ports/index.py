"""Index ports: the embedder, the vector store, the reranker, the docstore and the watermarks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Protocol

from core.domain import (
    DEFAULT_FUSION,
    Chunk,
    EmbeddedChunk,
    Embedding,
    Fusion,
    IndexIdentity,
    RankedLists,
    SearchFilters,
    SearchHit,
    StoredDoc,
    Watermark,
)


class Embedder(Protocol):
    """Turns text into dense + sparse vectors and measures text in the dense model's tokens."""

    @property
    def identity(self) -> IndexIdentity:
        """Return the model id and dense dimension, stored with the index."""
        ...

    @property
    def max_tokens(self) -> int:
        """Return the dense model's window in tokens (special tokens included)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Return the number of dense-model tokens of `text`, special tokens included."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> list[Embedding]:
        """Embed texts to be stored (document prefix, BM25 document weights)."""
        ...

    def embed_query(self, text: str) -> Embedding:
        """Embed a search query (query prefix, BM25 query weights)."""
        ...


class VectorStore(Protocol):
    """Stores chunk points with a named dense and a named sparse vector and runs hybrid search."""

    def reset(self, identity: IndexIdentity) -> None:
        """Drop every point and recreate the collection for this model identity."""
        ...

    def identity(self) -> IndexIdentity | None:
        """Return the identity the collection was created for, or None if there is none yet."""
        ...

    def upsert(self, chunks: Sequence[EmbeddedChunk]) -> None:
        """Insert or replace points; ids are derived from `path::chunk_index`."""
        ...

    def delete_paths(self, paths: Iterable[str]) -> None:
        """Delete every point of these note paths."""
        ...

    def embeddings_for_paths(self, paths: Iterable[str]) -> dict[str, Embedding]:
        """Return stored vectors of these notes keyed by `embed_key`, so unchanged chunks skip embedding."""
        ...

    def search(
        self,
        query: Embedding,
        *,
        limit: int,
        filters: SearchFilters | None = None,
        prefetch_limit: int = 50,
        fusion: Fusion = DEFAULT_FUSION,
    ) -> list[SearchHit]:
        """Run dense and sparse prefetches (each filtered) and fuse them (RRF unless `fusion` says otherwise)."""
        ...

    def chunks_at(self, places: Sequence[tuple[str, int]]) -> list[Chunk]:
        """Return the stored chunks at these (note path, chunk index) places, in that order; absent ones left out.

        A hit's neighbours are read by place, not searched for: the text around a hit may not resemble the query.
        """
        ...

    def search_lists(self, query: Embedding, *, limit: int, filters: SearchFilters | None = None) -> RankedLists:
        """Run the dense and the sparse search of `search` separately (each filtered, `limit` deep), without fusion.

        For the retrieval tracer, which tells for each hit its place in each list; `search` stays one request.
        """
        ...

    def dense_top_score(self, query: Embedding, *, filters: SearchFilters | None = None) -> float | None:
        """Return the cosine similarity of the best dense match (filtered), or None when nothing matches.

        Fused RRF scores only rank; this absolute score is what a relevance floor can compare against.
        """
        ...

    def term_counts(self, terms: Sequence[int], *, cap: int, filters: SearchFilters | None = None) -> dict[int, int]:
        """Return, per sparse (BM25) term, how many points passing `filters` hold it, counting at most `cap`.

        The coverage check weighs a question's words by how rare they are in the vault and asks whether the
        retrieved notes hold them; a count above `cap` only says "common", which is all that weighing needs.
        """
        ...

    def count(self) -> int:
        """Return the number of points."""
        ...

    def indexed_paths(self) -> set[str]:
        """Return the note paths that have at least one point."""
        ...

    def chunk_counts(self) -> dict[str, int]:
        """Return the number of points per note path (a scroll over every point: for repairs, not per request)."""
        ...

    def flush(self) -> None:
        """Persist pending writes."""
        ...

    def close(self) -> None:
        """Release files and connections."""
        ...


class Reranker(Protocol):
    """Reorders retrieved hits by a finer relevance model."""

    def rerank(self, query: str, hits: Sequence[SearchHit], *, top_k: int) -> list[SearchHit]:
        """Return the best `top_k` hits for `query`, best first."""
        ...


class DocStore(Protocol):
    """Keeps the verbatim markdown of each indexed note and the set of content hashes seen."""

    def put(self, doc: StoredDoc) -> None:
        """Store or replace the markdown of a note."""
        ...

    def get(self, path: str) -> StoredDoc | None:
        """Return the stored note, or None."""
        ...

    def delete(self, path: str) -> None:
        """Forget a note (and its hash when no other note has it)."""
        ...

    def paths(self) -> set[str]:
        """Return every stored path."""
        ...

    def paths_with_hash(self, content_hash: str) -> set[str]:
        """Return the stored paths whose content has this hash (the dedup set)."""
        ...

    def clear(self) -> None:
        """Forget everything (the generation marker too)."""
        ...

    def count(self) -> int:
        """Return the number of stored notes."""
        ...

    def generation(self) -> str | None:
        """Return the marker of the index generation this docstore was filled for (None: never set, or lost)."""
        ...

    def set_generation(self, marker: str) -> None:
        """Store the index generation marker (a Redis emptied by FLUSHALL or a restart loses it: that is the point)."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


class WatermarkStore(Protocol):
    """Remembers per file what was indexed, so unchanged files are skipped."""

    def all(self) -> dict[str, Watermark]:
        """Return every watermark keyed by path."""
        ...

    def mark_pending(self, path: str, *, mtime_ns: int, size: int) -> None:
        """Record that indexing of `path` started; a crash leaves it pending for the next run."""
        ...

    def record_success(
        self,
        path: str,
        *,
        mtime_ns: int,
        size: int,
        sha256: str,
        at: datetime,
        chunks: int | None = None,
        warnings: Sequence[str] | None = None,
    ) -> None:
        """Record that `path` with this content is fully indexed (in `chunks` points, with these warnings).

        `chunks`/`warnings` None keep what was stored (a touched but identical file).
        """
        ...

    def set_chunk_counts(self, counts: dict[str, int]) -> None:
        """Record how many points each confirmed note has (filled in for marks written before counts were kept)."""
        ...

    def record_error(self, path: str, *, mtime_ns: int, size: int, error: str, at: datetime) -> None:
        """Record that `path` could not be indexed, and why."""
        ...

    def delete(self, path: str) -> None:
        """Forget a path that left the vault."""
        ...

    def clear(self) -> None:
        """Forget every file (a full re-index follows)."""
        ...

    def get_meta(self, key: str) -> str | None:
        """Return a stored index-level value (model identity, last run ...)."""
        ...

    def set_meta(self, key: str, value: str) -> None:
        """Store an index-level value."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...
