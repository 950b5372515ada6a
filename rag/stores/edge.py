"""`EdgeVectorStore`: the VectorStore on an embedded qdrant-edge shard inside the data directory (the default)."""

from __future__ import annotations

import functools
import os
import shutil
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

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
)
from core.errors import InvalidRequest, UpstreamUnavailable
from rag.stores.edge_files import hold_open_lock, read_identity, write_identity
from rag.stores.edge_types import (
    edge_errors,
    edge_filter,
    edge_fusion,
    edge_sparse,
    edge_vectors,
    embedding_of,
    path_filter,
    shard_config,
)
from rag.stores.payload import (
    CHUNK_FIELDS,
    DELETE_PATH_BATCH,
    DENSE_VECTOR,
    INDEXED_FIELDS,
    SCROLL_PAGE,
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

# qdrant-edge (0.9.0) keeps deleted points in the statistics its BM25 IDF is computed from until the shard is
# loaded again: every re-index of a note deletes its points and writes new ones, so the rare words of the notes
# edited most counted as ever commoner (a word of one note edited ten times scored as a word of eleven notes),
# until `librarian serve` restarted. `flush()` reopens the shard after deletions, at most once a REOPEN_SECONDS
# (a reopen of 20,000 points took 0.7 s on two slow cores, searches waiting meanwhile).
REOPEN_SECONDS = 60.0

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _exclusive(
    method: Callable[Concatenate[EdgeVectorStore, _P], _R],
) -> Callable[Concatenate[EdgeVectorStore, _P], _R]:
    """Run `method` holding the store's lock: no search uses the shard while `flush()` reopens it.

    qdrant-edge holds the GIL during its calls, so the lock takes no parallelism away.
    """

    def holding_lock(self: EdgeVectorStore, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            return method(self, *args, **kwargs)

    functools.update_wrapper(holding_lock, method)  # its name and docstring
    return holding_lock


class EdgeVectorStore:
    """Store chunk points in an in-process qdrant-edge shard under `path`.

    The directory holds `shard/` (segments and WAL) and `identity.json` (the model the shard was built for).
    A directory without both is uninitialised until `reset()`. Only one process may open a shard at a time.
    qdrant-edge holds the GIL during calls: writes go in batches of <= 256 points, and `optimize()` is for
    the indexer after a bulk load, never while serving searches.
    """

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.RLock()
        self._clock = clock
        self._opened_at = clock()
        self._deleted_since_open = 0  # points deleted since the shard was loaded: still in its BM25 statistics
        self._is_unflushed = False  # points written or deleted since the last flush
        self._path = path
        self._shard_dir = path / "shard"
        self._identity_file = path / "identity.json"
        self._shard: qe.EdgeShard | None = None
        # Taken before qdrant-edge touches a file: a second `EdgeShard.load` on a shard another process has open
        # fails on the WAL lock only after rewriting segment files the first process still uses (it damaged them).
        self._guard: int | None = hold_open_lock(path)
        self._identity = read_identity(self._identity_file)
        if self._identity is None or not self._shard_dir.is_dir():
            self._identity = None  # a reset that did not finish: the next reset() rebuilds the shard
            return
        try:
            with edge_errors(f"cannot open the shard at {self._shard_dir}"):
                self._shard = qe.EdgeShard.load(str(self._shard_dir))
        except UpstreamUnavailable:
            self._release_guard()
            raise

    @_exclusive
    def reset(self, identity: IndexIdentity) -> None:
        """Drop every point and recreate the shard for this model identity."""
        if self._guard is None:
            self._guard = hold_open_lock(self._path)
        shard, self._shard = self._shard, None
        if shard is not None:
            with edge_errors("close failed"):
                shard.close()
        self._identity = None
        # Identity goes first and comes back last, so a crash mid-reset leaves a store that asks for a reset.
        self._identity_file.unlink(missing_ok=True)
        if self._shard_dir.exists():
            shutil.rmtree(self._shard_dir)
        self._path.mkdir(parents=True, exist_ok=True)
        with edge_errors(f"cannot create a shard at {self._shard_dir}"):
            shard = qe.EdgeShard.create(str(self._shard_dir), shard_config(identity.dim))
            for field in INDEXED_FIELDS:
                shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))
            shard.flush()
        self._shard = shard
        self._opened_at, self._deleted_since_open = self._clock(), 0
        write_identity(self._identity_file, identity)
        self._identity = identity

    @_exclusive
    def identity(self) -> IndexIdentity | None:
        """Return the identity the shard was created for, or None if there is none yet."""
        return self._identity

    @_exclusive
    def upsert(self, chunks: Sequence[EmbeddedChunk]) -> None:
        """Insert or replace points; ids are derived from `path::chunk_index`."""
        shard, identity = self._require_shard()
        check_dim(identity, (item.embedding for item in chunks))
        for batch in batched(chunks, UPSERT_BATCH):
            points = [
                qe.Point(point_id(item.chunk.path, item.chunk.index), edge_vectors(item.embedding), chunk_payload(item))
                for item in batch
            ]
            with edge_errors("upsert failed"):
                self._is_unflushed = True
                shard.update(qe.UpdateOperation.upsert_points(points))

    @_exclusive
    def delete_paths(self, paths: Iterable[str]) -> None:
        """Delete every point of these note paths."""
        unique = sorted(set(paths))
        if self._shard is None or not unique:
            return
        for batch in batched(unique, DELETE_PATH_BATCH):
            with edge_errors("delete failed"):
                self._is_unflushed = True
                self._deleted_since_open += self._shard.count(qe.CountRequest(filter=path_filter(batch), exact=True))
                self._shard.update(qe.UpdateOperation.delete_points_by_filter(path_filter(batch)))

    @_exclusive
    def embeddings_for_paths(self, paths: Iterable[str]) -> dict[str, Embedding]:
        """Return stored vectors of these notes keyed by `embed_key`, so unchanged chunks skip embedding."""
        found: dict[str, Embedding] = {}
        for batch in batched(sorted(set(paths)), DELETE_PATH_BATCH):
            for record in self._scroll(path_filter(batch), with_payload=["embed_key"], with_vector=True):
                embedding = embedding_of(record.vector)
                if embedding is not None:
                    found[payload_text(record.payload, "embed_key")] = embedding
        return found

    @_exclusive
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
        condition = edge_filter(filter_conditions(filters))
        depth = max(prefetch_limit, limit)
        prefetches = [qe.Prefetch(depth, qe.Query.Nearest(list(query.dense), using=DENSE_VECTOR), filter=condition)]
        if query.sparse.indices:  # an empty sparse query matches nothing: leave the dense branch alone
            sparse = qe.Query.Nearest(edge_sparse(query.sparse), using=SPARSE_VECTOR)
            prefetches.append(qe.Prefetch(depth, sparse, filter=condition))
        request = qe.QueryRequest(
            limit=limit,
            prefetches=prefetches,
            query=edge_fusion(fusion, branches=len(prefetches)),  # type: ignore[arg-type]  # stub: Fusion, not its variants
            with_payload=list(CHUNK_FIELDS),
        )
        with edge_errors("search failed"):
            points = self._shard.query(request)
        return sort_hits(SearchHit(chunk_from_payload(point.payload or {}), point.score) for point in points)

    @_exclusive
    def chunks_at(self, places: Sequence[tuple[str, int]]) -> list[Chunk]:
        """Return the stored chunks at these (note path, chunk index) places, in that order; absent ones left out."""
        if self._shard is None or not places:
            return []
        with edge_errors("retrieve failed"):
            records = self._shard.retrieve([point_id(path, index) for path, index in places], list(CHUNK_FIELDS), False)
        return in_order(places, [chunk_from_payload(record.payload or {}) for record in records])

    @_exclusive
    def search_lists(self, query: Embedding, *, limit: int, filters: SearchFilters | None = None) -> RankedLists:
        """Run the dense and the sparse query of `search` apart (each filtered), each best first, unfused."""
        if self._shard is None or self._identity is None:
            return RankedLists((), ())
        check_dim(self._identity, [query])
        condition = edge_filter(filter_conditions(filters))
        dense = self._ranked(qe.Query.Nearest(list(query.dense), using=DENSE_VECTOR), limit, condition)
        if not query.sparse.indices:  # as in `search`: no sparse branch for a query without terms
            return RankedLists(dense, ())
        sparse = self._ranked(qe.Query.Nearest(edge_sparse(query.sparse), using=SPARSE_VECTOR), limit, condition)
        return RankedLists(dense, sparse)

    def _ranked(self, query: qe.Query, limit: int, condition: qe.Filter | None) -> tuple[SearchHit, ...]:
        request = qe.QueryRequest(limit=limit, query=query, filter=condition, with_payload=list(CHUNK_FIELDS))
        with edge_errors("search failed"):
            points = self._require_shard()[0].query(request)
        return tuple(sort_hits(SearchHit(chunk_from_payload(point.payload or {}), point.score) for point in points))

    @_exclusive
    def dense_top_score(self, query: Embedding, *, filters: SearchFilters | None = None) -> float | None:
        """Return the cosine similarity of the best dense match (None when nothing matches)."""
        if self._shard is None or self._identity is None:
            return None
        check_dim(self._identity, [query])
        request = qe.QueryRequest(
            limit=1,
            query=qe.Query.Nearest(list(query.dense), using=DENSE_VECTOR),
            filter=edge_filter(filter_conditions(filters)),
            with_payload=False,
        )
        with edge_errors("search failed"):
            points = self._shard.query(request)
        return float(points[0].score) if points else None

    @_exclusive
    def term_counts(self, terms: Sequence[int], *, cap: int, filters: SearchFilters | None = None) -> dict[int, int]:
        """Return, per sparse term, how many points passing `filters` hold it (at most `cap` counted)."""
        counts = dict.fromkeys(terms, 0)
        if self._shard is None or self._identity is None or cap < 1:
            return counts
        condition = edge_filter(filter_conditions(filters))
        for term in counts:
            # A sparse search only returns points that share a term with the query: with one term, its holders.
            request = qe.QueryRequest(
                limit=cap,
                query=qe.Query.Nearest(qe.SparseVector([term], [1.0]), using=SPARSE_VECTOR),
                filter=condition,
                with_payload=False,
            )
            with edge_errors("search failed"):
                counts[term] = len(self._shard.query(request))
        return counts

    @_exclusive
    def count(self) -> int:
        """Return the number of points."""
        if self._shard is None:
            return 0
        with edge_errors("count failed"):
            return self._shard.count(qe.CountRequest(exact=True))

    def indexed_paths(self) -> set[str]:
        """Return the note paths that have at least one point."""
        return set(self.chunk_counts())

    @_exclusive
    def chunk_counts(self) -> dict[str, int]:
        """Return the number of points per note path (scrolls every point)."""
        records = self._scroll(None, with_payload=["path"])
        return dict(Counter(payload_text(record.payload, "path") for record in records))

    @_exclusive
    def flush(self) -> None:
        """Write pending changes to the segments on disk; after deletions, reopen the shard (see REOPEN_SECONDS).

        With nothing written since the last flush no file is touched (an index run that found nothing new).
        """
        if self._shard is None:
            return
        if self._is_unflushed:
            with edge_errors("flush failed"):
                self._shard.flush()
            self._is_unflushed = False
        if self._deleted_since_open and self._clock() - self._opened_at >= REOPEN_SECONDS:
            self._reopen()

    def _reopen(self) -> None:
        """Load the shard again (this process keeps its lock file), so BM25 counts no deleted point."""
        shard, self._shard = self._shard, None
        try:
            if shard is not None:
                with edge_errors("close failed"):
                    shard.close()
            with edge_errors(f"cannot open the shard at {self._shard_dir}"):
                self._shard = qe.EdgeShard.load(str(self._shard_dir))
        except BaseException:
            # A shard that will not close and load again is rebuilt: the store reads as one whose reset did not
            # finish (no identity, here and after a restart), so searches find nothing stale and the next index run
            # starts over (re-embedding the vault: a failure here is no passing one, the shard was just flushed).
            self._identity = None
            self._identity_file.unlink(missing_ok=True)
            raise
        self._opened_at, self._deleted_since_open = self._clock(), 0

    @_exclusive
    def optimize(self) -> bool:
        """Merge and index segments; call after a bulk load, never while serving (it blocks with the GIL held).

        Returns True if any segment changed.
        """
        if self._shard is None:
            return False
        with edge_errors("optimize failed"):
            return self._shard.optimize()

    @_exclusive
    def close(self) -> None:
        """Flush and release the shard (and its locks); safe to call twice."""
        shard, self._shard = self._shard, None
        try:
            if shard is not None:
                with edge_errors("close failed"):
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
            with edge_errors("scroll failed"):
                records, offset = self._shard.scroll(request)
            yield from records
            if offset is None:
                return
