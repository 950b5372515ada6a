"""Tracing at start-up (OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set, else off) and one span per chat turn."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from pydantic import SecretStr

from core.chat import AnswerDone, AnswerEvent, AnswerText, TurnRequest
from core.ports import Answerer
from core.settings import Settings
from core.tracing import CONVERSATION, INPUT_TOKENS, OPERATION, OUTPUT_TOKENS, install_tracer, is_tracing, start_span

logger = logging.getLogger(__name__)
AGENT_NAME = "vault-librarian"
TURN_SPAN = f"invoke_agent {AGENT_NAME}"  # the GenAI conventions' span name for a call of an agent


def start_tracing(settings: Settings) -> Callable[[], None] | None:
    """Export spans over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set; return what flushes and stops it.

    Returns None, and imports nothing of OpenTelemetry, when tracing is off.
    """
    tracing = settings.tracing
    if tracing.endpoint is None:
        return None
    from app.process.otel_tracer import install_opentelemetry, otlp_processor

    provider = install_opentelemetry(tracing, otlp_processor(tracing), secrets=all_secrets(settings))
    url = urlsplit(tracing.endpoint)  # only host and port in the log: a URL can carry credentials
    shown = "with prompts and note text (TRACE_CONTENT)" if tracing.records_content else "without note text"
    where = f"{url.hostname}:{url.port}" if url.port else url.hostname
    logger.info("tracing: spans of %s go to %s over OTLP/HTTP, %s", tracing.service_name, where, shown)

    def stop() -> None:
        install_tracer(None)
        provider.shutdown()  # exports what is still queued

    return stop


@contextmanager
def tracing_command(settings: Settings) -> Iterator[None]:
    """Trace what a CLI command runs in this process; its spans are exported before the block ends."""
    stop = start_tracing(settings)
    try:
        yield
    finally:
        if stop is not None:
            stop()


def all_secrets(settings: Settings) -> list[str]:
    """Return every configured secret (API keys, passwords in URLs, export headers): masked in span content."""
    values = (getattr(settings, name) for name in type(settings).model_fields)
    return [value.get_secret_value() for value in values if isinstance(value, SecretStr)]


def conversation_hash(conversation_id: str) -> str:
    """Return a stable stand-in for a conversation id (ids can name the user or quote the first message)."""
    return hashlib.sha256(conversation_id.encode("utf-8")).hexdigest()[:16]


class TracedAnswerer:
    """Answer as the wrapped answerer does, each turn one span: the parent of its retrieval, model and edit spans."""

    def __init__(self, inner: Answerer) -> None:
        self._inner = inner

    @property
    def mode(self) -> str:
        """Return the wrapped answerer's mode."""
        return self._inner.mode

    def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        """Yield the wrapped answerer's events; with tracing off, they are its own stream, untouched."""
        return self._traced(request) if is_tracing() else self._inner.answer(request)

    async def _traced(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        turn = start_span(
            TURN_SPAN,
            {
                OPERATION: "invoke_agent",
                "gen_ai.agent.name": AGENT_NAME,
                CONVERSATION: conversation_hash(request.conversation_id),
                "librarian.turn.messages": len(request.messages),
            },
        )
        records_content = turn.records_content
        if records_content:
            asked = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
            turn.set_content("librarian.turn.question", asked)
        shown: list[str] = []
        events = self._inner.answer(request)
        try:
            while True:
                # Active only while the next event is produced: an OpenTelemetry context must not be held across
                # a yield (the consumer may resume, or close, this generator from another context).
                with turn.activated():
                    try:
                        event = await anext(events)
                    except StopAsyncIteration:
                        break
                if isinstance(event, AnswerText) and records_content:
                    shown.append(event.text)
                elif isinstance(event, AnswerDone):
                    turn.set_attribute("gen_ai.response.finish_reasons", [event.finish_reason])
                    turn.set_attribute(INPUT_TOKENS, event.usage.prompt_tokens)
                    turn.set_attribute(OUTPUT_TOKENS, event.usage.completion_tokens)
                yield event
        except BaseException as exc:
            turn.record_error(exc)
            raise
        finally:
            if isinstance(events, AsyncGenerator):  # closed as the consumer would: a cancelled turn stops its work
                await events.aclose()
            turn.set_attribute("librarian.turn.mode", self._inner.mode)  # after the turn: it may have fallen back
            if shown:
                turn.set_content("librarian.turn.answer", "".join(shown))
            turn.end()
