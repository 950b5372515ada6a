"""Term coverage: how much of a question's word weight the retrieved notes hold, each word weighed by its rarity.

A dense cosine says "these notes are about the same kind of thing"; on a vault nobody tuned it for, questions
about the same kind of thing that the notes do not cover score as high as covered ones. The words tell them
apart: "How do I configure a Kubernetes ingress controller?" over a cooking vault finds notes that hold none of
"kubernetes", "ingress" or "controller", which are the words that carry the question. The weights are BM25's
idf over the vault's own chunks, so the measure adapts to each vault and needs no constant tuned to one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.domain import SearchFilters
from core.ports import VectorStore


@dataclass(frozen=True, slots=True)
class TermCoverage:
    """The idf-weighted share of a question's terms found in the retrieved notes (None: no terms to weigh)."""

    share: float | None
    terms: int  # the question's distinct BM25 terms
    found: int  # how many of them the retrieved notes hold


def idf(holders: int, total: int) -> float:
    """Return BM25's idf of a term held by `holders` of `total` chunks (the form Qdrant's IDF modifier uses)."""
    return math.log(1.0 + (total - holders + 0.5) / (holders + 0.5))


def weighted_share(weights: Mapping[int, float], found: Sequence[int]) -> float | None:
    """Return the share of the total weight that the `found` terms carry, or None when there is no weight."""
    total = sum(weights.values())
    if total <= 0.0:
        return None
    return sum(weights[term] for term in set(found) if term in weights) / total


def measure_term_coverage(
    store: VectorStore,
    terms: Sequence[int],
    notes: Sequence[str],
    *,
    filters: SearchFilters | None = None,
    alternates: Sequence[tuple[int, int]] = (),
) -> TermCoverage:
    """Weigh `terms` (a query's sparse indices) by rarity among the chunks passing `filters`, find them in `notes`.

    A term of `alternates` (another spelling, paired with the question's own term) is no word of its own: its
    word is held wherever either spelling is, and weighed by the chunks holding either.
    """
    spells = {alternate: own for alternate, own in alternates}
    words = [term for term in dict.fromkeys(terms) if term not in spells]
    total = store.count()
    if not words or not notes or total < 1:
        return TermCoverage(share=None, terms=len(words), found=0)
    spellings = {word: [word] for word in words}
    for alternate, own in spells.items():
        spellings.setdefault(own, [own]).append(alternate)
    searched = [term for group in spellings.values() for term in group]
    # Exact counts: one sparse query per word, 3-15 ms for a whole question over 9,000 chunks.
    holders = store.term_counts(searched, cap=total, filters=filters)
    weights = {word: idf(min(total, sum(holders[t] for t in group)), total) for word, group in spellings.items()}
    in_notes = store.term_counts(searched, cap=1, filters=SearchFilters(paths=tuple(dict.fromkeys(notes))))
    found = [word for word, group in spellings.items() if any(in_notes[t] > 0 for t in group)]
    return TermCoverage(share=weighted_share(weights, found), terms=len(spellings), found=len(found))
