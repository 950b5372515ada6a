"""The vault's noise level: how close its nearest chunk comes to questions it has nothing to do with.

A cosine of 0.35 means little on its own: over a small vault of recipes an unrelated question scores 0.18, over
2,700 notes on everything from religion to Linux 0.38, because something is always a little alike. So the floor
is measured from the vault itself: the median best cosine of a fixed set of everyday questions that a personal
vault rarely answers. A few of them may well be covered (a cook's vault knows how to boil an egg); the median
does not move much for that. It is measured once per index size and filter, from probe vectors embedded once.
"""

from __future__ import annotations

import statistics
import threading

from core.domain import Embedding, SearchFilters
from core.ports import Embedder, VectorStore

REMEMBERED_LEVELS = 64
# Everyday questions across unrelated fields. Changing them changes every vault's floor: re-run
# `python -m bench.relevance_floor` after an edit.
PROBE_QUESTIONS = (
    "Who won the last Formula 1 world championship?",
    "What is the boiling point of water at high altitude?",
    "How do I replace a bicycle brake cable?",
    "What is the capital of Mongolia?",
    "How many calories are in a banana?",
    "How do I reset a forgotten router password?",
    "What are the rules of cricket?",
    "How do I remove a red wine stain from a carpet?",
    "When did the Roman Empire fall?",
    "How much does a new kitchen cost?",
    "What is the best fertiliser for roses?",
    "How do I renew a driving licence?",
    "Which planets have rings?",
    "How do I knit a scarf for beginners?",
    "What is the exchange rate of the euro to the yen?",
    "How long do I boil an egg for a soft yolk?",
    "Who painted the Mona Lisa?",
    "How do I unclog a kitchen sink?",
    "What is the speed of sound in air?",
    "How do I care for a cactus?",
    "Which vitamins are in spinach?",
    "How do I pair Bluetooth headphones with a phone?",
    "What is the plot of Hamlet?",
    "How many players are on a volleyball team?",
)


class VaultNoise:
    """Measure (and remember) the median best dense cosine of the probe questions over the notes passing a filter."""

    def __init__(self, embedder: Embedder, store: VectorStore) -> None:
        self._embedder = embedder
        self._store = store
        self._probes: list[Embedding] | None = None
        self._levels: dict[tuple[SearchFilters | None, int], float | None] = {}
        self._lock = threading.Lock()  # turns run in threads: embed the probes once

    def level(self, filters: SearchFilters | None = None) -> float | None:
        """Return the noise level of the notes passing `filters` (None when none are indexed)."""
        key = (filters, self._store.count())  # re-measured when the index grows or shrinks
        if key not in self._levels:
            scores = [self._store.dense_top_score(probe, filters=filters) for probe in self._probe_vectors()]
            found = [score for score in scores if score is not None]
            if len(self._levels) >= REMEMBERED_LEVELS:
                self._levels.clear()  # filters differ per request: keep the memo small
            self._levels[key] = statistics.median(found) if found else None
        return self._levels[key]

    def prepare(self) -> None:
        """Embed the probe questions now (at start), so the first question does not wait for them."""
        self._probe_vectors()

    def _probe_vectors(self) -> list[Embedding]:
        with self._lock:
            if self._probes is None:
                self._probes = [self._embedder.embed_query(question) for question in PROBE_QUESTIONS]
            return self._probes
