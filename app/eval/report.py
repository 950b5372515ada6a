"""The JSON of an eval run: what ran where, each item's scores and what it saw, and the totals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, fields

from app.eval.scoring import ItemScore
from app.eval.totals import Ratio, Totals


def item_json(score: ItemScore) -> dict[str, object]:
    """Return one item's scores, the facts it missed and the reply it was scored on."""
    item, seen = score.item, score.observation
    return {
        "id": item.id,
        "kind": item.kind,
        "question": item.question,
        "passed": score.passed,
        "skipped": seen.skipped,
        "error": seen.error,
        "recall": score.recall,
        "reciprocal_rank": score.reciprocal_rank,
        "ranked_notes": list(seen.ranked_notes),
        "expected": list(item.expected),
        "links_shown": score.links_shown,
        "links_valid": score.links_valid,
        "cited_notes": list(score.cited_notes),
        "citation_recall": score.citation_recall,
        "refused": score.is_refused,
        "fact_recall": score.fact_recall,
        "answer_fact_recall": score.answer_fact_recall,
        "facts_missing": [label for label, found in zip(item.fact_labels, score.facts_found, strict=True) if not found],
        "judge": seen.judge,
        "proposals": [asdict(proposal) for proposal in score.proposals],
        "edit_matches": score.edit_matches,
        "written": list(seen.written),
        "fell_back": seen.fell_back,
        "seconds": round(seen.seconds, 3),
        "first_token_seconds": None if seen.first_token_seconds is None else round(seen.first_token_seconds, 3),
        "prompt_tokens": seen.prompt_tokens,
        "completion_tokens": seen.completion_tokens,
        "reply": seen.reply,
    }


def totals_json(totals: Totals) -> dict[str, object]:
    """Return the totals; a ratio is {count, total, value}."""
    figures = {field.name: getattr(totals, field.name) for field in fields(totals)}
    return {
        name: {"count": value.count, "total": value.total, "value": value.value} if isinstance(value, Ratio) else value
        for name, value in figures.items()
    }


def run_json(run: Mapping[str, object], scores: Sequence[ItemScore], totals: Totals) -> dict[str, object]:
    """Return the whole report: `run` says what was evaluated (server, mode, k, golden set)."""
    return {"run": dict(run), "totals": totals_json(totals), "items": [item_json(score) for score in scores]}
