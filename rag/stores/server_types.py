"""Between the domain types and qdrant-client's: vectors, filters, fusion, metadata, errors and paged scrolls."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from qdrant_client import QdrantClient, models
from qdrant_client.common.client_exceptions import QdrantException
from qdrant_client.http.exceptions import ApiException

from core.domain import Embedding, Fusion, IndexIdentity, SparseVector
from core.errors import UpstreamUnavailable
from rag.stores.payload import DENSE_VECTOR, SCROLL_PAGE, SPARSE_VECTOR, KeywordMatch


@contextmanager
def qdrant_errors() -> Iterator[None]:
    """Translate qdrant-client's errors inside the block into UpstreamUnavailable."""
    try:
        yield
    except (ApiException, QdrantException) as exc:  # HTTP errors, refused connections, timeouts, rate limits
        raise UpstreamUnavailable("qdrant", str(exc)) from exc


def identity_from(metadata: Mapping[str, object]) -> IndexIdentity | None:
    """Return the model identity kept in a collection's metadata, or None when it holds none."""
    model_id, dim = metadata.get("model_id"), metadata.get("dim")
    if not isinstance(model_id, str) or not isinstance(dim, int):
        return None  # a collection this program did not create: the indexer resets it before use
    return IndexIdentity(model_id=model_id, dim=dim)


def qdrant_fusion(fusion: Fusion, *, branches: int) -> models.RrfQuery | models.FusionQuery:
    """Return qdrant-client's fusion query of `branches` prefetches for `fusion`."""
    if fusion.method == "dbsf":
        return models.FusionQuery(fusion=models.Fusion.DBSF)
    # Weights only when they change something: one weight per prefetch, so none for a dense-only search.
    weighted = branches == 2 and fusion.dense_weight != 1.0
    return models.RrfQuery(rrf=models.Rrf(k=fusion.rrf_k, weights=[fusion.dense_weight, 1.0] if weighted else None))


def qdrant_vectors(embedding: Embedding) -> dict[str, models.Vector]:
    """Return a point's named vectors for `embedding`."""
    return {DENSE_VECTOR: list(embedding.dense), SPARSE_VECTOR: qdrant_sparse(embedding.sparse)}


def qdrant_sparse(vector: SparseVector) -> models.SparseVector:
    """Return `vector` as qdrant-client's sparse vector."""
    return models.SparseVector(indices=list(vector.indices), values=list(vector.values))


def embedding_of(vector: object) -> Embedding | None:
    """Return the Embedding of a stored point's vectors, or None when it has no usable dense vector."""
    if not isinstance(vector, dict):
        return None
    dense, sparse = vector.get(DENSE_VECTOR), vector.get(SPARSE_VECTOR)
    if not isinstance(dense, list) or not dense:
        return None
    stored = SparseVector((), ())
    if isinstance(sparse, models.SparseVector):
        stored = SparseVector(tuple(sparse.indices), tuple(sparse.values))
    return Embedding(tuple(float(x) for x in dense), stored)


def qdrant_filter(conditions: list[KeywordMatch]) -> models.Filter | None:
    """Return a filter that needs every one of `conditions` (None for none)."""
    if not conditions:
        return None
    must: list[models.Condition] = [
        models.FieldCondition(
            key=c.key, match=models.MatchAny(any=list(c.values)) if c.is_any else models.MatchValue(value=c.values[0])
        )
        for c in conditions
    ]
    return models.Filter(must=must)


def path_filter(paths: Sequence[str]) -> models.Filter:
    """Return a filter matching the points of any of `paths`."""
    return models.Filter(must=[models.FieldCondition(key="path", match=models.MatchAny(any=list(paths)))])


def scroll_records(
    client: QdrantClient,
    collection: str,
    *,
    condition: models.Filter | None,
    with_payload: list[str],
    with_vectors: bool,
) -> Iterator[models.Record]:
    """Yield every record of `collection` that passes `condition`, a page at a time."""
    offset: models.ExtendedPointId | None = None
    while True:
        with qdrant_errors():
            records, offset = client.scroll(
                collection,
                scroll_filter=condition,
                limit=SCROLL_PAGE,
                offset=offset,
                with_payload=with_payload,
                with_vectors=with_vectors,
            )
        yield from records
        if offset is None:
            return
