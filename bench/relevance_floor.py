"""Relevance floor calibration: top dense cosine of answerable vs unanswerable questions on sample_vault.

Usage: python -m bench.relevance_floor [--vault sample_vault] [--questions tests/fixtures/retrieval_questions.yaml]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml import YAML

from app.wiring import build_services
from core.settings import Settings
from rag.answer.refusal import RelevanceGate

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True, slots=True)
class FloorChoice:
    """A floor and the error rates it gives on the question set."""

    floor: float
    false_refusal: float  # share of answerable questions scored below the floor
    false_answer: float  # share of unanswerable questions scored at or above it


def rates(answerable: Sequence[float], unanswerable: Sequence[float], floor: float) -> FloorChoice:
    """Return the error rates of `floor`."""
    refused = sum(score < floor for score in answerable)
    answered = sum(score >= floor for score in unanswerable)
    return FloorChoice(floor, refused / len(answerable), answered / len(unanswerable))


def best_floor(answerable: Sequence[float], unanswerable: Sequence[float]) -> FloorChoice:
    """Return the floor with the fewest errors (ties: fewer false refusals, then the widest gap between scores)."""
    scores = sorted({*answerable, *unanswerable})
    gaps = {(low + high) / 2: high - low for low, high in zip(scores, scores[1:], strict=False)}

    def cost(floor: float) -> tuple[float, float, float]:
        choice = rates(answerable, unanswerable, floor)
        errors = choice.false_refusal * len(answerable) + choice.false_answer * len(unanswerable)
        return (errors, choice.false_refusal, -gaps[floor])

    return rates(answerable, unanswerable, min(gaps, key=cost)) if gaps else rates(answerable, unanswerable, 0.0)


def safe_floor(answerable: Sequence[float], unanswerable: Sequence[float]) -> FloorChoice:
    """Return the highest floor that refuses no answerable question (midway below the lowest answerable score).

    A false refusal hides an answer the notes hold; a false answer still meets the prompt's rule to refuse
    rather than guess. So this is the floor to start from.
    """
    lowest = min(answerable)
    below = [score for score in unanswerable if score < lowest]
    floor = (lowest + max(below)) / 2 if below else lowest
    return rates(answerable, unanswerable, floor)


def load_questions(path: Path) -> tuple[list[str], list[str]]:
    """Return the answerable and the unanswerable questions of a question-set YAML file."""
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    return [str(row["question"]) for row in data["questions"]], [str(q) for q in data["unanswerable"]]


def print_scores(title: str, scored: Sequence[tuple[float, str]]) -> None:
    """Print one distribution, lowest first, with a summary line."""
    values = [score for score, _ in scored]
    print(
        f"{title}: n={len(values)} min={min(values):.3f} median={statistics.median(values):.3f} max={max(values):.3f}"
    )
    for score, question in sorted(scored):
        print(f"  {score:.4f}  {question}")


def main() -> None:
    """Index the vault with the configured embedder, score every question and print the best floor."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--questions", type=Path, default=ROOT / "tests" / "fixtures" / "retrieval_questions.yaml")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    answerable, unanswerable = load_questions(args.questions)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(_env_file=None, vault_path=args.vault, data_dir=Path(tmp) / "data")
        services = build_services(settings)
        services.reindexer.run_once()
        gate = RelevanceGate(services.embedder, services.store, floor=settings.relevance_floor)
        covered = [(gate.check(q).score or 0.0, q) for q in answerable]
        uncovered = [(gate.check(q).score or 0.0, q) for q in unanswerable]
        services.close()
    print_scores("answerable", covered)
    print_scores("unanswerable", uncovered)
    good, bad = [s for s, _ in covered], [s for s, _ in uncovered]
    print("floor  false refusals  false answers")
    for step in range(20, 46):
        choice = rates(good, bad, step / 100)
        print(f"{choice.floor:.2f}   {choice.false_refusal:13.1%}  {choice.false_answer:13.1%}")
    for label, choice in (
        ("fewest errors", best_floor(good, bad)),
        ("no false refusal", safe_floor(good, bad)),
        ("configured", rates(good, bad, settings.relevance_floor)),
    ):
        print(
            f"{label}: {choice.floor:.3f}  false refusals {choice.false_refusal:.1%}  "
            f"false answers {choice.false_answer:.1%}  (model {settings.embed_model})"
        )


if __name__ == "__main__":
    main()
