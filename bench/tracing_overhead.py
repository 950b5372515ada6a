"""Benchmark what tracing costs per chat turn: off (no tracer), on (in-memory exporter), on with TRACE_CONTENT.

Usage: python -m bench.tracing_overhead [--vault sample_vault] [--turns 40] [--blocks 5] [--hashing] [--in-process]

Each turn goes over real HTTP to the agent (with --in-process: straight to the answerer the HTTP edge uses, so the
HTTP client's and server's work do not blur the figure), which calls the scripted LLM twice (a search_notes call,
then a streamed answer): about 8 spans a turn. The modes run in interleaved blocks, each mode first as often, so
that a machine busy with other work slows each of them alike. The spans go through a BatchSpanProcessor, as with
OTLP export, into memory: the figures leave out only the network send (the processor's own thread does it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import timeit
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from ruamel.yaml import YAML

from app.http.main import create_app
from app.process.otel_tracer import install_opentelemetry
from app.process.tracing import all_secrets
from app.services.answering import build_answerer
from app.wiring import Services, build_services
from core.chat import ChatMessage, TurnRequest
from core.ports import Answerer
from core.settings import Settings
from core.tracing import install_tracer, span
from llm_client import OpenAICompatibleChatModel
from tests.fakes import HashingEmbedder
from tests.live_server import serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn

ROOT = Path(__file__).resolve().parents[1]
ANSWER = "The sourdough rests 14 hours in the fridge [[Sourdough#Final recipe]]. " * 4
MODES = ("off", "on", "on + content")
WARM_UP_TURNS = 3


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--turns", type=int, default=40, help="turns per mode and block")
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument(
        "--hashing", action="store_true", help="embed with the tests' HashingEmbedder: no ONNX threads, less noise"
    )
    parser.add_argument("--in-process", action="store_true", help="call the answerer directly, without HTTP")
    return parser.parse_args()


def script(body: dict[str, Any]) -> Turn:
    """Search first, then answer once the tool's result is in."""
    if body["messages"][-1]["role"] == "tool":
        return Turn.text(ANSWER)
    return Turn.tool_call("search_notes", {"query": "sourdough fridge"})


@contextmanager
def tracing_mode(mode: str, settings: Settings) -> Iterator[InMemorySpanExporter | None]:
    """Install the tracer of `mode` (none when off); yield its exporter."""
    if mode == "off":
        yield None
        return
    exporter = InMemorySpanExporter()
    traced = settings.model_copy(update={"trace_content": mode == "on + content"})
    provider = install_opentelemetry(traced.tracing, BatchSpanProcessor(exporter), secrets=all_secrets(traced))
    try:
        yield exporter
    finally:
        install_tracer(None)
        provider.shutdown()


def timed_turns(client: httpx.Client, questions: list[str], count: int) -> list[float]:
    """Return how long (ms) each of `count` non-stream turns took, each in a conversation of its own."""
    latencies = []
    for number in range(count):
        body = {
            "model": "vault-librarian",
            "messages": [{"role": "user", "content": questions[number % len(questions)]}],
        }
        headers = {"X-Conversation-Id": f"bench-{time.monotonic_ns()}"}
        started = time.perf_counter()
        response = client.post("/v1/chat/completions", json=body, headers=headers)
        latencies.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
    return latencies


async def answerer_turns(answerer: Answerer, questions: list[str], count: int) -> list[float]:
    """Return how long (ms) each of `count` turns took, asked of the answerer directly."""
    latencies = []
    for number in range(count):
        turn = TurnRequest(f"bench-{time.monotonic_ns()}", (ChatMessage("user", questions[number % len(questions)]),))
        started = time.perf_counter()
        async for _event in answerer.answer(turn):
            pass
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


RunTurns = Callable[[int], list[float]]


@contextmanager
def http_runner(settings: Settings, services: Services, questions: list[str]) -> Iterator[RunTurns]:
    """Serve the app; yield a function that times that many turns over HTTP."""
    with (
        serve_in_thread(create_app(settings, services)) as base_url,
        httpx.Client(base_url=base_url, timeout=60) as client,
    ):
        yield lambda count: timed_turns(client, questions, count)


@contextmanager
def in_process_runner(settings: Settings, services: Services, questions: list[str]) -> Iterator[RunTurns]:
    """Build the answerer the HTTP edge would use; yield a function that times that many turns of it."""
    loop = asyncio.new_event_loop()
    stack = AsyncExitStack()
    model = OpenAICompatibleChatModel(settings.llm)
    answerer = loop.run_until_complete(build_answerer(settings, services, model, stack))
    try:
        yield lambda count: loop.run_until_complete(answerer_turns(answerer, questions, count))
    finally:
        loop.run_until_complete(stack.aclose())
        loop.run_until_complete(model.aclose())
        loop.close()


def measure(
    run_turns: RunTurns,
    settings: Settings,
    args: argparse.Namespace,
    latencies: dict[str, list[float]],
    cpu_ms: dict[str, list[float]],
) -> None:
    """Time the modes in interleaved blocks; add each turn's wall time and each block's CPU time a turn."""
    spans = 0
    for block in range(args.blocks):
        for mode in MODES[block % len(MODES) :] + MODES[: block % len(MODES)]:  # each mode first as often
            with tracing_mode(mode, settings) as exporter:
                cpu_started = time.process_time()
                latencies[mode] += run_turns(args.turns)
            cpu_ms[mode].append((time.process_time() - cpu_started) * 1000 / args.turns)
            if exporter is not None and mode == "on":
                spans += len(exporter.get_finished_spans())
    print(f"spans per turn: {spans / (args.turns * args.blocks):.1f}")


def span_costs(settings: Settings) -> dict[str, float]:
    """Return the cost (µs) of one `with span(...)` with two attributes set, per mode."""

    def one() -> None:
        with span("bench", {"librarian.k": 6}) as traced:
            traced.set_attribute("librarian.hits", 6)

    costs = {}
    for mode in MODES:
        with tracing_mode(mode, settings):
            runs = timeit.repeat(one, number=20_000, repeat=5)
        costs[mode] = min(runs) / 20_000 * 1e6
    return costs


def percentile(values: list[float], share: float) -> float:
    """Return the `share` quantile of `values`."""
    return statistics.quantiles(values, n=100)[int(share * 100) - 1]


def report(latencies: dict[str, list[float]], cpu_ms: dict[str, list[float]], costs: dict[str, float]) -> None:
    """Print the figures: wall time per turn (noisy on a shared machine) and this process's CPU time per turn."""
    base, base_cpu = statistics.median(latencies["off"]), statistics.median(cpu_ms["off"])
    for mode in MODES:
        p50, p95 = statistics.median(latencies[mode]), percentile(latencies[mode], 0.95)
        cpu = statistics.median(cpu_ms[mode])
        delta = "" if mode == "off" else f" ({p50 - base:+.2f} ms at p50; CPU {cpu - base_cpu:+.2f} ms)"
        line = f"turn, tracing {mode:<12}: n={len(latencies[mode])} p50 {p50:.2f} ms, p95 {p95:.2f} ms"
        print(f"{line}, CPU {cpu:.2f} ms a turn (median of blocks){delta}")
    print("one span with two attributes: " + ", ".join(f"{mode} {cost:.2f} µs" for mode, cost in costs.items()))


def main() -> None:
    """Serve the agent on a scripted LLM and time the same turns with tracing off and on."""
    args = parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    data = YAML(typ="safe").load((ROOT / "tests" / "fixtures" / "retrieval_questions.yaml").read_text("utf-8"))
    questions = [str(row["question"]) for row in data["questions"]]
    latencies: dict[str, list[float]] = {mode: [] for mode in MODES}
    cpu_ms: dict[str, list[float]] = {mode: [] for mode in MODES}  # per block: this process, every thread
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer(script) as llm:
        settings = Settings(
            _env_file=None,
            vault_path=args.vault,
            data_dir=Path(tmp) / "data",
            watch=False,
            llm_base_url=(llm.base_url,),
            llm_model="scripted-model",
            write_backend="none",  # questions only: no proposals, and the bench never touches the vault
        )
        services = build_services(settings, embedder=HashingEmbedder()) if args.hashing else build_services(settings)
        services.reindexer.run_once()
        embedder = "HashingEmbedder" if args.hashing else settings.embed_model
        via = "in process" if args.in_process else "over HTTP"
        print(f"vault: {args.vault.name}, {embedder}; {args.blocks} blocks of {args.turns} turns a mode, {via}")
        runner = in_process_runner if args.in_process else http_runner
        try:
            with runner(settings, services, questions) as run_turns:
                run_turns(WARM_UP_TURNS)
                measure(run_turns, settings, args, latencies, cpu_ms)
        finally:
            services.close()
        report(latencies, cpu_ms, span_costs(settings))


if __name__ == "__main__":
    main()
