"""Benchmark the MCP front: how fast `librarian mcp` answers, and what the stdio bridge adds to a tool call.

Usage: python -m bench.mcp_latency [--vault sample_vault] [--calls 100]

Starts `librarian mcp` on a copy of the vault (it owns the DATA_DIR and serves the vault itself), times the
handshake, waits for the first index, then times `--calls` calls of `read_note` and of `search_notes` through
stdio (the bridge) and straight over streamable HTTP to the same service (the URL and token in owner.lock). A
second `librarian mcp` started meanwhile relays to the first: its handshake needs no model. Targets: a tool call
through the bridge under 2x the direct call at p50, a relaying session ready in under 3 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from core.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
SETTINGS_ENV = {name.upper() for name in Settings.model_fields}  # none of the shell's settings leak in
CALLS: dict[str, dict[str, Any]] = {
    "read_note": {"note": "Sourdough"},
    "search_notes": {"query": "how long does the dough rest in the fridge", "k": 6},
}


def parse_args() -> argparse.Namespace:
    """Return the command line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--calls", type=int, default=100)
    return parser.parse_args()


def percentile(samples: list[float], share: float) -> float:
    """Return the sample at `share` (0..1) of the sorted samples."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def timed_calls(client: Client, name: str, arguments: dict[str, Any], count: int) -> list[float]:
    """Call the tool `count` times; return each call's milliseconds."""
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        result = await client.call_tool(name, arguments)
        samples.append((time.perf_counter() - start) * 1000)
        if result.is_error:
            raise SystemExit(f"{name} failed: {result.content}")
    return samples


async def wait_for_index(client: Client) -> None:
    """Wait until the service finished its first index run."""
    while True:
        result = await client.call_tool("index_status", {})
        status = json.loads(result.content[0].text)  # type: ignore[union-attr]
        if status.get("runs_completed", 0) >= 1 and not status.get("running"):
            return
        await asyncio.sleep(0.5)


async def timed_handshake(params: StdioServerParameters, then: Callable[[Client], Awaitable[None]]) -> float:
    """Start `librarian mcp`, return the seconds until its handshake answered, after running `then` on it."""
    start = time.perf_counter()
    async with Client(params, mode="legacy", read_timeout_seconds=300) as client:
        ready = time.perf_counter() - start
        await then(client)
    return ready


def report(label: str, samples: list[float]) -> None:
    """Print p50 and p95 of the samples."""
    print(f"  {label:<34} p50 {statistics.median(samples):6.1f} ms   p95 {percentile(samples, 0.95):6.1f} ms")


async def main(vault: Path, calls: int) -> None:
    """Run the benchmark on a copy of `vault` and print the figures."""
    work = Path(tempfile.mkdtemp(prefix="mcp-bench-"))
    shutil.copytree(vault, work / "vault", symlinks=True)
    env = {
        **{key: value for key, value in os.environ.items() if key not in SETTINGS_ENV},
        "VAULT_PATH": str(work / "vault"),
        "DATA_DIR": str(work / "data"),
        "HF_HUB_OFFLINE": "1",
        "LLM_PROBE_LOCAL_PORTS": "false",
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", "app.cli", "mcp"], env=env, cwd=str(ROOT))
    through_stdio: dict[str, list[float]] = {}
    direct: dict[str, list[float]] = {}
    relay_ready: list[float] = []

    async def measure(client: Client) -> None:
        index_start = time.perf_counter()
        await wait_for_index(client)
        print(f"first index done {time.perf_counter() - index_start:.1f} s after the handshake")
        owner = json.loads((work / "data" / "owner.lock").read_text(encoding="utf-8"))
        headers = {"Authorization": f"Bearer {owner['token']}"}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            transport = streamable_http_client(f"{owner['url']}/mcp", http_client=http)
            async with Client(transport, mode="legacy") as straight:  # type: ignore[arg-type]
                for name, arguments in CALLS.items():
                    await timed_calls(client, name, arguments, 5)  # warm both paths up
                    through_stdio[name] = await timed_calls(client, name, arguments, calls)
                    direct[name] = await timed_calls(straight, name, arguments, calls)
        relay_ready.append(await timed_handshake(params, lambda _client: asyncio.sleep(0)))

    try:
        owner_ready = await timed_handshake(params, measure)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"`librarian mcp` owning the DATA_DIR: handshake answered after {owner_ready:.2f} s (service started)")
    print(f"a second `librarian mcp`, relaying to the first: handshake answered after {relay_ready[0]:.2f} s")
    for name in CALLS:
        print(f"{name}, {calls} calls:")
        report("through stdio (the bridge)", through_stdio[name])
        report("streamable HTTP, same service", direct[name])
        ratio = statistics.median(through_stdio[name]) / statistics.median(direct[name])
        print(f"  bridge / direct at p50: {ratio:.2f}x")


if __name__ == "__main__":
    arguments = parse_args()
    asyncio.run(main(arguments.vault, arguments.calls))
