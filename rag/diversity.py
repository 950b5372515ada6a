"""Diversity by note: a long note whose many chunks all match must not fill every slot of an answer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from core.domain import SearchHit


def diversify_by_note(hits: Sequence[SearchHit], *, limit: int, per_note: int) -> list[SearchHit]:
    """Return the best `limit` of `hits` (best first) with at most `per_note` chunks of any one note among them.

    Without it, one note of many matching chunks takes four of six slots and a question whose answer spans two
    notes never sees the second. Chunks over a note's share are passed over, not dropped: they fill the slots
    that no other note can (a search filtered to one note still gets `limit` hits). The result keeps the
    ranking order, so a note's best chunk stays where the ranking put it. `per_note` 0 turns the rule off.
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
    return [hits[position] for position in sorted(picked)]
