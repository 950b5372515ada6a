"""Scoring retrieval against a question set with expected notes (recall@k, hit rate, MRR)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml import YAML

from rag.retrieve import Retriever


@dataclass(frozen=True, slots=True)
class Question:
    """A question and the notes that answer it."""

    question: str
    expected: tuple[str, ...]


@dataclass(slots=True)
class EvaluationResult:
    """Aggregate retrieval quality over a question set."""

    total: int = 0
    recall: float = 0.0  # mean fraction of expected notes found in the top k
    hit_rate: float = 0.0  # fraction of questions with at least one expected note in the top k
    mrr: float = 0.0  # mean reciprocal rank of the first expected note (0 when missing)
    misses: list[str] = field(default_factory=list)


def load_question_set(path: Path) -> list[Question]:
    """Load the `questions:` list of a question-set YAML file."""
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    return [Question(str(row["question"]), tuple(str(p) for p in row["expected"])) for row in data["questions"]]


def evaluate(retriever: Retriever, questions: list[Question], *, k: int) -> EvaluationResult:
    """Run every question through the retriever and score the ranked note paths."""
    result = EvaluationResult(total=len(questions))
    recall_sum = hits = rr_sum = 0.0
    for question in questions:
        ranked: list[str] = []
        for hit in retriever.search(question.question, k=k):
            if hit.chunk.path not in ranked:
                ranked.append(hit.chunk.path)
        expected = set(question.expected)
        found = expected.intersection(ranked)
        recall_sum += len(found) / len(expected)
        first = next((rank for rank, path in enumerate(ranked, start=1) if path in expected), None)
        if first is None:
            result.misses.append(f"{question.question} -> expected {sorted(expected)}, got {ranked[:3]}")
        else:
            hits += 1
            rr_sum += 1 / first
    if questions:
        result.recall = recall_sum / len(questions)
        result.hit_rate = hits / len(questions)
        result.mrr = rr_sum / len(questions)
    return result
