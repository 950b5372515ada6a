"""Benchmark the chat service over real HTTP with an instant scripted LLM: per-turn overhead, first byte, concurrency.

Usage: python -m bench.chat_service [--vault sample_vault] [--turns 100] [--stream-turns 50] [--concurrent 20]

Everything runs in one process (uvicorn and the scripted LLM in threads, the HTTP client in the main thread),
so the client's and the scripted LLM's Python time share the GIL with the server: the figures are upper bounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from ruamel.yaml import YAML

from app.main import create_app
from app.wiring import Services, build_services
from core.settings import Settings
from rag.answer.refusal import RelevanceGate
from rag.notes.links import LinkResolver
from tests.live_server import serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn

ROOT = Path(__file__).resolve().parents[1]
ANSWER = "answer [[Sourdough#Final recipe]]."
WARM_UP_TURNS = 3


@dataclass(frozen=True, slots=True)
class StreamTiming:
    """One streamed turn: ms to the first `data:` line, to the first text, to the end; and what went wrong."""

    first_data_ms: float
    first_text_ms: float
    total_ms: float
    error: str | None = None


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--questions", type=Path, default=ROOT / "tests" / "fixtures" / "retrieval_questions.yaml")
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--stream-turns", type=int, default=50)
    parser.add_argument("--concurrent", type=int, default=20)
    return parser.parse_args()


def load_questions(path: Path) -> list[str]:
    """Return the answerable questions of the question set (they pass the relevance floor, so the LLM is asked)."""
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    return [str(row["question"]) for row in data["questions"]]


def request_body(question: str, *, stream: bool) -> dict[str, Any]:
    """Return a chat completion request for one question."""
    return {"model": "vault-librarian", "messages": [{"role": "user", "content": question}], "stream": stream}


def fresh_conversation(number: int) -> dict[str, str]:
    """Return headers that start a new conversation (no checkpointed history grows across turns)."""
    return {"X-Conversation-Id": f"bench-{time.monotonic_ns()}-{number}"}


def summary(label: str, values_ms: Sequence[float], target: str = "") -> str:
    """Return one line with p50 and p95 of `values_ms`."""
    p50 = statistics.median(values_ms)
    p95 = statistics.quantiles(values_ms, n=20)[18]
    suffix = f" ({target})" if target else ""
    return f"{label}: n={len(values_ms)} p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {max(values_ms):.1f} ms{suffix}"


def sequential_turns(base_url: str, questions: Sequence[str], count: int) -> tuple[list[float], int]:
    """Time `count` non-stream turns one after another; return latencies (ms) and the number of bad replies."""
    latencies: list[float] = []
    errors = 0
    with httpx.Client(base_url=base_url, timeout=60) as client:
        for number in range(WARM_UP_TURNS + count):
            body = request_body(questions[number % len(questions)], stream=False)
            started = time.perf_counter()
            response = client.post("/v1/chat/completions", json=body, headers=fresh_conversation(number))
            elapsed = (time.perf_counter() - started) * 1000
            if number < WARM_UP_TURNS:
                continue
            latencies.append(elapsed)
            if response.status_code != 200 or not response.json()["choices"][0]["message"]["content"]:
                errors += 1
    return latencies, errors


def read_stream(lines: Sequence[tuple[float, str]], started: float, status: int) -> StreamTiming:
    """Return the timing and the verdict of one SSE stream from its (arrival time, line) pairs."""
    data = [(at, line[5:].strip()) for at, line in lines if line.startswith("data:")]
    text_at = [at for at, payload in data if payload != "[DONE]" and _delta_text(payload)]
    error = None
    if status != 200:
        error = f"HTTP {status}"
    elif not data or data[-1][1] != "[DONE]":
        error = "no [DONE]"
    elif not text_at:
        error = "no text"
    elif any('"error"' in payload for _, payload in data):
        error = "error chunk"
    end = lines[-1][0] if lines else time.perf_counter()

    def ms(at: float | None) -> float:
        return ((at or end) - started) * 1000

    return StreamTiming(ms(data[0][0] if data else None), ms(text_at[0] if text_at else None), ms(end), error)


def _delta_text(payload: str) -> str:
    choices = json.loads(payload).get("choices") or [{}]
    return str((choices[0].get("delta") or {}).get("content") or "")


def streamed_turns(base_url: str, questions: Sequence[str], count: int) -> list[StreamTiming]:
    """Time `count` streamed turns one after another."""
    timings: list[StreamTiming] = []
    with httpx.Client(base_url=base_url, timeout=60) as client:
        for number in range(WARM_UP_TURNS + count):
            body = request_body(questions[number % len(questions)], stream=True)
            started = time.perf_counter()
            lines: list[tuple[float, str]] = []
            with client.stream("POST", "/v1/chat/completions", json=body, headers=fresh_conversation(number)) as r:
                lines.extend((time.perf_counter(), line) for line in r.iter_lines() if line)
            if number >= WARM_UP_TURNS:
                timings.append(read_stream(lines, started, r.status_code))
    return timings


async def concurrent_streams(base_url: str, questions: Sequence[str], count: int) -> tuple[list[StreamTiming], float]:
    """Open `count` streams at once; return each one's timing and the wall time (ms) until the last ended."""

    async def one(client: httpx.AsyncClient, number: int) -> StreamTiming:
        body = request_body(questions[number % len(questions)], stream=True)
        started = time.perf_counter()
        lines: list[tuple[float, str]] = []
        try:
            async with client.stream(
                "POST", "/v1/chat/completions", json=body, headers=fresh_conversation(number)
            ) as response:
                lines.extend([(time.perf_counter(), line) async for line in response.aiter_lines() if line])
        except httpx.HTTPError as exc:
            return StreamTiming(0.0, 0.0, (time.perf_counter() - started) * 1000, f"{type(exc).__name__}")
        return read_stream(lines, started, response.status_code)

    limits = httpx.Limits(max_connections=count, max_keepalive_connections=count)
    async with httpx.AsyncClient(base_url=base_url, timeout=120, limits=limits) as client:
        started = time.perf_counter()
        timings = await asyncio.gather(*(one(client, number) for number in range(count)))
        wall_ms = (time.perf_counter() - started) * 1000
    return list(timings), wall_ms


def component_costs(services: Services, questions: Sequence[str]) -> list[str]:
    """Time the per-turn pieces of the agent path in-process (no HTTP), one line each."""
    gate = RelevanceGate(services.embedder, services.store, floor=services.settings.relevance_floor)
    pieces: dict[str, Callable[[str], object]] = {
        "embed_query": services.embedder.embed_query,
        "RelevanceGate.check (embeds the query)": gate.check,
        "Retriever.search (embeds the query again)": services.retriever.search,
        "LinkResolver(docstore.paths()) (built per agent turn)": lambda _q: LinkResolver(services.docstore.paths()),
    }
    lines = []
    for label, piece in pieces.items():
        piece(questions[0])
        latencies = []
        for question in questions:
            started = time.perf_counter()
            piece(question)
            latencies.append((time.perf_counter() - started) * 1000)
        lines.append(summary(f"  {label}", latencies))
    return lines


def measure_agent(settings: Settings, services: Services, questions: Sequence[str], args: argparse.Namespace) -> None:
    """Serve the agent against the scripted LLM and print its figures."""
    with serve_in_thread(create_app(settings, services)) as base_url:
        latencies, errors = sequential_turns(base_url, questions, args.turns)
        print(summary("agent, non-stream turn", latencies, "target p95 < 100 ms") + f", bad replies {errors}")
        timings = streamed_turns(base_url, questions, args.stream_turns)
        print(summary("agent, first `data:` line", [t.first_data_ms for t in timings], "target < 300 ms"))
        print(summary("agent, first text chunk", [t.first_text_ms for t in timings]))
        print(summary("agent, whole stream", [t.total_ms for t in timings]))
        print(f"  streamed turns with errors: {sum(t.error is not None for t in timings)}")
        streams, wall_ms = asyncio.run(concurrent_streams(base_url, questions, args.concurrent))
        failed = [t.error for t in streams if t.error]
        print(
            f"agent, {args.concurrent} concurrent streams: errors {len(failed)} (target 0){failed or ''}, "
            f"wall {wall_ms:.0f} ms"
        )
        print(summary("  per-stream first text", [t.first_text_ms for t in streams]))
        print(summary("  per-stream whole stream", [t.total_ms for t in streams]))


def measure_retrieval_only(settings: Settings, services: Services, questions: Sequence[str], turns: int) -> None:
    """Serve retrieval-only mode (no LLM configured) and print its per-turn figures."""
    offline = settings.model_copy(update={"llm_base_url": (), "llm_probe_local_ports": False})
    with serve_in_thread(create_app(offline, services)) as base_url:
        latencies, errors = sequential_turns(base_url, questions, turns)
    print(summary("retrieval-only, non-stream turn", latencies) + f", bad replies {errors}")


def main() -> None:
    """Index the vault with the bundled embedder, then measure the agent and retrieval-only modes over HTTP."""
    args = parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    questions = load_questions(args.questions)

    def script(_body: dict[str, Any]) -> Turn:
        return Turn.text(ANSWER)

    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer(script) as llm:
        settings = Settings(
            _env_file=None,
            vault_path=args.vault,
            data_dir=Path(tmp) / "data",
            llm_base_url=(llm.base_url,),
            llm_model="scripted-model",
            watch=False,
        )
        services = build_services(settings)
        report = services.reindexer.run_once()
        counts = f"{report.notes_total} notes, {report.chunks_indexed} chunks"
        print(f"vault: {args.vault.name} ({counts}), {settings.embed_model}")
        try:
            measure_agent(settings, services, questions, args)
            measure_retrieval_only(settings, services, questions, args.turns)
            print("per-turn pieces, in-process:")
            for line in component_costs(services, questions):
                print(line)
        finally:
            services.close()
        print(f"scripted LLM calls: {len(llm.chat_requests)}")


if __name__ == "__main__":
    main()
