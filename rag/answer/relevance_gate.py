"""The relevance gate: decide "the notes don't cover this" before any model is asked.

Three measures, because no cosine transfers from one vault to another on its own:
- the best dense cosine of the question (how close the nearest chunk is in meaning);
- the vault's noise level (rag/answer/vault_noise.py): the cosine questions it has nothing to do with reach;
- the term coverage (rag/answer/term_coverage.py): the share of the question's rare-word weight that the
  retrieved notes hold.
A question is covered when its cosine clears the noise level by RELEVANCE_FLOOR (negative: may stay below it)
plus RELEVANCE_TERM_WEIGHT times the word weight the notes lack. Both were chosen on sample_vault and judged
on three vaults nobody here wrote (`python -m bench.relevance_floor --shared ../shared/vaults`).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.domain import Embedding, SearchFilters
from core.errors import IndexModelMismatch, InvalidRequest
from core.ports import Embedder, VectorStore
from core.settings import AnswerSettings
from core.tracing import span
from rag.answer.term_coverage import measure_term_coverage
from rag.answer.vault_noise import VaultNoise
from rag.follow_up import Query

GATE_OFF = -1.0  # RELEVANCE_FLOOR at (or below) this covers every question while anything is indexed
GATE_NOTES_FROM = 10  # the notes of this many fused chunks are where the question's words are looked for


@dataclass(frozen=True, slots=True)
class Coverage:
    """How well the notes cover a question, and the verdict.

    `score` is the best dense cosine (None: nothing indexed); `term_share` the share of the question's word weight
    that the retrieved notes hold (None: not measured, or no words to weigh).
    """

    score: float | None
    is_covered: bool
    term_share: float | None = None
    noise: float | None = None  # the vault's noise level the score was held against


def is_covered(
    score: float | None,
    floor: float,
    *,
    term_share: float | None = None,
    term_weight: float = 0.0,
    noise: float | None = None,
) -> bool:
    """Return True when the cosine clears noise + floor + `term_weight` times the missing word share.

    An empty index covers nothing; a floor of GATE_OFF covers everything else; an unmeasured share costs nothing
    and an unmeasured noise level counts as 0 (the floor is then an absolute cosine).
    """
    if score is None:
        return False
    if floor <= GATE_OFF:
        return True
    return score >= required_score(floor, term_share=term_share, term_weight=term_weight, noise=noise)


def required_score(
    floor: float, *, term_share: float | None = None, term_weight: float = 0.0, noise: float | None = None
) -> float:
    """Return the cosine a question must reach: noise plus floor, plus the penalty for the word weight missing."""
    missing = 0.0 if term_share is None else 1.0 - term_share
    return (noise or 0.0) + floor + term_weight * missing


class RelevanceGate:
    """Score a question against the index and say whether the notes cover it.

    Fused RRF scores only rank hits, so they cannot say "nothing here is relevant"; a cosine can, and the
    question's words tell on-topic questions the notes answer from those they do not.
    """

    def __init__(self, embedder: Embedder, store: VectorStore, *, floor: float, term_weight: float = 0.0) -> None:
        self._embedder = embedder
        self._store = store
        self._floor = floor
        self._term_weight = term_weight
        self._noise = VaultNoise(embedder, store)
        self._is_identity_checked = False

    @classmethod
    def from_settings(cls, embedder: Embedder, store: VectorStore, settings: AnswerSettings) -> RelevanceGate:
        """Return the gate RELEVANCE_FLOOR and RELEVANCE_TERM_WEIGHT describe."""
        return cls(embedder, store, floor=settings.relevance_floor, term_weight=settings.relevance_term_weight)

    def prepare(self) -> None:
        """Do now what the first check would wait for: embedding the probe questions of the noise level."""
        self._noise.prepare()

    @property
    def floor(self) -> float:
        """Return the cosine a question's best match must reach when the retrieved notes hold all its words."""
        return self._floor

    def covers(self, query: Query) -> bool:
        """Return True when the notes cover a prepared question: in its context, and alone for a topic switch.

        A message that says nothing to search for ("???", "Tell me more" as the first message) is covered by nothing.
        """
        if query.says_nothing:
            return False
        return all(self.check(text, embedding=embedding).is_covered for text, embedding in query.coverages)

    def check(
        self, query: str, filters: SearchFilters | None = None, *, embedding: Embedding | None = None
    ) -> Coverage:
        """Return the coverage of `query` by the notes that pass `filters` (pass `embedding` if already made)."""
        text = query.strip()
        if not text:
            raise InvalidRequest("the question is empty")
        self._check_identity()
        with span("relevance_gate", {"librarian.coverage.floor": self._floor}) as traced:
            vector = embedding or self._embedder.embed_query(text)
            coverage = self._measure(vector, filters)
            traced.set_attribute("librarian.coverage.is_covered", coverage.is_covered)
            if coverage.score is not None:
                traced.set_attribute("librarian.coverage.score", coverage.score)
            if coverage.term_share is not None:
                traced.set_attribute("librarian.coverage.term_share", coverage.term_share)
            return coverage

    def measure(
        self, query: str, filters: SearchFilters | None = None, *, embedding: Embedding | None = None
    ) -> Coverage:
        """Return both signals for `query` even where one alone decides (for calibration benchmarks)."""
        text = query.strip()
        if not text:
            raise InvalidRequest("the question is empty")
        self._check_identity()
        return self._measure(embedding or self._embedder.embed_query(text), filters, decided_early=False)

    def covers_note(self, query: str, path: str, *, embedding: Embedding | None = None) -> bool:
        """Return True when the note at `path` alone would cover `query`, held against the whole vault's noise.

        For choosing notes on a topic (a map of content): one note's chunks scored as if it were all the search
        found. The noise level stays the vault's: one note's own would be lower, and pass nearly anything.
        """
        vector = embedding or self._embedder.embed_query(query)
        self._check_identity()
        score = self._store.dense_top_score(vector, filters=SearchFilters(paths=(path,)))
        if score is None or self._floor <= GATE_OFF:
            return score is not None
        terms = measure_term_coverage(self._store, vector.sparse.indices, [path], alternates=vector.alternates)
        noise = self._noise.level()
        return is_covered(score, self._floor, term_share=terms.share, term_weight=self._term_weight, noise=noise)

    def _measure(self, vector: Embedding, filters: SearchFilters | None, *, decided_early: bool = True) -> Coverage:
        score = self._store.dense_top_score(vector, filters=filters)
        if score is None:
            return Coverage(score=None, is_covered=False)
        if self._floor <= GATE_OFF:
            return Coverage(score=score, is_covered=True)
        noise = self._noise.level(filters)
        lowest = required_score(self._floor, term_share=1.0, noise=noise)
        highest = required_score(self._floor, term_share=0.0, term_weight=self._term_weight, noise=noise)
        # The words can only change the verdict between those two: skip their queries outside.
        if decided_early and not lowest <= score < highest:
            return Coverage(score=score, is_covered=score >= lowest, noise=noise)
        hits = self._store.search(vector, limit=GATE_NOTES_FROM, filters=filters)
        notes = [hit.chunk.path for hit in hits]
        terms = measure_term_coverage(
            self._store, vector.sparse.indices, notes, filters=filters, alternates=vector.alternates
        )
        verdict = is_covered(score, self._floor, term_share=terms.share, term_weight=self._term_weight, noise=noise)
        return Coverage(score=score, is_covered=verdict, term_share=terms.share, noise=noise)

    def _check_identity(self) -> None:
        # Another model's vectors of the same size would give meaningless cosines, and so silent refusals.
        if self._is_identity_checked:
            return
        stored, wanted = self._store.identity(), self._embedder.identity
        if stored is not None and stored != wanted:
            raise IndexModelMismatch(
                f"the index was built with {stored.model_id} but EMBED_MODEL is {wanted.model_id}; "
                "run `librarian index` to rebuild it"
            )
        self._is_identity_checked = stored is not None
