"""The retrieval tracer: why each hit of a search stands where it does (its place in the dense and the BM25 list).

A hybrid search fuses two lists in the store, in one request, and returns only the fused scores. To explain a
ranking, the two lists are read again apart (`VectorStore.search_lists`, as deep as the search's prefetches) and
each hit is looked up in them: a hit missing from a list was not among that list's first `depth` results.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.domain import Fusion, RankedLists, SearchHit
from rag.rrf import reciprocal_rank


@dataclass(frozen=True, slots=True)
class ListPlace:
    """Where a hit stands in one result list."""

    rank: int  # 1 is the best
    score: float  # cosine similarity (dense) or BM25 score (sparse)


@dataclass(frozen=True, slots=True)
class TracedHit:
    """A hit of the search and why it is there."""

    hit: SearchHit
    dense: ListPlace | None  # None: not among the dense list's first `depth`
    bm25: ListPlace | None  # None: not among the BM25 list's first `depth` (or it shares no term with the query)
    rrf: float | None  # what reciprocal rank fusion gives these places (None with DBSF, which fuses scores)

    def to_json(self) -> dict[str, object]:
        """Return the hit as the search API shows it, with its places in both lists."""
        return {
            **self.hit.to_json(),
            "dense_rank": self.dense.rank if self.dense else None,
            "dense_score": self.dense.score if self.dense else None,
            "bm25_rank": self.bm25.rank if self.bm25 else None,
            "bm25_score": self.bm25.score if self.bm25 else None,
            "rrf_score": self.rrf,
        }


@dataclass(frozen=True, slots=True)
class SearchTrace:
    """The hits of one search, best first, each with its places in the dense and the BM25 list."""

    hits: tuple[TracedHit, ...]
    depth: int  # how many results of each list were read (the search's prefetch depth)
    fusion: Fusion
    reranker: str | None  # the cross-encoder that reordered the fused candidates; None: the fused order stands


def trace_hits(
    hits: list[SearchHit], lists: RankedLists, *, depth: int, fusion: Fusion, reranker: str | None
) -> SearchTrace:
    """Return `hits` with each one's place in `lists` (the same query's dense and BM25 results, `depth` deep)."""
    dense = _places(lists.dense)
    bm25 = _places(lists.sparse)
    weights = (fusion.dense_weight, 1.0) if lists.sparse else (1.0, 1.0)
    traced = []
    for hit in hits:
        key = (hit.chunk.path, hit.chunk.index)
        places = (dense.get(key), bm25.get(key))
        rrf = None
        if fusion.method == "rrf":
            rrf = sum(
                reciprocal_rank(place.rank, k=fusion.rrf_k, weight=weight)
                for place, weight in zip(places, weights, strict=True)
                if place
            )
        traced.append(TracedHit(hit, places[0], places[1], rrf))
    return SearchTrace(tuple(traced), depth=depth, fusion=fusion, reranker=reranker)


def _places(ranked: tuple[SearchHit, ...]) -> dict[tuple[str, int], ListPlace]:
    return {(hit.chunk.path, hit.chunk.index): ListPlace(rank, hit.score) for rank, hit in enumerate(ranked, start=1)}
