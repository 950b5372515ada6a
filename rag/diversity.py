"""Diversity by note: a long note whose many chunks all match must not fill every slot of an answer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from core.domain import SearchHit

# How much stronger (fused score) a chunk over its note's share must be than the weakest hit chosen to take its slot
# in an answer's passages. The cap keeps a second note in view; the hits filling the last slots are often a word
# in one list only, while the asked fact sits in the best note's third chunk ("I just replaced `sequential` with
# `sela`" between that note's two hits; Käsespätzle's cheese beside its method and tips). At 2, bench.context_recall
# found more evidence on sample_vault (0.917 -> 1.000) and vaultofknowledge (0.667 -> 0.700), and
# bench.retrieval_quality lost no note on any set of the four vaults; at 1.5 two-note questions lost their second
# note (obsidian-tasks-demo, vaultofknowledge). docs/benchmarks.md, "At stop 39".
FAR_STRONGER = 2.0


def diversify_by_note(
    hits: Sequence[SearchHit], *, limit: int, per_note: int, outweigh: float = 0.0
) -> list[SearchHit]:
    """Return the best `limit` of `hits` (best first) with at most `per_note` chunks of any one note among them.

    Without it, one note of many matching chunks takes four of six slots and a question whose answer spans two
    notes never sees the second. Chunks over a note's share are passed over, not dropped: they fill the slots
    that no other note can (a search filtered to one note still gets `limit` hits). The result keeps the
    ranking order, so a note's best chunk stays where the ranking put it. `per_note` 0 turns the rule off.

    `outweigh` (0: off): a chunk passed over takes the slot of the weakest chunk chosen while its score is at least
    `outweigh` times that one's, best first. For passages a model reads, not a list of notes (which wants breadth);
    the scores must be of one positive scale (fused ones, not a cross-encoder's logits).
    """
    if per_note < 1:
        return list(hits[:limit])
    taken: Counter[str] = Counter()
    chosen: list[int] = []
    passed_over: list[int] = []
    for position, hit in enumerate(hits):
        if taken[hit.chunk.path] < per_note:
            taken[hit.chunk.path] += 1
            chosen.append(position)
        else:
            passed_over.append(position)
    picked = chosen[:limit]
    picked += passed_over[: limit - len(picked)]
    if outweigh > 0:
        picked = _far_stronger_in(
            hits, picked, [position for position in passed_over if position not in picked], outweigh
        )
    return [hits[position] for position in sorted(picked)]


def _far_stronger_in(hits: Sequence[SearchHit], picked: list[int], waiting: list[int], outweigh: float) -> list[int]:
    """Return `picked` with each weakest one replaced by the best of `waiting` while that one outweighs it."""
    picked = list(picked)
    for candidate in waiting:  # best first
        weakest = max(picked)
        weakest_score = hits[weakest].score
        if candidate > weakest or weakest_score <= 0 or hits[candidate].score < outweigh * weakest_score:
            break
        picked.remove(weakest)
        picked.append(candidate)
    return picked
