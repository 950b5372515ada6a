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

from app.http.main import create_app
from app.wiring import Services, build_services
from core.settings import Settings
from rag.answer.relevance_gate import RelevanceGate
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
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--stream-turns", type=int, default=50)
    parser.add_argument("--concurrent", type=int, default=20)
    return parser.parse_args()


def turn_request(questions: Sequence[str], number: int, *, stream: bool) -> dict[str, Any]:
    """Return httpx keyword arguments for turn `number`: a question of the set, in a conversation of its own."""
    messages = [{"role": "user", "content": questions[number % len(questions)]}]
    headers = {"X-Conversation-Id": f"bench-{time.monotonic_ns()}-{number}"}  # no history grows across turns
    return {"json": {"model": "vault-librarian", "messages": messages, "stream": stream}, "headers": headers}


def timed(call: Callable[[Any], object], inputs: Sequence[Any]) -> list[float]:
    """Return how long (ms) `call` took on each input, after one untimed warm-up call."""
    call(inputs[0])
    latencies = []
    for item in inputs:
        started = time.perf_counter()
        call(item)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


def summary(label: str, values_ms: Sequence[float], target: str = "") -> str:
    """Return one line with p50 and p95 of `values_ms`."""
    p50 = statistics.median(values_ms)
    p95 = statistics.quantiles(values_ms, n=20)[18]
    suffix = f" ({target})" if target else ""
    return f"{label}: n={len(values_ms)} p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {max(values_ms):.1f} ms{suffix}"


def llm_round_trips(llm: ScriptedLLMServer, count: int) -> list[float]:
    """Time streamed calls straight to the scripted LLM (ms): what the double itself costs per model call."""
    body = {"model": "scripted-model", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    with httpx.Client(base_url=llm.base_url, timeout=60) as client:

        def call(_: object) -> None:
            with client.stream("POST", "/chat/completions", json=body) as response:
                list(response.iter_lines())

        return timed(call, range(count))


def sequential_turns(base_url: str, questions: Sequence[str], count: int) -> tuple[list[float], int]:
    """Time `count` non-stream turns one after another; return latencies (ms) and the number of bad replies."""
    latencies: list[float] = []
    errors = 0
    with httpx.Client(base_url=base_url, timeout=60) as client:
        for number in range(WARM_UP_TURNS + count):
            request = turn_request(questions, number, stream=False)
            started = time.perf_counter()
            response = client.post("/v1/chat/completions", **request)
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
    verdicts = [
        (status != 200, f"HTTP {status}"),
        (not data or data[-1][1] != "[DONE]", "no [DONE]"),
        (not text_at, "no text"),
        (any('"error"' in payload for _, payload in data), "error chunk"),
    ]
    end = lines[-1][0] if lines else started
    first_data, first_text = (data[0][0] if data else end), (text_at[0] if text_at else end)
    error = next((label for is_bad, label in verdicts if is_bad), None)
    ms = [(at - started) * 1000 for at in (first_data, first_text, end)]
    return StreamTiming(ms[0], ms[1], ms[2], error)


def _delta_text(payload: str) -> str:
    choices = json.loads(payload).get("choices") or [{}]
    return str((choices[0].get("delta") or {}).get("content") or "")


def streamed_turns(base_url: str, questions: Sequence[str], count: int) -> list[StreamTiming]:
    """Time `count` streamed turns one after another."""
    timings: list[StreamTiming] = []
    with httpx.Client(base_url=base_url, timeout=60) as client:
        for number in range(WARM_UP_TURNS + count):
            request = turn_request(questions, number, stream=True)
            started = time.perf_counter()
            lines: list[tuple[float, str]] = []
            with client.stream("POST", "/v1/chat/completions", **request) as r:
                lines.extend((time.perf_counter(), line) for line in r.iter_lines() if line)
            if number >= WARM_UP_TURNS:
                timings.append(read_stream(lines, started, r.status_code))
    return timings


async def concurrent_streams(base_url: str, questions: Sequence[str], count: int) -> tuple[list[StreamTiming], float]:
    """Open `count` streams at once; return each one's timing and the wall time (ms) until the last ended."""

    async def one(client: httpx.AsyncClient, number: int) -> StreamTiming:
        request = turn_request(questions, number, stream=True)
        started = time.perf_counter()
        lines: list[tuple[float, str]] = []
        try:
            async with client.stream("POST", "/v1/chat/completions", **request) as response:
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
    gate = RelevanceGate.from_settings(services.embedder, services.store, services.settings.answer)
    pieces: dict[str, Callable[[str], object]] = {
        "embed_query": services.embedder.embed_query,
        "RelevanceGate.check (embeds the query)": gate.check,
        "Retriever.search (embeds the query again)": services.retriever.search,
        "LinkResolver(docstore.paths()) (built per agent turn)": lambda _q: LinkResolver(services.docstore.paths()),
    }
    return [summary(f"  {label}", timed(piece, questions)) for label, piece in pieces.items()]


def measure_agent(settings: Settings, services: Services, questions: Sequence[str], args: argparse.Namespace) -> None:
    """Serve the agent against the scripted LLM and print its figures."""
    with serve_in_thread(create_app(settings, services)) as base_url:
        latencies, errors = sequential_turns(base_url, questions, args.turns)
        print(summary("agent, non-stream turn", latencies, "target p95 < 100 ms") + f", bad replies {errors}")
        timings = streamed_turns(base_url, questions, args.stream_turns)
        print(summary("agent, first `data:` line", [t.first_data_ms for t in timings], "target < 300 ms"))
        print(summary("agent, first text chunk", [t.first_text_ms for t in timings]))
        errors = sum(t.error is not None for t in timings)
        print(summary("agent, whole stream", [t.total_ms for t in timings]) + f", streams with errors {errors}")
        streams, wall_ms = asyncio.run(concurrent_streams(base_url, questions, args.concurrent))
        failed = [t.error for t in streams if t.error]
        print(f"agent, {len(streams)} streams at once: {len(failed)} errors {failed} (target 0), wall {wall_ms:.0f} ms")
        print(summary("  per-stream first text", [t.first_text_ms for t in streams]))


def main() -> None:
    """Index the vault with the bundled embedder, then measure the agent and retrieval-only modes over HTTP."""
    args = parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    # The answerable questions: they pass the relevance floor, so every agent turn asks the LLM.
    data = YAML(typ="safe").load((ROOT / "tests" / "fixtures" / "retrieval_questions.yaml").read_text("utf-8"))
    questions = [str(row["question"]) for row in data["questions"]]

    def script(_body: dict[str, Any]) -> Turn:
        return Turn.text(ANSWER)

    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer(script) as llm:
        offline = Settings(_env_file=None, vault_path=args.vault, data_dir=Path(tmp) / "data", watch=False)
        settings = offline.model_copy(update={"llm_base_url": (llm.base_url,), "llm_model": "scripted-model"})
        services = build_services(settings)
        report = services.reindexer.run_once()
        counts = f"{report.notes_total} notes, {report.chunks_indexed} chunks"
        print(f"vault: {args.vault.name} ({counts}), {settings.embed_model}")
        print(summary("scripted LLM alone, streamed call", llm_round_trips(llm, 20)))
        try:
            measure_agent(settings, services, questions, args)
            offline = offline.model_copy(update={"llm_base_url": (), "llm_probe_local_ports": False})
            with serve_in_thread(create_app(offline, services)) as base_url:
                latencies, errors = sequential_turns(base_url, questions, args.turns)
            print(summary("retrieval-only (no LLM), non-stream turn", latencies) + f", bad replies {errors}")
            print("per-turn pieces, in-process:", *component_costs(services, questions), sep="\n")
        finally:
            services.close()
        print(f"scripted LLM calls: {len(llm.chat_requests)}")


if __name__ == "__main__":
    main()
