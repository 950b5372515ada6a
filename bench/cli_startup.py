"""Benchmark how fast `librarian` commands start and finish, alone and with a `librarian serve` holding DATA_DIR.

Usage: python -m bench.cli_startup [--vault sample_vault] [--runs 5]

Each command runs as a new process (interpreter start and imports included), `--runs` times; the table shows
the median wall time and the median CPU time (user + system) of the child process. CPU time is the steadier
figure on a loaded machine; wall time is what a user waits. The index is built once first; `search` alone loads
the embedding model, through the server it does not. Target: `--help`, `status`, `search` (through the server)
and `changes` under one second, and `serve` refusing a missing vault or a taken port under one second too (it
refuses before loading FastAPI, uvicorn or a model).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from tests.scripted_llm import free_port

ROOT = Path(__file__).resolve().parents[1]
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("--help",),
    ("status",),
    ("changes",),
    ("search", "how long does the dough rest"),
)


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--runs", type=int, default=5)
    return parser.parse_args()


def timed(env: dict[str, str], args: Sequence[str], *, refused: bool = False) -> tuple[float, float]:
    """Run `librarian ARGS` once; return (wall seconds, CPU seconds of the child). `refused`: it must fail."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "app.cli", *args], env=env, capture_output=True, check=False)
    if (done.returncode != 0) != refused:
        raise RuntimeError(f"librarian {' '.join(args)} exited {done.returncode}: {done.stderr.decode()}")
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(env: dict[str, str], runs: int, label: str) -> None:
    """Print one row per command: median wall and CPU seconds over `runs` runs."""
    for args in COMMANDS:
        samples = [timed(env, args) for _ in range(runs)]
        wall = statistics.median(s[0] for s in samples)
        cpu = statistics.median(s[1] for s in samples)
        print(f"| `librarian {args[0]}` {label} | {wall:.2f} s | {cpu:.2f} s |")


def measure_refusals(env: dict[str, str], runs: int, scratch: Path) -> None:
    """Print how long `serve` takes to refuse a missing vault and a port in use."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        cases = {
            "refusing a missing vault": ("serve", "--vault", str(scratch / "missing")),
            "refusing a port in use": ("serve", "--port", str(taken.getsockname()[1])),
        }
        for label, args in cases.items():
            samples = [timed(env, args, refused=True) for _ in range(runs)]
            wall = statistics.median(s[0] for s in samples)
            cpu = statistics.median(s[1] for s in samples)
            print(f"| `librarian serve` {label} | {wall:.2f} s | {cpu:.2f} s |")


def serve(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    """Start `librarian serve` on a free port and wait for its first index run."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/v1/index/status", timeout=5).json().get("runs_completed"):
                return process, url
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    process.kill()
    raise RuntimeError("the server did not finish its first index")


def main() -> None:
    """Index a copy of the vault, then time each command alone and through a running server."""
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as scratch:
        vault = Path(scratch) / "vault"
        shutil.copytree(args.vault, vault)
        env = {
            **os.environ,
            "VAULT_PATH": str(vault),
            "DATA_DIR": str(Path(scratch) / "data"),
            "HF_HUB_OFFLINE": "1",
            "LLM_PROBE_LOCAL_PORTS": "false",
        }
        subprocess.run([sys.executable, "-m", "app.cli", "index"], env=env, check=True, capture_output=True)
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}, {args.runs} runs per command\n")
        print("| command | wall (median) | CPU (median) |\n|---|---|---|")
        measure(env, args.runs, "(no server)")
        measure_refusals(env, args.runs, Path(scratch))
        process, url = serve(env)
        try:
            measure(env, args.runs, f"(through `serve` on {url.rsplit(':', 1)[1]})")
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)


if __name__ == "__main__":
    main()
