"""Between the domain types and qdrant-edge's: the shard config, vectors, filters, fusion and engine errors."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import qdrant_edge as qe

from core.domain import Embedding, Fusion, SparseVector
from core.errors import UpstreamUnavailable
from rag.stores.payload import DENSE_VECTOR, SPARSE_VECTOR, KeywordMatch


@contextmanager
def edge_errors(action: str) -> Iterator[None]:
    """Translate qdrant-edge's engine errors during `action` into UpstreamUnavailable."""
    try:
        yield
    except Exception as exc:
        # qdrant-edge 0.9.0 raises plain `Exception` for every engine error and exports no exception classes,
        # so exactly that type is translated; subclasses (TypeError, our own AppErrors ...) propagate as they are.
        if type(exc) is not Exception:
            raise
        raise UpstreamUnavailable("qdrant", f"{action}: {exc}") from exc


# Durability (checked with qdrant-edge 0.9.0): with the WAL on (the default, set explicitly below) every
# update is in the WAL when `update()` returns, so upserts survive a SIGKILL without `flush()`; the WAL is
# replayed by `EdgeShard.load` (tests/integration/test_vector_store_contract.py kills a writer to prove it).
# Whether the WAL is fsynced per update (power loss) is not documented. Without a WAL nothing unflushed
# survives. `flush()` writes the segments, which keeps the replay at the next load short.
def shard_config(dim: int) -> qe.EdgeConfig:
    """Return the shard's configuration: a cosine dense vector of `dim`, an IDF sparse vector, the WAL on."""
    return qe.EdgeConfig(
        vectors={DENSE_VECTOR: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        wal_enabled=True,
    )


def edge_fusion(fusion: Fusion, *, branches: int) -> qe.Fusion.Rrf | qe.Fusion.Dbsf:
    """Return qdrant-edge's fusion of `branches` prefetches for `fusion`."""
    if fusion.method == "dbsf":
        return qe.Fusion.Dbsf()
    # Weights only when they change something: one weight per prefetch, so none for a dense-only search.
    weighted = branches == 2 and fusion.dense_weight != 1.0
    return qe.Fusion.Rrf(k=fusion.rrf_k, weights=[fusion.dense_weight, 1.0] if weighted else None)


def edge_vectors(embedding: Embedding) -> dict[str, qe.NamedVector]:
    """Return a point's named vectors for `embedding`."""
    return {DENSE_VECTOR: list(embedding.dense), SPARSE_VECTOR: edge_sparse(embedding.sparse)}


def edge_sparse(vector: SparseVector) -> qe.SparseVector:
    """Return `vector` as qdrant-edge's sparse vector."""
    return qe.SparseVector(list(vector.indices), list(vector.values))


def embedding_of(vector: qe.Vector | None) -> Embedding | None:
    """Return the Embedding of a stored point's vectors, or None when it has no usable dense vector."""
    if not isinstance(vector, dict):
        return None
    dense = vector.get(DENSE_VECTOR)
    if not isinstance(dense, list):
        return None
    values = [x for x in dense if isinstance(x, float)]
    if not values or len(values) != len(dense):  # empty, or a multi-vector this store never writes
        return None
    sparse = vector.get(SPARSE_VECTOR)
    if not isinstance(sparse, qe.SparseVector):  # a point stored without its sparse vector
        return Embedding(tuple(values), SparseVector((), ()))
    return Embedding(tuple(values), SparseVector(tuple(sparse.indices), tuple(sparse.values)))


def edge_filter(conditions: list[KeywordMatch]) -> qe.Filter | None:
    """Return a filter that needs every one of `conditions` (None for none)."""
    if not conditions:
        return None
    must: list[qe.ConditionType] = [
        qe.FieldCondition(key=c.key, match=qe.MatchAny(list(c.values)) if c.is_any else qe.MatchValue(c.values[0]))
        for c in conditions
    ]
    return qe.Filter(must=must)


def path_filter(paths: Sequence[str]) -> qe.Filter:
    """Return a filter matching the points of any of `paths`."""
    return qe.Filter(must=[qe.FieldCondition(key="path", match=qe.MatchAny(list(paths)))])
