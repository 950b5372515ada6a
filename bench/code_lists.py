"""Benchmark the answers code gives without a model (agent/tools/code_lists.py): what each costs a turn.

Usage: python -m bench.code_lists [--vault sample_vault ...] [--rounds 5] [--question "…" ...]

Every question of a chat is offered to the code lists before any search, so a question none of them takes must cost
next to nothing, and one they take must cost less than the search and model call it saves. Per vault: the vault
scan (parsing changed notes is cached; a warm scan re-reads the file list and stats), then each question's reply,
warm, min / median / max over the rounds, and the median as a share of the warm scan it needs anyway.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from agent.tools.code_lists import CodeLists
from agent.tools.reader import VaultReader
from core.domain import SearchFilters, SearchHit
from core.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = (
    "What is the capital of France?",  # taken by none: the cost every other question pays
    "How is my knee doing?",  # the latest dated mentions: every note's lines holding the subject
    "When did I last water the tomatoes?",
    "What do I need to buy?",  # every open task
    "What books am I reading right now?",  # the notes of a kind
    "Which books do I have?",
    "What tasks am I working on right now?",  # every task
    "Which notes link to Books?",
    "Summarize the Old idea note",  # a note's name looked up, none found
)


class _NoSearch:
    """The search port of a reader the code lists use: they read the vault and never search."""

    def search(self, query: str, *, k: int | None = None, filters: SearchFilters | None = None) -> list[SearchHit]:
        raise AssertionError(f"the code lists do not search (asked for {query!r}, k={k}, filters={filters})")


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, action="append", help="a vault (repeatable; default: sample_vault)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--question", action="append", help="a question (repeatable; default: a mix of kinds)")
    return parser.parse_args()


def timed_ms(call: object, rounds: int) -> list[float]:
    """Return the milliseconds each of `rounds` calls of `call` took."""
    assert callable(call)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    """Time each question's code list over each vault and print the figures."""
    args = parse_args()
    for vault in args.vault or [ROOT / "sample_vault"]:
        settings = Settings(_env_file=None, vault_path=vault, data_dir=Path("/nonexistent"))
        reader = VaultReader(settings.vault, _NoSearch())
        lists = CodeLists(reader)
        start = time.perf_counter()
        notes = len(reader.snapshot().notes)
        cold = (time.perf_counter() - start) * 1000
        scan = statistics.median(timed_ms(reader.snapshot, args.rounds))
        print(f"{vault.name}: {notes} notes; first scan {cold:.0f} ms, warm scan {scan:.1f} ms (median)")
        for question in args.question or QUESTIONS:
            lists.reply_for(question)  # warm: the vault's notes parsed once, as a running service has them
            times = timed_ms(lambda question=question, lists=lists: lists.reply_for(question), args.rounds)
            found = lists.reply_for(question)
            taken = found.text.splitlines()[0][:60] if found else "(none: the search's)"
            median = statistics.median(times)
            print(
                f"  {median:7.1f} ms (min {min(times):.1f}, max {max(times):.1f}; {median / scan:4.1f}x a warm scan)"
                f"  {question!r}: {taken}"
            )


if __name__ == "__main__":
    main()
