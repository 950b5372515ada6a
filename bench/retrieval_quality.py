"""Retrieval quality on sample_vault: recall@k and MRR over the question set in tests/fixtures.

Usage: python -m bench.retrieval_quality [--k 6] [--vault sample_vault]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from app.wiring import build_services
from core.settings import Settings
from rag.evaluation import evaluate, load_question_set

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    """Index sample_vault with the configured embedder and print recall@k and MRR."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=6)
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--questions", type=Path, default=ROOT / "tests" / "fixtures" / "retrieval_questions.yaml")
    parser.add_argument("--verbose", action="store_true", help="print every miss")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(_env_file=None, vault_path=args.vault, data_dir=Path(tmp) / "data")
        services = build_services(settings)
        services.reindexer.run_once()
        result = evaluate(services.retriever, load_question_set(args.questions), k=args.k)
        services.close()
    print(
        f"questions: {result.total}  recall@{args.k}: {result.recall:.3f}  hit@{args.k}: {result.hit_rate:.3f}  "
        f"MRR: {result.mrr:.3f}  (model {settings.embed_model})"
    )
    if args.verbose:
        for miss in result.misses:
            print(f"  miss: {miss}")


if __name__ == "__main__":
    main()
