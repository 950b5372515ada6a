"""`ServerVectorStore`: the VectorStore on a Qdrant server through qdrant-client (tests run it on `:memory:`)."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from qdrant_client import QdrantClient, models

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
)
from core.errors import InvalidRequest, UpstreamUnavailable
from rag.stores.payload import (
    CHUNK_FIELDS,
    DELETE_PATH_BATCH,
    DENSE_VECTOR,
    INDEXED_FIELDS,
    SPARSE_VECTOR,
    UPSERT_BATCH,
    batched,
    check_dim,
    chunk_from_payload,
    chunk_payload,
    filter_conditions,
    in_order,
    payload_text,
    point_id,
    sort_hits,
)
from rag.stores.server_types import (
    embedding_of,
    identity_from,
    path_filter,
    qdrant_errors,
    qdrant_filter,
    qdrant_fusion,
    qdrant_sparse,
    qdrant_vectors,
    scroll_records,
)


class ServerVectorStore:
    """Store chunk points in one collection of a Qdrant server; the store owns (and closes) the client.

    The model identity lives in the collection's metadata, so it survives restarts and travels with the
    collection. It is cached after the first read; `identity()` always re-reads it.
    """

    def __init__(self, client: QdrantClient, collection: str) -> None:
        self._client = client
        self._collection = collection
        self._identity: IndexIdentity | None = None

    def reset(self, identity: IndexIdentity) -> None:
        """Drop every point and recreate the collection for this model identity."""
        self._identity = None
        with qdrant_errors():
            if self._client.collection_exists(self._collection):
                self._client.delete_collection(self._collection)
            self._client.create_collection(
                self._collection,
                vectors_config={DENSE_VECTOR: models.VectorParams(size=identity.dim, distance=models.Distance.COSINE)},
                sparse_vectors_config={SPARSE_VECTOR: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                metadata={"model_id": identity.model_id, "dim": identity.dim},
            )
            with warnings.catch_warnings():
                # Local mode (`:memory:`) warns that it ignores payload indexes; the server uses them.
                warnings.filterwarnings("ignore", message="Payload indexes have no effect in the local Qdrant")
                for field in INDEXED_FIELDS:
                    self._client.create_payload_index(
                        self._collection, field, models.PayloadSchemaType.KEYWORD, wait=True
                    )
        if self.identity() != identity:  # a server too old for collection metadata would reset on every run
            raise UpstreamUnavailable("qdrant", "the server did not keep the collection metadata; upgrade Qdrant")

    def identity(self) -> IndexIdentity | None:
        """Return the identity the collection was created for, or None if there is none yet."""
        with qdrant_errors():
            if not self._client.collection_exists(self._collection):
                self._identity = None
                return None
            metadata = self._client.get_collection(self._collection).config.metadata or {}
        self._identity = identity_from(metadata)
        return self._identity

    def upsert(self, chunks: Sequence[EmbeddedChunk]) -> None:
        """Insert or replace points; ids are derived from `path::chunk_index`."""
        identity = self._known_identity()
        if identity is None:
            raise InvalidRequest("vector store has no collection yet; call reset(identity) first")
        check_dim(identity, (item.embedding for item in chunks))
        for batch in batched(chunks, UPSERT_BATCH):
            points = [
                models.PointStruct(
                    id=point_id(item.chunk.path, item.chunk.index),
                    vector=qdrant_vectors(item.embedding),
                    payload=chunk_payload(item),
                )
                for item in batch
            ]
            with qdrant_errors():
                self._client.upsert(self._collection, points=points, wait=True)

    def delete_paths(self, paths: Iterable[str]) -> None:
        """Delete every point of these note paths."""
        unique = sorted(set(paths))
        if not unique or self._known_identity() is None:
            return
        for batch in batched(unique, DELETE_PATH_BATCH):
            selector = models.FilterSelector(filter=path_filter(batch))
            with qdrant_errors():
                self._client.delete(self._collection, points_selector=selector, wait=True)

    def embeddings_for_paths(self, paths: Iterable[str]) -> dict[str, Embedding]:
        """Return stored vectors of these notes keyed by `embed_key`, so unchanged chunks skip embedding."""
        found: dict[str, Embedding] = {}
        for batch in batched(sorted(set(paths)), DELETE_PATH_BATCH):
            for record in self._scroll(path_filter(batch), with_payload=["embed_key"], with_vectors=True):
                embedding = embedding_of(record.vector)
                if embedding is not None:
                    found[payload_text(record.payload, "embed_key")] = embedding
        return found

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
        identity = self._known_identity()
        if identity is None:
            return []
        check_dim(identity, [query])
        # The filter sits on each prefetch: local mode ignores an outer-only filter there (qdrant-client #1372).
        condition = qdrant_filter(filter_conditions(filters))
        depth = max(prefetch_limit, limit)
        prefetch = [models.Prefetch(query=list(query.dense), using=DENSE_VECTOR, limit=depth, filter=condition)]
        if query.sparse.indices:  # an empty sparse query matches nothing: leave the dense branch alone
            prefetch.append(
                models.Prefetch(query=qdrant_sparse(query.sparse), using=SPARSE_VECTOR, limit=depth, filter=condition)
            )
        with qdrant_errors():
            response = self._client.query_points(
                self._collection,
                prefetch=prefetch,
                query=qdrant_fusion(fusion, branches=len(prefetch)),
                limit=limit,
                with_payload=list(CHUNK_FIELDS),
            )
        return sort_hits(SearchHit(chunk_from_payload(point.payload or {}), point.score) for point in response.points)

    def chunks_at(self, places: Sequence[tuple[str, int]]) -> list[Chunk]:
        """Return the stored chunks at these (note path, chunk index) places, in that order; absent ones left out."""
        if not places or self._known_identity() is None:
            return []
        with qdrant_errors():
            records = self._client.retrieve(
                self._collection,
                [point_id(path, index) for path, index in places],
                with_payload=list(CHUNK_FIELDS),
                with_vectors=False,
            )
        return in_order(places, [chunk_from_payload(record.payload or {}) for record in records])

    def search_lists(self, query: Embedding, *, limit: int, filters: SearchFilters | None = None) -> RankedLists:
        """Run the dense and the sparse query of `search` apart (each filtered), each best first, unfused."""
        identity = self._known_identity()
        if identity is None:
            return RankedLists((), ())
        check_dim(identity, [query])
        condition = qdrant_filter(filter_conditions(filters))
        dense = self._ranked(list(query.dense), DENSE_VECTOR, limit, condition)
        if not query.sparse.indices:  # as in `search`: no sparse branch for a query without terms
            return RankedLists(dense, ())
        return RankedLists(dense, self._ranked(qdrant_sparse(query.sparse), SPARSE_VECTOR, limit, condition))

    def _ranked(
        self, query: list[float] | models.SparseVector, using: str, limit: int, condition: models.Filter | None
    ) -> tuple[SearchHit, ...]:
        with qdrant_errors():
            response = self._client.query_points(
                self._collection,
                query=query,
                using=using,
                query_filter=condition,
                limit=limit,
                with_payload=list(CHUNK_FIELDS),
            )
        return tuple(sort_hits(SearchHit(chunk_from_payload(p.payload or {}), p.score) for p in response.points))

    def dense_top_score(self, query: Embedding, *, filters: SearchFilters | None = None) -> float | None:
        """Return the cosine similarity of the best dense match (None when nothing matches)."""
        identity = self._known_identity()
        if identity is None:
            return None
        check_dim(identity, [query])
        with qdrant_errors():
            response = self._client.query_points(
                self._collection,
                query=list(query.dense),
                using=DENSE_VECTOR,
                query_filter=qdrant_filter(filter_conditions(filters)),
                limit=1,
                with_payload=False,
            )
        return float(response.points[0].score) if response.points else None

    def term_counts(self, terms: Sequence[int], *, cap: int, filters: SearchFilters | None = None) -> dict[int, int]:
        """Return, per sparse term, how many points passing `filters` hold it (at most `cap` counted)."""
        counts = dict.fromkeys(terms, 0)
        if self._known_identity() is None or cap < 1:
            return counts
        condition = qdrant_filter(filter_conditions(filters))
        for term in counts:
            # A sparse search only returns points that share a term with the query: with one term, its holders.
            with qdrant_errors():
                response = self._client.query_points(
                    self._collection,
                    query=models.SparseVector(indices=[term], values=[1.0]),
                    using=SPARSE_VECTOR,
                    query_filter=condition,
                    limit=cap,
                    with_payload=False,
                )
            counts[term] = len(response.points)
        return counts

    def count(self) -> int:
        """Return the number of points."""
        if self._known_identity() is None:
            return 0
        with qdrant_errors():
            return self._client.count(self._collection, exact=True).count

    def indexed_paths(self) -> set[str]:
        """Return the note paths that have at least one point."""
        return set(self.chunk_counts())

    def chunk_counts(self) -> dict[str, int]:
        """Return the number of points per note path (scrolls every point)."""
        records = self._scroll(None, with_payload=["path"])
        return dict(Counter(payload_text(record.payload, "path") for record in records))

    def flush(self) -> None:
        """Do nothing: the server persists through its own WAL and every write waits for it."""

    def close(self) -> None:
        """Close the client; safe to call twice."""
        with qdrant_errors():
            self._client.close()

    def _known_identity(self) -> IndexIdentity | None:
        # Re-read while unknown, so a collection another process created is picked up.
        return self._identity if self._identity is not None else self.identity()

    def _scroll(
        self, condition: models.Filter | None, *, with_payload: list[str], with_vectors: bool = False
    ) -> Iterator[models.Record]:
        if self._known_identity() is None:
            return
        yield from scroll_records(
            self._client, self._collection, condition=condition, with_payload=with_payload, with_vectors=with_vectors
        )
