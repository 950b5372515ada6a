"""Retrieval quality of a vault: recall@k, hit@k and MRR over a question set, per diversity, fusion and reranker.

Usage: python -m bench.retrieval_quality [--vault sample_vault] [--questions tests/fixtures/retrieval_questions.yaml]
       [--k 6] [--per-note 0,1,2,3] [--rrf-k 10,60] [--fusion rrf,dbsf,dense:2,by-length]
       [--reranker NAME_OR_DIR] [--data-dir DIR] [--verbose]

Each --per-note value is a MAX_CHUNKS_PER_NOTE setting, each --rrf-k value an RRF_K, run over the same index.
--fusion compares ways to merge the dense and BM25 lists: `rrf` (as configured), `dbsf` (Qdrant's
distribution-based score fusion), `dense:W` (RRF with the dense list weighted W against BM25's 1) and `by-length`
(RRF with the dense list weighted by the query's length: 1 up to 3 BM25 terms, then terms / 3, at most 2).
--reranker measures without a reranker, then with a cross-encoder: a model folder, or a fastembed name
(downloaded into DATA_DIR/models on a run with HF_HUB_OFFLINE=0, read from there afterwards).
--data-dir keeps the index between runs (it is built or updated there); without it the vault is indexed into a
temporary folder. The question sets of ../shared/vaults are in bench/questions/ (<vault>.yaml, and
<vault>.paraphrase.yaml with questions that avoid the notes' words, and near misses; <vault>.spelling.yaml with
questions spelling their key word the other way, British or American, from their note).
"""

from __future__ import annotations

import argparse
import itertools
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.wiring import Services
from bench.indexed import indexed_vault
from core.domain import DEFAULT_FUSION, Embedding, Fusion, SearchFilters, SearchHit
from core.ports import Reranker, VectorStore
from core.settings import RetrievalSettings, Settings
from rag.embedding.rerank import PassthroughReranker, build_reranker
from rag.evaluation import EvaluationResult, Question, evaluate, load_question_set
from rag.retrieve import Retriever

ROOT = Path(__file__).resolve().parents[1]


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=6)
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--questions", type=Path, default=ROOT / "tests" / "fixtures" / "retrieval_questions.yaml")
    parser.add_argument(
        "--per-note", help="comma-separated MAX_CHUNKS_PER_NOTE values to compare (default: 0 and the configured one)"
    )
    parser.add_argument("--rrf-k", help="comma-separated RRF_K values to compare (default: the configured one)")
    parser.add_argument("--fusion", default="rrf", help="comma-separated: rrf, dbsf, dense:W, by-length")
    parser.add_argument("--reranker", help="also measure with this cross-encoder (fastembed name or model folder)")
    parser.add_argument("--data-dir", type=Path, help="keep the index here between runs (default: a temp dir)")
    parser.add_argument("--verbose", action="store_true", help="print every question whose notes were not all found")
    return parser.parse_args()


class FusionChoice:
    """A VectorStore that searches its inner store with another fusion (RRF's k still comes from the caller)."""

    def __init__(self, inner: VectorStore, choice: str) -> None:
        self._inner = inner
        self._choice = choice

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def search(
        self,
        query: Embedding,
        *,
        limit: int,
        filters: SearchFilters | None = None,
        prefetch_limit: int = 50,
        fusion: Fusion = DEFAULT_FUSION,
    ) -> list[SearchHit]:
        """Search the inner store with the chosen fusion."""
        chosen = fused(self._choice, fusion, query)
        return self._inner.search(query, limit=limit, filters=filters, prefetch_limit=prefetch_limit, fusion=chosen)


def fused(choice: str, configured: Fusion, query: Embedding) -> Fusion:
    """Return the fusion named by a --fusion value for this query."""
    if choice == "rrf":
        return configured
    if choice == "dbsf":
        return replace(configured, method="dbsf")
    if choice.startswith("dense:"):
        return replace(configured, dense_weight=float(choice.removeprefix("dense:")))
    if choice == "by-length":
        terms = len(query.terms)
        return replace(configured, dense_weight=1.0 if terms <= 3 else min(2.0, terms / 3))
    raise SystemExit(f"unknown --fusion value {choice!r}: use rrf, dbsf, dense:W or by-length")


def row(label: str, result: EvaluationResult, k: int) -> str:
    """Return one table row of figures."""
    return (
        f"{label:<22} {result.total:>3}  recall@{k} {result.recall:.3f}  hit@{k} {result.hit_rate:.3f}  "
        f"MRR {result.mrr:.3f}  notes/answer {result.notes:.2f}"
    )


def values(option: str | None, default: list[int]) -> list[int]:
    """Return the integers of a comma-separated option, or the default."""
    asked = [int(value) for value in option.split(",") if value.strip()] if option else []
    return list(dict.fromkeys(asked or default))


def rerankers(settings: Settings, named: str | None) -> list[tuple[str, Reranker]]:
    """Return the configured reranker, or with --reranker: none, then the one named (a model folder or name)."""
    if not named:
        return [("", build_reranker(settings.retrieval))]
    folder = Path(named).expanduser()
    update = {"reranker_model_dir": folder} if folder.is_dir() else {"reranker_model": named}
    return [
        ("no reranker", PassthroughReranker()),
        (f"reranker {named}", build_reranker(settings.retrieval.model_copy(update=update))),
    ]


def print_results(result: EvaluationResult, k: int, *, verbose: bool) -> None:
    """Print the figures in total and per question kind."""
    print("  " + row("all", result, k))
    for kind, part in result.by_kind.items():
        print("  " + row(kind, part, k))
    if verbose:
        for miss in result.misses:
            print(f"    miss: {miss}")


def run(settings: Settings, services: Services, questions: list[Question], args: argparse.Namespace) -> None:
    """Evaluate every combination of the options over the same index."""
    base: RetrievalSettings = settings.retrieval
    per_notes = values(args.per_note, [0, settings.max_chunks_per_note])
    rrf_ks = values(args.rrf_k, [settings.rrf_k])
    choices = [choice.strip() for choice in args.fusion.split(",") if choice.strip()]
    for (label, reranker), per_note, rrf_k, choice in itertools.product(
        rerankers(settings, args.reranker),
        per_notes,
        rrf_ks,
        choices,
    ):
        retrieval = base.model_copy(update={"max_chunks_per_note": per_note, "rrf_k": rrf_k})
        store = FusionChoice(services.store, choice)
        retriever = Retriever(services.embedder, store, reranker, retrieval)
        limit = " (no limit)" if per_note == 0 else ""
        print(
            f"MAX_CHUNKS_PER_NOTE={per_note}{limit}  RRF_K={rrf_k}  fusion {choice}" + (f"  {label}" if label else "")
        )
        print_results(evaluate(retriever, questions, k=args.k), args.k, verbose=args.verbose)


def main() -> None:
    """Index the vault with the configured embedder and print the figures per combination and question kind."""
    args = parse_args()
    questions = load_question_set(args.questions)
    with indexed_vault(args.vault, args.data_dir) as (settings, services):
        print(f"vault {args.vault}  ({services.store.count()} chunks, model {settings.embed_model})")
        run(settings, services, questions, args)


if __name__ == "__main__":
    main()
