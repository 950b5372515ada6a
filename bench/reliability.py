"""Reliability figures with real processes: kill -9 mid-index then converge; a Redis outage ridden out by `serve`.

Usage: python -m bench.reliability [--vault sample_vault] [--kills 3] [--outage-seconds 10]

1. Crash and converge: `librarian index` (the bundled model) is killed with SIGKILL at different moments of its
   first run; a second `librarian index` finishes it. The result is compared with a clean index of the same
   vault in another DATA_DIR: points per note, the embed keys and vectors of every chunk, docstore paths and
   hashes. Each trial prints whether they are equal.
2. Redis outage: `librarian serve` with a private redis-server (nothing persisted) as docstore indexes the vault;
   Redis is killed, a note is edited, Redis comes back empty after `--outage-seconds`. The figure is the time from
   Redis answering again to the index being whole (last run ok, stores consistent), with the retries it took,
   while the status is polled (a status call that finds the stores answering retries at once); then with nobody
   polling (the backoff's next try). Redis emptied with FLUSHALL while it runs: the time until it is refilled.
The fuzzing and concurrency figures come from `tests/integration/test_api_fuzz.py` and `bench.chat_service`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import redis as redis_client

from app.wiring import build_services
from core.settings import Settings
from tests.redis_server import PrivateRedis
from tests.scripted_llm import free_port

ROOT = Path(__file__).resolve().parents[1]


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--outage-seconds", type=float, default=10.0)
    return parser.parse_args()


def cli_env(vault: Path, data_dir: Path, **extra: str) -> dict[str, str]:
    """Return the environment of a `librarian` process on this vault and DATA_DIR."""
    base = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QDRANT_URL", "API_KEY")}
    return {
        **base,
        "VAULT_PATH": str(vault),
        "DATA_DIR": str(data_dir),
        "HF_HUB_OFFLINE": "1",
        "LLM_PROBE_LOCAL_PORTS": "false",
        **extra,
    }


def librarian(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[bytes]:
    """Run a `librarian` command to its end."""
    return subprocess.run([sys.executable, "-m", "app.cli", *args], env=env, capture_output=True, check=False)


def index_content(vault: Path, data_dir: Path) -> dict[str, Any]:
    """Return what an index holds: per note its embed keys and rounded vectors, plus docstore paths and hashes."""
    services = build_services(Settings(_env_file=None, vault_path=vault, data_dir=data_dir))
    try:
        notes: dict[str, Any] = {}
        for path in sorted(services.store.indexed_paths()):
            vectors = services.store.embeddings_for_paths([path])
            notes[path] = sorted((key, tuple(round(x, 4) for x in e.dense)) for key, e in vectors.items())
        docs = {p: doc.content_hash for p in services.docstore.paths() if (doc := services.docstore.get(p))}
        return {"notes": notes, "docs": docs, "points": services.store.count()}
    finally:
        services.close()


def crash_and_converge(vault: Path, scratch: Path, kills: int) -> None:
    """Kill `librarian index` at growing delays, finish the run, and compare with a clean index."""
    clean_dir = scratch / "clean"
    started = time.perf_counter()
    librarian(cli_env(vault, clean_dir), "index")
    full = time.perf_counter() - started
    clean = index_content(vault, clean_dir)
    print(f"clean first index: {full:.1f} s, {clean['points']} points, {len(clean['notes'])} notes")
    print("\n| kill after | exit | points before resume | resumed run | equal to clean |\n|---|---|---|---|---|")
    for trial in range(1, kills + 1):
        data_dir = scratch / f"crash-{trial}"
        delay = full * trial / (kills + 1)
        process = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "index"],
            env=cli_env(vault, data_dir),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        code = process.wait()
        before = index_content(vault, data_dir)["points"]
        resumed_at = time.perf_counter()
        librarian(cli_env(vault, data_dir), "index")
        resumed = time.perf_counter() - resumed_at
        equal = index_content(vault, data_dir) == clean
        print(f"| {delay:.1f} s | {code} | {before} | {resumed:.1f} s | {'yes' if equal else 'NO'} |")


def status(url: str) -> dict[str, Any]:
    """Return GET /v1/index/status."""
    body: dict[str, Any] = httpx.get(f"{url}/v1/index/status", timeout=10).json()
    return body


def wait_for(url: str, predicate: Any, timeout: float = 300) -> float:
    """Poll the status every 0.1 s until `predicate(status)`; return the seconds it took."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        try:
            if predicate(status(url)):
                return time.perf_counter() - started
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError("timed out")


def wait_for_docstore(redis_url: str, notes: int, timeout: float = 300) -> float:
    """Read Redis itself (not the service, whose status call would retry at once) until it holds every note."""
    client = redis_client.Redis.from_url(redis_url)
    started = time.perf_counter()
    try:
        while time.perf_counter() - started < timeout:
            with contextlib.suppress(redis_client.RedisError):
                if client.scard("librarian:paths") == notes:
                    return time.perf_counter() - started
            time.sleep(0.1)
    finally:
        client.close()
    raise RuntimeError("timed out")


def is_whole(body: dict[str, Any]) -> bool:
    """Return True when the last run succeeded and the stores agree."""
    consistency = body.get("consistency") or {}
    return not body["running"] and body["last_error"] is None and bool(consistency.get("ok"))


def redis_outage(vault: Path, scratch: Path, outage: float) -> None:
    """Kill the docstore's Redis under a running server, bring it back empty, time the recovery."""
    redis = PrivateRedis(scratch / "redis")
    redis.start()
    port = free_port()
    env = cli_env(vault, scratch / "outage", REDIS_URL=redis.url)
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(url, lambda b: b["runs_completed"] >= 1)
        note = sorted(p for p in vault.rglob("*.md") if ".trash" not in p.parts)[0]
        redis.stop()
        note.write_text(note.read_text(encoding="utf-8") + "\nEdited while Redis was down.\n", encoding="utf-8")
        wait_for(url, lambda b: b["runs_failed"] >= 1)
        time.sleep(outage)
        failed = status(url)["runs_failed"]
        redis.start()
        recovered = wait_for(url, is_whole)
        print("\n| outage | failed runs (retries) while down | whole again after Redis came back |\n|---|---|---|")
        print(f"| Redis killed {outage:.0f} s, back empty | {failed} | {recovered:.1f} s |")
        redis.flushall()
        refilled = wait_for(url, lambda b: is_whole(b) and b["consistency"]["docstore_notes"] == b["notes"])
        print(f"| FLUSHALL while serving | 0 | {refilled:.1f} s (noticed at the next status or /ready call) |")
        notes = status(url)["notes"]
        redis.stop()
        note.write_text(note.read_text(encoding="utf-8") + "\nEdited again.\n", encoding="utf-8")
        time.sleep(outage)  # nobody asks for the status now: only the backoff brings the retry
        redis.start()
        unwatched = wait_for_docstore(redis.url, notes)
        print(f"| Redis killed {outage:.0f} s, back empty, nobody polling | - | {unwatched:.1f} s (next backoff try) |")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        redis.stop()


def main() -> None:
    """Run both scenarios on a private copy of the vault."""
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-reliability-") as name:
        scratch = Path(name)
        vault = scratch / "vault"
        shutil.copytree(args.vault, vault)
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}, vault {args.vault}\n")
        crash_and_converge(vault, scratch, args.kills)
        redis_outage(vault, scratch, args.outage_seconds)


if __name__ == "__main__":
    main()
