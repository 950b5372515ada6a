"""Retrieval quality of a vault: recall@k, hit@k and MRR over a question set, with and without diversity by note.

Usage: python -m bench.retrieval_quality [--vault sample_vault] [--questions tests/fixtures/retrieval_questions.yaml]
       [--k 6] [--per-note 0,1,2,3] [--data-dir DIR] [--verbose]

Each --per-note value is a MAX_CHUNKS_PER_NOTE setting run over the same index (0: no limit, as before the
diversity step). --data-dir keeps the index between runs (it is built or updated there); without it the vault
is indexed into a temporary folder. The question sets of ../shared/vaults are in bench/questions/.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from app.wiring import build_services
from core.settings import Settings
from rag.embedding.rerank import build_reranker
from rag.evaluation import EvaluationResult, evaluate, load_question_set
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
    parser.add_argument("--data-dir", type=Path, help="keep the index here between runs (default: a temp dir)")
    parser.add_argument("--verbose", action="store_true", help="print every question whose notes were not all found")
    return parser.parse_args()


def row(label: str, result: EvaluationResult, k: int) -> str:
    """Return one table row of figures."""
    return (
        f"{label:<22} {result.total:>3}  recall@{k} {result.recall:.3f}  hit@{k} {result.hit_rate:.3f}  "
        f"MRR {result.mrr:.3f}  notes/answer {result.notes:.2f}"
    )


def main() -> None:
    """Index the vault with the configured embedder and print the figures per diversity setting and question kind."""
    args = parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    questions = load_question_set(args.questions)
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir or Path(tmp) / "data"
        settings = Settings(_env_file=None, vault_path=args.vault, data_dir=data_dir)
        services = build_services(settings)
        try:
            services.reindexer.run_once()
            print(f"vault {args.vault}  ({services.store.count()} chunks, model {settings.embed_model})")
            reranker = build_reranker(settings.retrieval)
            asked = [int(value) for value in args.per_note.split(",") if value.strip()] if args.per_note else []
            settings_per_note = list(dict.fromkeys(asked or [0, settings.max_chunks_per_note]))
            for per_note in settings_per_note:
                retrieval = settings.retrieval.model_copy(update={"max_chunks_per_note": per_note})
                retriever = Retriever(services.embedder, services.store, reranker, retrieval)
                result = evaluate(retriever, questions, k=args.k)
                print(f"MAX_CHUNKS_PER_NOTE={per_note}" + (" (no limit)" if per_note == 0 else ""))
                print("  " + row("all", result, args.k))
                for kind, part in result.by_kind.items():
                    print("  " + row(kind, part, args.k))
                if args.verbose:
                    for miss in result.misses:
                        print(f"    miss: {miss}")
        finally:
            services.close()


if __name__ == "__main__":
    main()
