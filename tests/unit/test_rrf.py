"""The one reciprocal-rank formula is the engine's: the same fused scores as qdrant-client computes."""

from __future__ import annotations

import pytest
from qdrant_client.http import models
from qdrant_client.hybrid.fusion import reciprocal_rank_fusion

from rag.rrf import reciprocal_rank


@pytest.mark.parametrize(("k", "weights"), [(10, (1.0, 1.0)), (60, (1.0, 1.0)), (10, (1.5, 1.0)), (2, (0.0, 1.0))])
def test_reciprocal_rank_gives_the_scores_qdrant_fuses(k: int, weights: tuple[float, float]) -> None:
    dense = [models.ScoredPoint(id=i, version=0, score=1.0 - i / 10) for i in (1, 2, 3, 4)]
    sparse = [models.ScoredPoint(id=i, version=0, score=9.0 - i) for i in (3, 5, 1)]

    fused = reciprocal_rank_fusion([dense, sparse], limit=10, ranking_constant_k=k, weights=list(weights))

    ours: dict[int, float] = {}
    for points, weight in zip((dense, sparse), weights, strict=True):
        for rank, point in enumerate(points, start=1):
            ours[int(point.id)] = ours.get(int(point.id), 0.0) + reciprocal_rank(rank, k=k, weight=weight)
    assert {int(point.id): point.score for point in fused} == pytest.approx(ours)
