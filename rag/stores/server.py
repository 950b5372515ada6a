"""`ServerVectorStore`: the VectorStore on a Qdrant server through qdrant-client (tests run it on `:memory:`)."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from qdrant_client import QdrantClient, models
from qdrant_client.common.client_exceptions import QdrantException
from qdrant_client.http.exceptions import ApiException

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
    SparseVector,
)
from core.errors import InvalidRequest, UpstreamUnavailable
from rag.stores.payload import (
    CHUNK_FIELDS,
    DELETE_PATH_BATCH,
    DENSE_VECTOR,
    INDEXED_FIELDS,
    SCROLL_PAGE,
    SPARSE_VECTOR,
    UPSERT_BATCH,
    KeywordMatch,
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
        with _qdrant_errors():
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
        with _qdrant_errors():
            if not self._client.collection_exists(self._collection):
                self._identity = None
                return None
            metadata = self._client.get_collection(self._collection).config.metadata or {}
        self._identity = _identity_from(metadata)
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
                    vector={DENSE_VECTOR: list(item.embedding.dense), SPARSE_VECTOR: _sparse(item.embedding.sparse)},
                    payload=chunk_payload(item),
                )
                for item in batch
            ]
            with _qdrant_errors():
                self._client.upsert(self._collection, points=points, wait=True)

    def delete_paths(self, paths: Iterable[str]) -> None:
        """Delete every point of these note paths."""
        unique = sorted(set(paths))
        if not unique or self._known_identity() is None:
            return
        for batch in batched(unique, DELETE_PATH_BATCH):
            selector = models.FilterSelector(filter=_path_filter(batch))
            with _qdrant_errors():
                self._client.delete(self._collection, points_selector=selector, wait=True)

    def embeddings_for_paths(self, paths: Iterable[str]) -> dict[str, Embedding]:
        """Return stored vectors of these notes keyed by `embed_key`, so unchanged chunks skip embedding."""
        found: dict[str, Embedding] = {}
        for batch in batched(sorted(set(paths)), DELETE_PATH_BATCH):
            for record in self._scroll(_path_filter(batch), with_payload=["embed_key"], with_vectors=True):
                embedding = _embedding(record.vector)
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
        condition = _filter(filter_conditions(filters))
        depth = max(prefetch_limit, limit)
        prefetch = [models.Prefetch(query=list(query.dense), using=DENSE_VECTOR, limit=depth, filter=condition)]
        if query.sparse.indices:  # an empty sparse query matches nothing: leave the dense branch alone
            prefetch.append(
                models.Prefetch(query=_sparse(query.sparse), using=SPARSE_VECTOR, limit=depth, filter=condition)
            )
        with _qdrant_errors():
            response = self._client.query_points(
                self._collection,
                prefetch=prefetch,
                query=_fusion(fusion, branches=len(prefetch)),
                limit=limit,
                with_payload=list(CHUNK_FIELDS),
            )
        return sort_hits(SearchHit(chunk_from_payload(point.payload or {}), point.score) for point in response.points)

    def chunks_at(self, places: Sequence[tuple[str, int]]) -> list[Chunk]:
        """Return the stored chunks at these (note path, chunk index) places, in that order; absent ones left out."""
        if not places or self._known_identity() is None:
            return []
        with _qdrant_errors():
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
        condition = _filter(filter_conditions(filters))
        dense = self._ranked(list(query.dense), DENSE_VECTOR, limit, condition)
        if not query.sparse.indices:  # as in `search`: no sparse branch for a query without terms
            return RankedLists(dense, ())
        return RankedLists(dense, self._ranked(_sparse(query.sparse), SPARSE_VECTOR, limit, condition))

    def _ranked(
        self, query: list[float] | models.SparseVector, using: str, limit: int, condition: models.Filter | None
    ) -> tuple[SearchHit, ...]:
        with _qdrant_errors():
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
        with _qdrant_errors():
            response = self._client.query_points(
                self._collection,
                query=list(query.dense),
                using=DENSE_VECTOR,
                query_filter=_filter(filter_conditions(filters)),
                limit=1,
                with_payload=False,
            )
        return float(response.points[0].score) if response.points else None

    def term_counts(self, terms: Sequence[int], *, cap: int, filters: SearchFilters | None = None) -> dict[int, int]:
        """Return, per sparse term, how many points passing `filters` hold it (at most `cap` counted)."""
        counts = dict.fromkeys(terms, 0)
        if self._known_identity() is None or cap < 1:
            return counts
        condition = _filter(filter_conditions(filters))
        for term in counts:
            # A sparse search only returns points that share a term with the query: with one term, its holders.
            with _qdrant_errors():
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
        with _qdrant_errors():
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
        with _qdrant_errors():
            self._client.close()

    def _known_identity(self) -> IndexIdentity | None:
        # Re-read while unknown, so a collection another process created is picked up.
        return self._identity if self._identity is not None else self.identity()

    def _scroll(
        self, condition: models.Filter | None, *, with_payload: list[str], with_vectors: bool = False
    ) -> Iterator[models.Record]:
        if self._known_identity() is None:
            return
        offset: models.ExtendedPointId | None = None
        while True:
            with _qdrant_errors():
                records, offset = self._client.scroll(
                    self._collection,
                    scroll_filter=condition,
                    limit=SCROLL_PAGE,
                    offset=offset,
                    with_payload=with_payload,
                    with_vectors=with_vectors,
                )
            yield from records
            if offset is None:
                return


@contextmanager
def _qdrant_errors() -> Iterator[None]:
    try:
        yield
    except (ApiException, QdrantException) as exc:  # HTTP errors, refused connections, timeouts, rate limits
        raise UpstreamUnavailable("qdrant", str(exc)) from exc


def _identity_from(metadata: Mapping[str, object]) -> IndexIdentity | None:
    model_id, dim = metadata.get("model_id"), metadata.get("dim")
    if not isinstance(model_id, str) or not isinstance(dim, int):
        return None  # a collection this program did not create: the indexer resets it before use
    return IndexIdentity(model_id=model_id, dim=dim)


def _fusion(fusion: Fusion, *, branches: int) -> models.RrfQuery | models.FusionQuery:
    if fusion.method == "dbsf":
        return models.FusionQuery(fusion=models.Fusion.DBSF)
    # Weights only when they change something: one weight per prefetch, so none for a dense-only search.
    weighted = branches == 2 and fusion.dense_weight != 1.0
    return models.RrfQuery(rrf=models.Rrf(k=fusion.rrf_k, weights=[fusion.dense_weight, 1.0] if weighted else None))


def _sparse(vector: SparseVector) -> models.SparseVector:
    return models.SparseVector(indices=list(vector.indices), values=list(vector.values))


def _embedding(vector: object) -> Embedding | None:
    if not isinstance(vector, dict):
        return None
    dense, sparse = vector.get(DENSE_VECTOR), vector.get(SPARSE_VECTOR)
    if not isinstance(dense, list) or not dense:
        return None
    stored = SparseVector((), ())
    if isinstance(sparse, models.SparseVector):
        stored = SparseVector(tuple(sparse.indices), tuple(sparse.values))
    return Embedding(tuple(float(x) for x in dense), stored)


def _filter(conditions: list[KeywordMatch]) -> models.Filter | None:
    if not conditions:
        return None
    must: list[models.Condition] = [
        models.FieldCondition(
            key=c.key, match=models.MatchAny(any=list(c.values)) if c.is_any else models.MatchValue(value=c.values[0])
        )
        for c in conditions
    ]
    return models.Filter(must=must)


def _path_filter(paths: Sequence[str]) -> models.Filter:
    return models.Filter(must=[models.FieldCondition(key="path", match=models.MatchAny(any=list(paths)))])
