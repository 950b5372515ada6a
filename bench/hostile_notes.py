"""Benchmark hostile notes (issue 8): each beside ordinary notes, its `prepare` and whole index run timed, peak RSS.

Every case runs in its own process (under a memory cap and a timeout, so a regression cannot take the machine
down) with the real embedder, and the table shows how long `prepare` of the hostile note took, how long the
whole `run_once` of its small vault took, the process's peak RSS, and what became of the note. The reference
case indexes a copy of sample_vault, a set of ordinary notes, to compare the worst note against. With
`--max-note-chunks` given more than once, one table per limit (e.g. 4000, the default before issue 15, and 500).

Usage: python -m bench.hostile_notes [--case NAME ...] [--max-note-chunks N ...] [--timeout 600] [--memory-mb 4000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.hostile_notes import (
    big_note,
    billion_laughs,
    missing_links,
    quote_tower,
    random_bytes,
    repeated_embeds,
    write_hostile_vault,
)

REFERENCE = "sample_vault notes (reference)"
SAMPLE_VAULT = Path(__file__).resolve().parents[1] / "sample_vault"
CASES: dict[str, tuple[str, Callable[[], str | bytes]]] = {
    REFERENCE: ("Ordinary.md", lambda: ""),  # the vault is a copy of sample_vault (see `write_case`)
    "an ordinary long note (baseline)": ("Long.md", lambda: big_note(2_000)),
    "billion laughs (9 x 9 aliases)": ("Laughs.md", billion_laughs),
    "1 MB random bytes": ("Random.md", random_bytes),
    "1 MB random bytes, no NUL": ("Garbage.md", lambda: random_bytes(has_nul=False)),
    "60,000 missing links, one line": ("Links.md", missing_links),
    "60,000 missing links, 10 a line": ("Lines.md", lambda: missing_links(per_line=10)),
    "60,000 frontmatter links": (
        "Front.md",
        lambda: "---\nrelated:\n" + "".join(f'  - "[[missing note {n}]]"\n' for n in range(60_000)) + "---\nBody\n",
    ),
    "100,000-deep quote tower": ("Quotes.md", quote_tower),
    "60,000 embeds of one note": ("Embeds.md", repeated_embeds),
    "60,000 headings": ("Headings.md", lambda: "".join(f"# Heading {n}\nText {n}.\n" for n in range(60_000))),
}


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="run only these cases")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a case may take before it is killed")
    parser.add_argument("--memory-mb", type=int, default=4000, help="address-space cap of a case's process")
    parser.add_argument(
        "--max-note-chunks", type=int, action="append", help="MAX_NOTE_CHUNKS for the runs (repeat: one table each)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args()


def run_case(name: str, workdir: Path) -> dict[str, object]:
    """Index one case's vault with the real embedder; return the figures (runs in the child process)."""
    from app.wiring import build_services
    from core.settings import Settings
    from rag.indexer import NoteIndexer
    from rag.notes.budget import NoteSkipped
    from rag.notes.links import LinkResolver
    from sync.embeds import EmbedReader

    file_name = CASES[name][0]
    vault = workdir / "vault"
    path = write_case(vault, name)
    settings = Settings(_env_file=None, vault_path=vault, data_dir=workdir / "data")  # MAX_NOTE_CHUNKS from env
    services = build_services(settings)
    services.embedder.count_tokens("warm up")  # load the model outside the timings
    started = time.perf_counter()
    report = services.reindexer.run_once()
    index_seconds = time.perf_counter() - started
    # `prepare` alone, on a fresh indexer (the run's one remembers the notes it refused).
    indexer = NoteIndexer(services.embedder, overlap_tokens=settings.chunk_overlap_tokens)
    text = path.read_bytes().decode("utf-8", errors="replace")
    resolver = LinkResolver([p.relative_to(vault).as_posix() for p in vault.rglob("*.md")])
    reader = EmbedReader(vault, resolver, {}, max_bytes=settings.max_note_bytes)
    started = time.perf_counter()
    try:
        prepared = indexer.prepare(
            file_name, text, resolver=resolver, embedded_text=reader.lookup, max_chunks=settings.max_note_chunks
        )
        outcome = f"indexed, {len(prepared.chunks)} chunks"
    except NoteSkipped as exc:
        outcome = f"skipped: {exc}"
    prepare_seconds = time.perf_counter() - started
    services.close()
    errors = dict(report.errors)
    warnings = [warning for where, warning in report.warnings if where == file_name]
    if name == REFERENCE:
        outcome, warnings = f"{len(report.added)} notes, {report.chunks_indexed} chunks", []
    return {
        "prepare_s": prepare_seconds,
        "index_s": index_seconds,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "outcome": errors.get(file_name) or (f"{outcome}; {warnings[0]}" if warnings else outcome),
        "ordinary_indexed": "Ordinary.md" in report.added and "Second.md" in report.added,
        "bytes": path.stat().st_size,
    }


def write_case(vault: Path, name: str) -> Path:
    """Write the case's vault (the reference: a copy of sample_vault); return the path of the note it is about."""
    file_name, make = CASES[name]
    if name == REFERENCE:
        shutil.copytree(SAMPLE_VAULT, vault)
        return write_hostile_vault(vault, file_name, "# Ordinary\n\nA plain note about the allotment's rhubarb.\n")
    path = write_hostile_vault(vault, file_name, make())
    (vault / "Big.md").write_text(big_note(), encoding="utf-8")  # what the embeds case embeds
    return path


def spawn_case(name: str, timeout: float, memory_mb: int, max_note_chunks: int | None) -> dict[str, object]:
    """Run one case in a child process under a memory cap and a timeout; return its figures."""
    cap = memory_mb * 1024 * 1024

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "bench.hostile_notes", "--child", name, "--workdir", tmp]
        env = dict(os.environ)
        if max_note_chunks is not None:
            env["MAX_NOTE_CHUNKS"] = str(max_note_chunks)
        started = time.perf_counter()
        try:
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=timeout,
                preexec_fn=limit_memory,
                check=False,
                env=env,
            )
        except subprocess.TimeoutExpired:
            return {"outcome": f"killed after {timeout:.0f} s", "index_s": time.perf_counter() - started}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"outcome": f"crashed: {last}"}
    figures: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def print_table(rows: list[tuple[str, dict[str, object]]]) -> None:
    """Print one line per case."""
    print(f"{'case':34} {'size':>8} {'prepare':>9} {'index run':>10} {'peak RSS':>9}  ordinary  outcome")
    for name, figures in rows:
        size = f"{float(str(figures['bytes'])) / 1e6:.2f} MB" if "bytes" in figures else "-"
        prepare = f"{figures['prepare_s']:.2f} s" if "prepare_s" in figures else "-"
        index = f"{figures['index_s']:.2f} s" if "index_s" in figures else "-"
        rss = f"{figures['rss_mb']:.0f} MB" if "rss_mb" in figures else "-"
        ordinary = "yes" if figures.get("ordinary_indexed") else "no"
        outcome = str(figures["outcome"])
        print(f"{name:34} {size:>8} {prepare:>9} {index:>10} {rss:>9}  {ordinary:8}  {outcome[:110]}")


def main() -> None:
    """Run the cases and print the table."""
    args = parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.child:
        print(json.dumps(run_case(args.child, args.workdir)))
        return
    for limit in args.max_note_chunks or [None]:
        print(f"MAX_NOTE_CHUNKS={limit if limit is not None else os.environ.get('MAX_NOTE_CHUNKS', 'default')}")
        rows = [(name, spawn_case(name, args.timeout, args.memory_mb, limit)) for name in args.case or CASES]
        print_table(rows)
        hostile = [row for row in rows if not row[0].endswith(("(baseline)", "(reference)"))]
        if hostile:
            worst = max(hostile, key=lambda row: float(str(row[1].get("index_s", 0))))
            print(f"worst hostile case: {worst[0]}, index run {float(str(worst[1].get('index_s', 0))):.1f} s")


if __name__ == "__main__":
    main()
