"""Benchmark what masking credentials costs: per passage (a TOP_K turn) and per tool result, over real chunks.

Usage: python -m bench.redaction [--vault sample_vault] [--rounds 3]

Chunks are cut by the indexer's own chunker with the bundled tokenizer; each is masked as the Retriever masks hits.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from rag.answer.secrets import redact_secrets
from rag.chunks.chunking import chunk_note
from rag.notes.markdown import parse_note

ROOT = Path(__file__).resolve().parents[1]
TOP_K = 6
TOOL_RESULT_CHARS = 6_000  # DEFAULT_MAX_CHARS of a read tool's result


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--rounds", type=int, default=3)
    return parser.parse_args()


def chunk_texts(vault: Path) -> list[str]:
    """Return the text of every chunk of the vault's notes (about 256 words each)."""
    texts: list[str] = []
    for path in sorted(vault.rglob("*.md")):
        note = parse_note(path.relative_to(vault).as_posix(), path.read_text(encoding="utf-8", errors="replace"))
        chunks = chunk_note(note, link_text=note.title, count_tokens=lambda text: len(text.split()), max_tokens=256)
        texts.extend(chunk.text for chunk in chunks)
    return texts


def main() -> None:
    """Print the cost of masking per passage, per turn's passages and per full tool result."""
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


if __name__ == "__main__":
    main()
