"""The totals of an eval run: retrieval, citations, refusals, answer facts, edits; skipped items left out."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from app.eval.scoring import ItemScore


@dataclass(frozen=True, slots=True)
class Ratio:
    """A count out of a count, kept whole so a reader sees how many items a share stands for."""

    count: int
    total: int

    @property
    def value(self) -> float | None:
        """Return count / total, or None when there was nothing to count."""
        return self.count / self.total if self.total else None


@dataclass(frozen=True, slots=True)
class Totals:
    """Every figure of a run, over the items that ran."""

    items: int  # in the run, skipped ones included
    skipped: int
    errors: int
    passed: Ratio
    recall: float | None  # mean recall@k over answer items
    mrr: float | None
    citation_validity: Ratio  # links that open a note and heading, of all links shown
    citation_recall: float | None  # mean over answer items
    refusals: Ratio  # unanswerable items refused
    false_refusals: Ratio  # answerable items refused
    fact_recall: float | None  # mean share of facts said, over answer items
    answer_fact_recall: float | None  # the same in the model's own words (before "Your notes say:")
    correct: Ratio  # answer items that say every fact in their own words
    edits: Ratio  # edit items whose expected proposal was shown
    written: int  # items whose request changed the vault (the eval never approves: must be 0)
    fallbacks: int  # replies that are passages because the LLM failed before answering (timeouts, errors)
    judge: float | None  # mean judge score, when a judge was asked
    seconds_p50: float | None
    seconds_max: float | None
    first_token_p50: float | None  # seconds until a streamed reply's first text
    first_token_max: float | None
    prompt_tokens_mean: float | None  # over replies a model wrote


def summarise(scores: Sequence[ItemScore]) -> Totals:
    """Return the totals of a run."""
    run = [score for score in scores if score.observation.skipped is None]
    answers = [score for score in run if score.item.kind == "answer"]
    refusable = [score for score in run if score.item.kind == "refuse"]
    edits = [score for score in run if score.item.kind == "edit"]
    seconds = [score.observation.seconds for score in run if score.observation.error is None]
    first_token = [
        s.observation.first_token_seconds
        for s in run
        if s.observation.error is None and s.observation.first_token_seconds is not None
    ]
    # Replies no model wrote (the relevance gate's refusal, the fallback's passages) carry 0 or an estimate.
    prompt_tokens = [
        s.observation.prompt_tokens for s in run if s.observation.prompt_tokens and not s.observation.fell_back
    ]
    judged = [s.observation.judge for s in answers if s.observation.judge is not None]
    return Totals(
        items=len(scores),
        skipped=len(scores) - len(run),
        errors=sum(1 for score in run if score.observation.error is not None),
        passed=Ratio(sum(1 for score in run if score.passed), len(run)),
        recall=_mean([score.recall for score in answers]),
        mrr=_mean([score.reciprocal_rank for score in answers]),
        citation_validity=Ratio(sum(s.links_valid for s in run), sum(s.links_shown for s in run)),
        citation_recall=_mean([score.citation_recall for score in answers]),
        refusals=Ratio(sum(1 for score in refusable if score.is_refused), len(refusable)),
        false_refusals=Ratio(sum(1 for score in answers if score.is_refused), len(answers)),
        fact_recall=_mean([score.fact_recall for score in answers]),
        answer_fact_recall=_mean([score.answer_fact_recall for score in answers]),
        correct=Ratio(sum(1 for score in answers if all(score.facts_in_answer)), len(answers)),
        edits=Ratio(sum(1 for score in edits if score.edit_matches), len(edits)),
        written=sum(1 for score in run if score.observation.written),
        fallbacks=sum(1 for score in run if score.observation.fell_back),
        judge=statistics.fmean(judged) if judged else None,
        seconds_p50=statistics.median(seconds) if seconds else None,
        seconds_max=max(seconds) if seconds else None,
        first_token_p50=statistics.median(first_token) if first_token else None,
        first_token_max=max(first_token) if first_token else None,
        prompt_tokens_mean=statistics.fmean(prompt_tokens) if prompt_tokens else None,
    )


def _mean(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.fmean(present) if present else None
