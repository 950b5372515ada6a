"""Benchmark large messages over real HTTP: N identical ~1 MB messages at once, retrieval-only and agent modes.

Usage: python -m bench.large_messages [--vault sample_vault] [--count 10] [--size 990000] [--profile]

Identical messages share a derived conversation id, so in agent mode they run one after another: the wall time
is about N times what one large message costs the server. --profile also runs one message in-process (httpx's
ASGI transport) under cProfile and prints where the event loop's time went; work in threads (embedding, SQLite)
shows as waiting there.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from app.http.main import create_app
from app.wiring import build_services
from core.settings import Settings
from tests.live_server import serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn

ROOT = Path(__file__).resolve().parents[1]
WORDS = "How long does the sourdough autolyse rest before the final mix and shaping of the loaf? "
ANSWER = "The autolyse rests 45 minutes [[Sourdough#Final recipe]]."


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--size", type=int, default=990_000, help="characters per message (the body limit is 1 MB)")
    parser.add_argument("--profile", action="store_true", help="profile one message in-process and print the top")
    return parser.parse_args()


def large_body(size: int) -> dict[str, Any]:
    """Return a chat request whose one user message has `size` characters of question-like text."""
    text = (WORDS * (size // len(WORDS) + 1))[:size]
    return {"model": "vault-librarian", "messages": [{"role": "user", "content": text}]}


async def send_at_once(base_url: str, body: dict[str, Any], count: int) -> tuple[list[tuple[int, float]], float]:
    """Send `count` copies of `body` at once; return (status, seconds) per request and the wall time."""

    async def one(client: httpx.AsyncClient) -> tuple[int, float]:
        started = time.perf_counter()
        response = await client.post("/v1/chat/completions", json=body)
        return response.status_code, time.perf_counter() - started

    limits = httpx.Limits(max_connections=count, max_keepalive_connections=count)
    async with httpx.AsyncClient(base_url=base_url, timeout=600, limits=limits) as client:
        started = time.perf_counter()
        results = await asyncio.gather(*(one(client) for _ in range(count)))
        return list(results), time.perf_counter() - started


def report(label: str, results: list[tuple[int, float]], wall: float) -> str:
    """Return one line per mode: statuses, slowest request, wall time and the cost per message."""
    statuses = sorted({status for status, _ in results})
    slowest = max(seconds for _, seconds in results)
    per_message = wall / len(results)
    return (
        f"{label}: {len(results)} requests at once, statuses {statuses}, slowest {slowest:.2f} s, "
        f"wall {wall:.2f} s ({per_message:.2f} s a message)"
    )


async def profile_one(app: FastAPI, body: dict[str, Any]) -> None:
    """Run one warm-up and one large request in this thread's event loop under cProfile; print the top."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", timeout=600) as client:
            await client.post("/v1/chat/completions", json={"messages": [{"role": "user", "content": "warm up"}]})
            profiler = cProfile.Profile()
            started = time.perf_counter()
            profiler.enable()
            await client.post("/v1/chat/completions", json=body)
            profiler.disable()
    print(f"one message in-process: {time.perf_counter() - started:.2f} s; the service's own functions:")
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(r"/(app|agent|rag|sync)/", 20)


def main() -> None:
    """Index the vault with the bundled embedder, then send the large messages in both answering modes."""
    args = parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    body = large_body(args.size)

    def script(_body: dict[str, Any]) -> Turn:
        return Turn.text(ANSWER)

    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer(script) as llm:
        offline = Settings(
            _env_file=None, vault_path=args.vault, data_dir=Path(tmp) / "data", watch=False, llm_probe_local_ports=False
        )
        services = build_services(offline)
        try:
            services.reindexer.run_once()
            services.embedder.embed_query("warm up")  # load the model before timing
            agent = offline.model_copy(update={"llm_base_url": (llm.base_url,), "llm_model": "scripted-model"})
            lines = []
            for label, settings in (("retrieval-only", offline), ("agent (scripted LLM)", agent)):
                if args.profile:
                    asyncio.run(profile_one(create_app(settings, services), body))
                with serve_in_thread(create_app(settings, services)) as base_url:
                    results, wall = asyncio.run(send_at_once(base_url, body, args.count))
                lines.append(report(label, results, wall))
            print(f"{args.count} messages of {args.size:,} characters, {offline.embed_model}:", *lines, sep="\n")
        finally:
            services.close()


if __name__ == "__main__":
    main()
