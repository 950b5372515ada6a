"""Follow-up questions: recall of a question searched alone against the way the service searches it in a conversation.

Two figures per question set, both over the same index:
- follow-ups (`--follow-ups`, e.g. bench/questions/sample_vault.follow_ups.yaml): "How did I rate it?" asked right
  after "What did I think of The Overstory?". Searched alone it finds nothing about the book; the service searches a
  follow-up after the question before it too (rag/follow_up.py).
- topic switches (`--questions`, any question set): each question asked right after the one before it in the set,
  an unrelated question. What the service does must not lose here.
Each as served, then as served after an answer: a follow-up pointing back also reads the notes the answer before it
came from (`Query.answered_from`), here taken to be the first ANSWER_NOTES notes of the earlier question's passages;
and the MRR of both.

Usage:
  python -m bench.follow_up_retrieval --vault sample_vault --follow-ups bench/questions/sample_vault.follow_ups.yaml \
      --questions tests/fixtures/retrieval_questions.yaml
  python -m bench.follow_up_retrieval --vault $VAULTS/vaultofknowledge \
      --questions bench/questions/vaultofknowledge.paraphrase.yaml --data-dir /tmp/rq-vaultofknowledge
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ruamel.yaml import YAML

from bench.indexed import indexed_vault
from core.domain import SearchHit
from rag.answer.relevance_gate import RelevanceGate
from rag.evaluation import load_question_set
from rag.retrieve import Retriever

K = 6
ANSWER_NOTES = 2  # the notes an answer usually cites


@dataclass(frozen=True, slots=True)
class Turn:
    """A question asked right after `earlier`, and the notes that answer it."""

    earlier: str
    question: str
    expected: tuple[str, ...]


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--follow-ups", type=Path, help="a YAML file of follow_ups: {earlier, question, expected}")
    parser.add_argument("--questions", type=Path, help="a question set, asked one after another as topic switches")
    parser.add_argument(
        "--unanswerable",
        type=Path,
        help="a YAML list `unanswerable:` (bench/questions/unanswerable.yaml), each asked after every --questions one",
    )
    parser.add_argument("--data-dir", type=Path, help="keep the index here between runs (default: a temp dir)")
    return parser.parse_args()


def follow_ups(path: Path) -> list[Turn]:
    """Load the follow-up turns of `path`."""
    rows = YAML(typ="safe").load(path.read_text(encoding="utf-8"))["follow_ups"]
    return [Turn(str(row["earlier"]), str(row["question"]), tuple(map(str, row["expected"]))) for row in rows]


def topic_switches(path: Path) -> list[Turn]:
    """Return each question of a set asked right after the one before it (the first after the last)."""
    questions = load_question_set(path)
    return [
        Turn(questions[i - 1].question, question.question, question.expected) for i, question in enumerate(questions)
    ]


def recall(hits: Sequence[SearchHit], expected: Sequence[str]) -> float:
    """Return the share of `expected` notes among the hits."""
    return len({hit.chunk.path for hit in hits} & set(expected)) / len(expected)


def reciprocal_rank(hits: Sequence[SearchHit], expected: Sequence[str]) -> float:
    """Return 1 / the rank of the first note holding an answer among the hits' notes (0 when none does)."""
    notes = list(dict.fromkeys(hit.chunk.path for hit in hits))
    return next((1 / rank for rank, note in enumerate(notes, start=1) if note in expected), 0.0)


def unanswerable_switches(path: Path, questions: Path) -> list[Turn]:
    """Return each question of `path` the notes don't answer, asked right after each question of `questions`."""
    rows = YAML(typ="safe").load(path.read_text(encoding="utf-8"))["unanswerable"]
    earlier = [question.question for question in load_question_set(questions)]
    return [Turn(before, str(row), ()) for row in rows for before in earlier]


@dataclass(frozen=True, slots=True)
class Figures:
    """What one set of turns gave: recall and MRR as searched, the follow-ups searched, the turns the floor passed.

    Recall alone, as served, and as served after an answer (from the earlier question's first notes).
    """

    alone: float
    served: float
    after_answer: float
    served_mrr: float
    after_answer_mrr: float
    as_follow_up: int
    covered: int


def earlier_answer_notes(retriever: Retriever, earlier: str) -> tuple[str, ...]:
    """Return the notes an answer to `earlier` is taken to come from: the first ANSWER_NOTES its passages hold."""
    hits = retriever.search_for(retriever.prepare(earlier), k=K, passages=True)
    return tuple(dict.fromkeys(hit.chunk.path for hit in hits))[:ANSWER_NOTES]


def measure(retriever: Retriever, gate: RelevanceGate, turns: list[Turn]) -> Figures:
    """Return the figures of `turns` (see `Figures`).

    After an answer: `Query.answered_from` holds the notes an answer to the earlier question is taken to come from.
    """
    alone = served = after_answer = served_mrr = after_answer_mrr = 0.0
    as_follow_up = covered = 0
    for turn in turns:
        query = retriever.prepare(turn.question, turn.earlier)
        as_follow_up += query.in_context is not None
        covered += gate.covers(query)
        if turn.expected:
            alone += recall(retriever.search(turn.question, k=K), turn.expected)
            hits = retriever.search_for(query, k=K, passages=True)
            served += recall(hits, turn.expected)
            served_mrr += reciprocal_rank(hits, turn.expected)
            answered = replace(query, answered_from=earlier_answer_notes(retriever, turn.earlier))
            hits = retriever.search_for(answered, k=K, passages=True)
            after_answer += recall(hits, turn.expected)
            after_answer_mrr += reciprocal_rank(hits, turn.expected)
    count = len(turns)
    return Figures(
        alone / count,
        served / count,
        after_answer / count,
        served_mrr / count,
        after_answer_mrr / count,
        as_follow_up,
        covered,
    )


def main() -> None:
    """Index the vault, then print recall@K alone and as served for each set given."""
    args = parse_args()
    sets = [("follow-ups", follow_ups, args.follow_ups), ("topic switches", topic_switches, args.questions)]
    with indexed_vault(args.vault, args.data_dir) as (settings, services):
        gate = RelevanceGate.from_settings(services.embedder, services.store, settings.answer)
        figures = f"recall@{K}: alone -> as served -> after an answer; MRR as served -> after an answer"
        print(f"vault {args.vault}  ({services.store.count()} chunks)  {figures}")
        for label, load, path in sets:
            if path is None:
                continue
            turns = load(path)
            got = measure(services.retriever, gate, turns)
            print(
                f"  {label:15} {path.name:45} n={len(turns):3}  "
                f"{got.alone:.3f} -> {got.served:.3f} -> {got.after_answer:.3f}  "
                f"MRR {got.served_mrr:.3f} -> {got.after_answer_mrr:.3f}  "
                f"({got.as_follow_up} searched as follow-ups, {got.covered} pass the relevance floor)"
            )
        if args.unanswerable is not None and args.questions is not None:
            turns = unanswerable_switches(args.unanswerable, args.questions)
            got = measure(services.retriever, gate, turns)
            print(
                f"  {'unanswerable':15} {args.unanswerable.name:45} n={len(turns):3}  "
                f"({got.as_follow_up} searched as follow-ups, {got.covered} pass the relevance floor: should be 0)"
            )


if __name__ == "__main__":
    main()
