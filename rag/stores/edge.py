"""`EdgeVectorStore`: the VectorStore on an embedded qdrant-edge shard inside the data directory (the default)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import qdrant_edge as qe

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
from core.errors import InvalidRequest, ResourceBusy, UpstreamUnavailable
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

# Durability (checked with qdrant-edge 0.9.0): with the WAL on (the default, set explicitly below) every
# update is in the WAL when `update()` returns, so upserts survive a SIGKILL without `flush()`; the WAL is
# replayed by `EdgeShard.load` (tests/integration/test_vector_store_contract.py kills a writer to prove it).
# Whether the WAL is fsynced per update (power loss) is not documented. Without a WAL nothing unflushed
# survives. `flush()` writes the segments, which keeps the replay at the next load short.


class EdgeVectorStore:
    """Store chunk points in an in-process qdrant-edge shard under `path`.

    The directory holds `shard/` (segments and WAL) and `identity.json` (the model the shard was built for).
    A directory without both is uninitialised until `reset()`. Only one process may open a shard at a time.
    qdrant-edge holds the GIL during calls: writes go in batches of <= 256 points, and `optimize()` is for
    the indexer after a bulk load, never while serving searches.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._shard_dir = path / "shard"
        self._identity_file = path / "identity.json"
        self._shard: qe.EdgeShard | None = None
        # Taken before qdrant-edge touches a file: a second `EdgeShard.load` on a shard another process has open
        # fails on the WAL lock only after rewriting segment files the first process still uses (it damaged them).
        self._guard: int | None = _hold_open_lock(path)
        self._identity = _read_identity(self._identity_file)
        if self._identity is None or not self._shard_dir.is_dir():
            self._identity = None  # a reset that did not finish: the next reset() rebuilds the shard
            return
        try:
            with _edge_errors(f"cannot open the shard at {self._shard_dir}"):
                self._shard = qe.EdgeShard.load(str(self._shard_dir))
        except UpstreamUnavailable:
            self._release_guard()
            raise

    def reset(self, identity: IndexIdentity) -> None:
        """Drop every point and recreate the shard for this model identity."""
        if self._guard is None:
            self._guard = _hold_open_lock(self._path)
        shard, self._shard = self._shard, None
        if shard is not None:
            with _edge_errors("close failed"):
                shard.close()
        self._identity = None
        # Identity goes first and comes back last, so a crash mid-reset leaves a store that asks for a reset.
        self._identity_file.unlink(missing_ok=True)
        if self._shard_dir.exists():
            shutil.rmtree(self._shard_dir)
        self._path.mkdir(parents=True, exist_ok=True)
        with _edge_errors(f"cannot create a shard at {self._shard_dir}"):
            shard = qe.EdgeShard.create(str(self._shard_dir), _config(identity.dim))
            for field in INDEXED_FIELDS:
                shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))
            shard.flush()
        self._shard = shard
        _write_identity(self._identity_file, identity)
        self._identity = identity

    def identity(self) -> IndexIdentity | None:
        """Return the identity the shard was created for, or None if there is none yet."""
        return self._identity

    def upsert(self, chunks: Sequence[EmbeddedChunk]) -> None:
        """Insert or replace points; ids are derived from `path::chunk_index`."""
        shard, identity = self._require_shard()
        check_dim(identity, (item.embedding for item in chunks))
        for batch in batched(chunks, UPSERT_BATCH):
            points = [
                qe.Point(point_id(item.chunk.path, item.chunk.index), _vectors(item.embedding), chunk_payload(item))
                for item in batch
            ]
            with _edge_errors("upsert failed"):
                shard.update(qe.UpdateOperation.upsert_points(points))

    def delete_paths(self, paths: Iterable[str]) -> None:
        """Delete every point of these note paths."""
        unique = sorted(set(paths))
        if self._shard is None or not unique:
            return
        for batch in batched(unique, DELETE_PATH_BATCH):
            with _edge_errors("delete failed"):
                self._shard.update(qe.UpdateOperation.delete_points_by_filter(_path_filter(batch)))

    def embeddings_for_paths(self, paths: Iterable[str]) -> dict[str, Embedding]:
        """Return stored vectors of these notes keyed by `embed_key`, so unchanged chunks skip embedding."""
        found: dict[str, Embedding] = {}
        for batch in batched(sorted(set(paths)), DELETE_PATH_BATCH):
            for record in self._scroll(_path_filter(batch), with_payload=["embed_key"], with_vector=True):
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
        if self._shard is None or self._identity is None:
            return []
        check_dim(self._identity, [query])
        condition = _filter(filter_conditions(filters))
        depth = max(prefetch_limit, limit)
        prefetches = [qe.Prefetch(depth, qe.Query.Nearest(list(query.dense), using=DENSE_VECTOR), filter=condition)]
        if query.sparse.indices:  # an empty sparse query matches nothing: leave the dense branch alone
            sparse = qe.Query.Nearest(_sparse(query.sparse), using=SPARSE_VECTOR)
            prefetches.append(qe.Prefetch(depth, sparse, filter=condition))
        request = qe.QueryRequest(
            limit=limit,
            prefetches=prefetches,
            query=_fusion(fusion, branches=len(prefetches)),  # type: ignore[arg-type]  # stub: Fusion, not its variants
            with_payload=list(CHUNK_FIELDS),
        )
        with _edge_errors("search failed"):
            points = self._shard.query(request)
        return sort_hits(SearchHit(chunk_from_payload(point.payload or {}), point.score) for point in points)

    def chunks_at(self, places: Sequence[tuple[str, int]]) -> list[Chunk]:
        """Return the stored chunks at these (note path, chunk index) places, in that order; absent ones left out."""
        if self._shard is None or not places:
            return []
        with _edge_errors("retrieve failed"):
            records = self._shard.retrieve([point_id(path, index) for path, index in places], list(CHUNK_FIELDS), False)
        return in_order(places, [chunk_from_payload(record.payload or {}) for record in records])

    def search_lists(self, query: Embedding, *, limit: int, filters: SearchFilters | None = None) -> RankedLists:
        """Run the dense and the sparse query of `search` apart (each filtered), each best first, unfused."""
        if self._shard is None or self._identity is None:
            return RankedLists((), ())
        check_dim(self._identity, [query])
        condition = _filter(filter_conditions(filters))
        dense = self._ranked(qe.Query.Nearest(list(query.dense), using=DENSE_VECTOR), limit, condition)
        if not query.sparse.indices:  # as in `search`: no sparse branch for a query without terms
            return RankedLists(dense, ())
        sparse = self._ranked(qe.Query.Nearest(_sparse(query.sparse), using=SPARSE_VECTOR), limit, condition)
        return RankedLists(dense, sparse)

    def _ranked(self, query: qe.Query, limit: int, condition: qe.Filter | None) -> tuple[SearchHit, ...]:
        request = qe.QueryRequest(limit=limit, query=query, filter=condition, with_payload=list(CHUNK_FIELDS))
        with _edge_errors("search failed"):
            points = self._require_shard()[0].query(request)
        return tuple(sort_hits(SearchHit(chunk_from_payload(point.payload or {}), point.score) for point in points))

    def dense_top_score(self, query: Embedding, *, filters: SearchFilters | None = None) -> float | None:
        """Return the cosine similarity of the best dense match (None when nothing matches)."""
        if self._shard is None or self._identity is None:
            return None
        check_dim(self._identity, [query])
        request = qe.QueryRequest(
            limit=1,
            query=qe.Query.Nearest(list(query.dense), using=DENSE_VECTOR),
            filter=_filter(filter_conditions(filters)),
            with_payload=False,
        )
        with _edge_errors("search failed"):
            points = self._shard.query(request)
        return float(points[0].score) if points else None

    def term_counts(self, terms: Sequence[int], *, cap: int, filters: SearchFilters | None = None) -> dict[int, int]:
        """Return, per sparse term, how many points passing `filters` hold it (at most `cap` counted)."""
        counts = dict.fromkeys(terms, 0)
        if self._shard is None or self._identity is None or cap < 1:
            return counts
        condition = _filter(filter_conditions(filters))
        for term in counts:
            # A sparse search only returns points that share a term with the query: with one term, its holders.
            request = qe.QueryRequest(
                limit=cap,
                query=qe.Query.Nearest(qe.SparseVector([term], [1.0]), using=SPARSE_VECTOR),
                filter=condition,
                with_payload=False,
            )
            with _edge_errors("search failed"):
                counts[term] = len(self._shard.query(request))
        return counts

    def count(self) -> int:
        """Return the number of points."""
        if self._shard is None:
            return 0
        with _edge_errors("count failed"):
            return self._shard.count(qe.CountRequest(exact=True))

    def indexed_paths(self) -> set[str]:
        """Return the note paths that have at least one point."""
        return set(self.chunk_counts())

    def chunk_counts(self) -> dict[str, int]:
        """Return the number of points per note path (scrolls every point)."""
        records = self._scroll(None, with_payload=["path"])
        return dict(Counter(payload_text(record.payload, "path") for record in records))

    def flush(self) -> None:
        """Write pending changes to the segments on disk."""
        if self._shard is not None:
            with _edge_errors("flush failed"):
                self._shard.flush()

    def optimize(self) -> bool:
        """Merge and index segments; call after a bulk load, never while serving (it blocks with the GIL held).

        Returns True if any segment changed.
        """
        if self._shard is None:
            return False
        with _edge_errors("optimize failed"):
            return self._shard.optimize()

    def close(self) -> None:
        """Flush and release the shard (and its locks); safe to call twice."""
        shard, self._shard = self._shard, None
        try:
            if shard is not None:
                with _edge_errors("close failed"):
                    try:
                        shard.flush()
                    finally:
                        shard.close()  # releases qdrant-edge's directory lock even when the flush failed
        finally:
            self._release_guard()

    def _release_guard(self) -> None:
        guard, self._guard = self._guard, None
        if guard is not None:
            os.close(guard)  # closing the descriptor releases the flock

    def _require_shard(self) -> tuple[qe.EdgeShard, IndexIdentity]:
        if self._shard is None or self._identity is None:
            raise InvalidRequest("vector store has no collection yet; call reset(identity) first")
        return self._shard, self._identity

    def _scroll(
        self, condition: qe.Filter | None, *, with_payload: list[str], with_vector: bool = False
    ) -> Iterator[qe.Record]:
        if self._shard is None:
            return
        offset: qe.PointId | None = None
        while True:
            request = qe.ScrollRequest(
                offset=offset, limit=SCROLL_PAGE, filter=condition, with_payload=with_payload, with_vector=with_vector
            )
            with _edge_errors("scroll failed"):
                records, offset = self._shard.scroll(request)
            yield from records
            if offset is None:
                return


def _hold_open_lock(path: Path) -> int:
    """Return a descriptor holding `<path>.lock` exclusively, or raise ResourceBusy if another process has it."""
    # Beside the store's folder, not in it: an uninitialised store creates nothing until reset().
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(f"{path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ResourceBusy(
            "qdrant",
            f"the embedded index at {path} is open in another process (only one process may use it; "
            "stop that process, or run this command through it)",
        ) from None
    return fd


@contextmanager
def _edge_errors(action: str) -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        # qdrant-edge 0.9.0 raises plain `Exception` for every engine error and exports no exception classes,
        # so exactly that type is translated; subclasses (TypeError, our own AppErrors ...) propagate as they are.
        if type(exc) is not Exception:
            raise
        raise UpstreamUnavailable("qdrant", f"{action}: {exc}") from exc


def _config(dim: int) -> qe.EdgeConfig:
    return qe.EdgeConfig(
        vectors={DENSE_VECTOR: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        wal_enabled=True,
    )


def _fusion(fusion: Fusion, *, branches: int) -> qe.Fusion.Rrf | qe.Fusion.Dbsf:
    if fusion.method == "dbsf":
        return qe.Fusion.Dbsf()
    # Weights only when they change something: one weight per prefetch, so none for a dense-only search.
    weighted = branches == 2 and fusion.dense_weight != 1.0
    return qe.Fusion.Rrf(k=fusion.rrf_k, weights=[fusion.dense_weight, 1.0] if weighted else None)


def _vectors(embedding: Embedding) -> dict[str, qe.NamedVector]:
    return {DENSE_VECTOR: list(embedding.dense), SPARSE_VECTOR: _sparse(embedding.sparse)}


def _sparse(vector: SparseVector) -> qe.SparseVector:
    return qe.SparseVector(list(vector.indices), list(vector.values))


def _embedding(vector: qe.Vector | None) -> Embedding | None:
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


def _filter(conditions: list[KeywordMatch]) -> qe.Filter | None:
    if not conditions:
        return None
    must: list[qe.ConditionType] = [
        qe.FieldCondition(key=c.key, match=qe.MatchAny(list(c.values)) if c.is_any else qe.MatchValue(c.values[0]))
        for c in conditions
    ]
    return qe.Filter(must=must)


def _path_filter(paths: Sequence[str]) -> qe.Filter:
    return qe.Filter(must=[qe.FieldCondition(key="path", match=qe.MatchAny(list(paths)))])


def _read_identity(file: Path) -> IndexIdentity | None:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # missing or torn: the store counts as uninitialised and the indexer resets it
    model_id, dim = (data.get("model_id"), data.get("dim")) if isinstance(data, dict) else (None, None)
    if not isinstance(model_id, str) or not isinstance(dim, int):
        return None
    return IndexIdentity(model_id=model_id, dim=dim)


def _write_identity(file: Path, identity: IndexIdentity) -> None:
    tmp = file.with_suffix(".json.tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        json.dump({"model_id": identity.model_id, "dim": identity.dim}, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, file)
