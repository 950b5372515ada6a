"""Benchmark a real vault in one run: index throughput vs the bare embedder, RSS, no-op re-index, search latency.

Usage: python -m bench.index_vault ../shared/vaults/vaultofknowledge [--limit-notes N] [--queries 200]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.wiring import build_services
from core.settings import Settings
from rag.embedding.embedders import FastembedEmbedder
from rag.notes.links import LinkResolver
from rag.notes.vault import read_note_text, scan_vault

BARE_SAMPLE = 3000


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--limit-notes", type=int, default=0, help="index only a copy of the first N notes (0 = all)")
    parser.add_argument("--queries", type=int, default=200)
    return parser.parse_args()


def subset_vault(vault: Path, limit: int, workdir: Path) -> Path:
    """Copy the first `limit` notes (sorted by path) into a temporary vault."""
    target = workdir / "vault"
    notes = sorted(p for p in vault.rglob("*.md") if not any(part.startswith(".") for part in p.parts))
    for note in notes[:limit]:
        dest = target / note.relative_to(vault)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(note.read_bytes())
    return target


def bare_embedder_rate(services_embedder: FastembedEmbedder, texts: list[str], batch_size: int) -> float:
    """Return chunks/s of the dense model alone on the same texts (no parsing, chunking, BM25 or storage)."""
    dense = services_embedder.dense_model
    started = time.perf_counter()
    for start in range(0, len(texts), batch_size):
        list(dense.embed(texts[start : start + batch_size], batch_size=batch_size))
    return len(texts) / (time.perf_counter() - started)


def main() -> None:
    """Run the benchmark and print its figures."""
    args = parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        vault = subset_vault(args.vault, args.limit_notes, workdir) if args.limit_notes else args.vault.resolve()
        settings = Settings(_env_file=None, vault_path=vault, data_dir=workdir / "data")
        services = build_services(settings)
        embedder = services.embedder
        if not isinstance(embedder, FastembedEmbedder):
            raise SystemExit("this benchmark needs the fastembed embedder")

        started = time.perf_counter()
        report = services.reindexer.run_once()
        index_seconds = time.perf_counter() - started
        pipeline_rate = report.chunks_embedded / index_seconds
        peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

        texts = chunk_texts(services, vault)
        # An evenly spaced sample keeps the bare pass short while matching the pipeline's mix of chunk lengths.
        step = max(1, len(texts) // BARE_SAMPLE)
        bare_rate = bare_embedder_rate(embedder, texts[::step], settings.embed_batch_size)

        started = time.perf_counter()
        noop = services.reindexer.run_once()
        noop_seconds = time.perf_counter() - started

        latencies = search_latencies(services, args.queries)
        services.close()
        cli_noop_seconds = time_cli_noop(vault, workdir / "data")

    sampled = len(texts[::step])
    print(f"vault: {args.vault} ({report.notes_total} notes, {report.chunks_indexed} chunks; bare sample {sampled})")
    print(
        f"index: {index_seconds:.1f} s, pipeline {pipeline_rate:.1f} chunks/s, bare embedder {bare_rate:.1f} chunks/s"
    )
    print(f"ratio pipeline/bare: {pipeline_rate / bare_rate:.2f} (target >= 0.85)")
    print(f"peak RSS: {peak_rss_mb:.0f} MB")
    print(f"no-op re-index: {noop_seconds * 1000:.0f} ms (target < 1000 ms; {noop.unchanged} unchanged)")
    print(f"no-op `librarian index` as a new process: {cli_noop_seconds * 1000:.0f} ms (interpreter start included)")
    p50 = statistics.median(latencies)
    p95 = statistics.quantiles(latencies, n=20)[18]
    print(f"search latency over {len(latencies)} queries: p50 {p50:.1f} ms, p95 {p95:.1f} ms (target p95 < 50 ms)")


def time_cli_noop(vault: Path, data_dir: Path) -> float:
    """Time a whole `librarian index` process on an up-to-date index (what a user or cron job waits for)."""
    env = {**os.environ, "DATA_DIR": str(data_dir), "VAULT_PATH": str(vault)}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "app.cli", "index", "--json"], env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def chunk_texts(services: object, vault: Path) -> list[str]:
    """Re-chunk the vault exactly as the pipeline does and return the texts it embeds."""
    from app.wiring import Services
    from rag.indexer import NoteIndexer

    if not isinstance(services, Services):
        raise TypeError("expected Services")
    settings = services.settings
    indexer = NoteIndexer(services.embedder, overlap_tokens=settings.chunk_overlap_tokens)
    scan = scan_vault(settings.vault.model_copy(update={"path": vault}))
    resolver = LinkResolver(scan.all_paths)
    texts: list[str] = []
    for path in sorted(scan.notes):
        if scan.notes[path].size > settings.max_note_bytes:
            continue
        text = read_note_text(scan.root, path)[1]
        texts.extend(chunk.embed_text for chunk in indexer.prepare(path, text, resolver=resolver).chunks)
    return texts


def search_latencies(services: object, count: int) -> list[float]:
    """Time `count` searches (query embedding included) built from note titles and headings."""
    from app.wiring import Services

    if not isinstance(services, Services):
        raise TypeError("expected Services")
    paths = sorted(services.docstore.paths())
    rng = random.Random(7)
    queries = [Path(rng.choice(paths)).stem.replace("-", " ") + " notes" for _ in range(count)]
    services.retriever.search("warm up")
    latencies = []
    for query in queries:
        started = time.perf_counter()
        services.retriever.search(query)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


if __name__ == "__main__":
    main()
