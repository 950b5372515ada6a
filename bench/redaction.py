"""Benchmark what masking credentials costs, and count the lines of ordinary notes it changes (false hits).

Usage: python -m bench.redaction [--vault sample_vault] [--rounds 3] [--count-vaults DIR ...] [--show]

Chunks are cut by the indexer's own chunker; each is masked as the Retriever masks hits. A conversation's history
is masked before every model call (llm_client.secrets.masking): timed uncached, and through the LRU the service uses.
`--count-vaults` masks every note of the folders and prints how many lines changed (`--show` prints them).
"""

from __future__ import annotations

import argparse
import difflib
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from rag.answer.secrets import caching_redactor, redact_secrets
from rag.chunks.chunking import chunk_note
from rag.notes.markdown import parse_note

ROOT = Path(__file__).resolve().parents[1]
TOP_K = 6
TOOL_RESULT_CHARS = 6_000  # DEFAULT_MAX_CHARS of a read tool's result
HISTORY_TURNS = 20  # a long chat: each turn adds a question and a reply the size of a passage
PROMPT_MASK_CACHE = 1024  # app.services.answering.PROMPT_MASK_CACHE


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--count-vaults", type=Path, nargs="*", default=[], help="count changed lines of notes")
    parser.add_argument("--show", action="store_true", help="print each changed line (with --count-vaults)")
    return parser.parse_args()


def chunk_texts(vault: Path) -> list[str]:
    """Return the text of every chunk of the vault's notes (about 256 words each)."""
    texts: list[str] = []
    for path in sorted(vault.rglob("*.md")):
        note = parse_note(path.relative_to(vault).as_posix(), path.read_text(encoding="utf-8", errors="replace"))
        chunks = chunk_note(note, link_text=note.title, count_tokens=lambda text: len(text.split()), max_tokens=256)
        texts.extend(chunk.text for chunk in chunks)
    return texts


def history_ms(texts: list[str], mask: Callable[[str], str]) -> float:
    """Return the mean time to mask a whole history before each call of a HISTORY_TURNS-turn conversation."""
    history: list[str] = []
    start = time.perf_counter()
    for turn in range(HISTORY_TURNS):
        history += [f"Question {turn}: what does the note say?", texts[turn % len(texts)]]
        for message in history:
            mask(message)
    return (time.perf_counter() - start) * 1000 / HISTORY_TURNS


def count_changed_lines(folders: list[Path], *, show: bool) -> None:
    """Print how many notes the folders hold and how many of their lines masking changes."""
    notes = changed = 0
    for folder in folders:
        for path in sorted(folder.rglob("*.md")):
            notes += 1
            text = path.read_text(encoding="utf-8", errors="replace")
            # A private key's lines become one marker line: a diff, not a zip, pairs the lines up.
            diff = difflib.unified_diff(text.split("\n"), redact_secrets(text).split("\n"), lineterm="", n=0)
            for line in diff:
                if line.startswith("+") and not line.startswith("+++"):
                    changed += 1
                    if show:
                        print(f"{path}: {line[1:161]}")
    print(f"{notes:,} notes: {changed} line(s) changed by masking")


def main() -> None:
    """Print the cost of masking per passage, per turn's passages, per tool result and per resent history."""
    args = parse_args()
    texts = chunk_texts(args.vault)
    redact_secrets("warm up: imports the detector plugins")
    per_chunk: list[float] = []
    for _ in range(args.rounds):
        for text in texts:
            start = time.perf_counter()
            redact_secrets(text)
            per_chunk.append((time.perf_counter() - start) * 1000)
    chars = statistics.mean(len(text) for text in texts)
    blob = "\n".join(texts)[:TOOL_RESULT_CHARS]
    start = time.perf_counter()
    for _ in range(args.rounds):
        redact_secrets(blob)
    tool_ms = (time.perf_counter() - start) * 1000 / args.rounds
    per_chunk.sort()
    p95 = per_chunk[int(len(per_chunk) * 0.95)]
    print(f"{len(texts)} chunks, {chars:.0f} characters on average")
    print(f"per passage: median {statistics.median(per_chunk):.2f} ms, p95 {p95:.2f} ms")
    print(f"per turn ({TOP_K} passages): about {statistics.mean(per_chunk) * TOP_K:.1f} ms")
    print(f"per tool result ({TOOL_RESULT_CHARS:,} characters): {tool_ms:.1f} ms")
    uncached = history_ms(texts, redact_secrets)
    cached = history_ms(texts, caching_redactor(PROMPT_MASK_CACHE))
    print(f"per model call, {HISTORY_TURNS}-turn history resent: {uncached:.1f} ms uncached, {cached:.2f} ms cached")
    if args.count_vaults:
        count_changed_lines(args.count_vaults, show=args.show)


if __name__ == "__main__":
    main()
