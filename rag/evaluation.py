"""Scoring retrieval against a question set with expected notes (recall@k, hit rate, MRR), in total and per kind."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml import YAML

from rag.retrieve import Retriever


@dataclass(frozen=True, slots=True)
class Question:
    """A question, the notes that answer it, and what kind of question it is (exact, paraphrase, two-notes ...)."""

    question: str
    expected: tuple[str, ...]
    kind: str = ""


@dataclass(slots=True)
class EvaluationResult:
    """Aggregate retrieval quality over a question set."""

    total: int = 0
    recall: float = 0.0  # mean fraction of expected notes found in the top k
    hit_rate: float = 0.0  # fraction of questions with at least one expected note in the top k
    mrr: float = 0.0  # mean reciprocal rank of the first expected note (0 when missing)
    notes: float = 0.0  # mean number of distinct notes among the top k hits
    misses: list[str] = field(default_factory=list)
    by_kind: dict[str, EvaluationResult] = field(default_factory=dict)  # the same figures per question kind


@dataclass(frozen=True, slots=True)
class _Scored:
    question: Question
    ranked: tuple[str, ...]  # distinct note paths in rank order

    @property
    def recall(self) -> float:
        expected = set(self.question.expected)
        return len(expected.intersection(self.ranked)) / len(expected)

    @property
    def first_rank(self) -> int | None:
        expected = set(self.question.expected)
        return next((rank for rank, path in enumerate(self.ranked, start=1) if path in expected), None)


def load_question_set(path: Path) -> list[Question]:
    """Load the `questions:` list of a question-set YAML file."""
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    return [
        Question(str(row["question"]), tuple(str(p) for p in row["expected"]), str(row.get("kind") or ""))
        for row in data["questions"]
    ]


def evaluate(retriever: Retriever, questions: list[Question], *, k: int) -> EvaluationResult:
    """Run every question through the retriever and score the ranked note paths."""
    scored = [_Scored(question, _ranked_paths(retriever, question.question, k)) for question in questions]
    result = _aggregate(scored)
    kinds = sorted({question.kind for question in questions if question.kind})
    result.by_kind = {kind: _aggregate(s for s in scored if s.question.kind == kind) for kind in kinds}
    return result


def _ranked_paths(retriever: Retriever, question: str, k: int) -> tuple[str, ...]:
    ranked: list[str] = []
    for hit in retriever.search(question, k=k):
        if hit.chunk.path not in ranked:
            ranked.append(hit.chunk.path)
    return tuple(ranked)


def _aggregate(scored: Iterable[_Scored]) -> EvaluationResult:
    items = list(scored)
    result = EvaluationResult(total=len(items))
    if not items:
        return result
    found = [item for item in items if item.first_rank is not None]
    result.recall = sum(item.recall for item in items) / len(items)
    result.hit_rate = len(found) / len(items)
    result.mrr = sum(1 / rank for item in items if (rank := item.first_rank) is not None) / len(items)
    result.notes = sum(len(item.ranked) for item in items) / len(items)
    result.misses = [
        f"{item.question.question} -> expected {sorted(item.question.expected)}, got {list(item.ranked[:3])}"
        for item in items
        if item.recall < 1
    ]
    return result
