"""With no tracer installed, tracing adds no object and no layer: the shared no-op span, the streams themselves."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path

from app.process.tracing import TracedAnswerer, start_tracing
from core.chat import AnswerDone, AnswerEvent, ChatMessage, TurnRequest
from core.settings import Settings
from core.tracing import NO_SPAN, is_tracing, span, start_span
from llm_client import OpenAICompatibleChatModel


class OneEventAnswerer:
    """An answerer whose stream can be recognised by identity."""

    mode = "test"

    def __init__(self) -> None:
        self.stream: AsyncIterator[AnswerEvent] | None = None

    def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:  # noqa: ARG002
        self.stream = self._events()
        return self.stream

    async def _events(self) -> AsyncIterator[AnswerEvent]:
        yield AnswerDone()


def test_spans_are_the_one_shared_no_op_span_while_no_tracer_is_installed() -> None:
    assert not is_tracing()
    assert span("retrieval vault", {"librarian.retrieval.k": 6}) is NO_SPAN
    assert start_span("chat model") is NO_SPAN
    with span("x") as traced:
        traced.set_attribute("k", 1)
        traced.set_content("gen_ai.prompt", "note text")
        assert not traced.records_content


def test_start_tracing_without_an_endpoint_installs_nothing(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, vault_path=tmp_path / "vault", data_dir=tmp_path / "data", trace_content=True)

    assert start_tracing(settings) is None
    assert not is_tracing()


def test_a_turn_is_the_wrapped_answerers_own_stream_when_tracing_is_off() -> None:
    inner = OneEventAnswerer()

    stream = TracedAnswerer(inner).answer(TurnRequest("c", (ChatMessage("user", "hi"),)))

    assert stream is inner.stream


def test_a_model_stream_is_the_clients_own_generator_when_tracing_is_off() -> None:
    settings = Settings(
        _env_file=None,
        llm_base_url=("http://127.0.0.1:9/v1",),
        llm_model="m",
        llm_connect_timeout_seconds=1,
        llm_read_timeout_seconds=1,
        llm_retries=0,
        llm_probe_local_ports=False,
    ).llm
    stream = OpenAICompatibleChatModel(settings).stream([ChatMessage("user", "hi")])

    assert isinstance(stream, AsyncGenerator) and getattr(stream, "__name__", "") == "_stream"  # nothing around it
    asyncio.run(stream.aclose())  # never started: nothing was sent
