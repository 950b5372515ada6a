"""Reciprocal rank fusion's one formula, as Qdrant computes it, for every place that fuses or explains by rank.

The store fuses its dense and BM25 lists itself; the follow-up search fuses two searches in code and the retrieval
tracer explains the store's fused scores. Both use the engine's form (qdrant-client's hybrid/fusion.py computes the
same), so a score in a trace or a follow-up's fused list is the one the store would give.
"""

from __future__ import annotations


def reciprocal_rank(rank: int, *, k: int, weight: float = 1.0) -> float:
    """Return what place `rank` (1 is the best) of a list weighted `weight` adds: 1 / (rank / weight + k - 1)."""
    if weight <= 0:
        return 0.0
    return 1.0 / (rank / weight + k - 1.0)
