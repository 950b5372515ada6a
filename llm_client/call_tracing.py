"""One span per model call: model, endpoint host, token counts, time to first chunk, tools offered, streamed or not."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from types import TracebackType
from urllib.parse import urlsplit

from core.chat import ChatDelta, ChatMessage, ChatResult, ToolCall, ToolSpec, Usage
from core.tracing import INPUT_TOKENS, OPERATION, OUTPUT_TOKENS, REQUEST_MODEL, Span, is_tracing, start_span

CHAT = "chat"  # the GenAI conventions' operation name, and the span name's first word ("chat qwen2.5")


class ModelCall:
    """What one `complete` or `stream` call records; with tracing off every method does (almost) nothing."""

    def __init__(self, span: Span | None, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._span = span
        self._clock = clock
        self._started = clock()
        self._attempts = 0
        self._is_first = True
        self._text: list[str] = []

    def at_endpoint(self, base_url: str, model: str) -> None:
        """Record the endpoint being tried (host and port only: a URL can carry credentials) and its model."""
        if self._span is None:
            return
        self._attempts += 1
        url = urlsplit(base_url)
        self._span.update_name(f"{CHAT} {model}")
        self._span.set_attribute(REQUEST_MODEL, model)
        self._span.set_attribute("server.address", url.hostname or "")
        self._span.set_attribute("server.port", url.port or (443 if url.scheme == "https" else 80))
        self._span.set_attribute("librarian.llm.attempts", self._attempts)

    def finish(self, result: ChatResult) -> None:
        """Record a whole reply (`complete`)."""
        if self._span is not None:
            self._record_reply(result.content, result.tool_calls, result.usage, result.finish_reason)

    def watch(self, deltas: AsyncIterator[ChatDelta]) -> AsyncIterator[ChatDelta]:
        """Return `deltas`, observed for the span when tracing is on (then the span ends with the stream)."""
        return deltas if self._span is None else self._watched(deltas, self._span)

    async def _watched(self, deltas: AsyncIterator[ChatDelta], span: Span) -> AsyncIterator[ChatDelta]:
        records_content = span.records_content
        try:
            async for delta in deltas:
                if self._is_first:
                    self._is_first = False
                    span.set_attribute("gen_ai.response.time_to_first_chunk", self._clock() - self._started)
                if delta.text and records_content:
                    self._text.append(delta.text)
                if delta.usage is not None or delta.finish_reason is not None:
                    self._record_reply("".join(self._text), delta.tool_calls, delta.usage, delta.finish_reason)
                yield delta
        except BaseException as exc:
            span.record_error(exc)
            raise
        finally:
            span.end()

    def _record_reply(
        self, text: str, calls: Sequence[ToolCall], usage: Usage | None, finish_reason: str | None
    ) -> None:
        if self._span is None:
            return
        if usage is not None:
            self._span.set_attribute(INPUT_TOKENS, usage.prompt_tokens)
            self._span.set_attribute(OUTPUT_TOKENS, usage.completion_tokens)
            self._span.set_attribute("librarian.llm.usage_estimated", usage.is_estimate)
        if finish_reason is not None:
            self._span.set_attribute("gen_ai.response.finish_reasons", [finish_reason])
        self._span.set_attribute("librarian.llm.tool_calls", len(calls))
        if self._span.records_content:
            reply = ChatMessage(role="assistant", content=text, tool_calls=tuple(calls))
            self._span.set_content("gen_ai.output.messages", shaped_messages([reply]))

    def __enter__(self) -> ModelCall:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._span is not None:
            self._span.__exit__(kind, error, trace)


def start_model_call(
    messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], *, model: str, is_streamed: bool
) -> ModelCall:
    """Start the span of one model call (a child of the active span); with tracing off, a call that records nothing.

    `model` is the configured name, or "auto" until an endpoint says which it serves.
    """
    if not is_tracing():
        return ModelCall(None)
    span = start_span(
        f"{CHAT} {model}",
        {
            OPERATION: CHAT,
            REQUEST_MODEL: model,
            "gen_ai.request.stream": is_streamed,
            "librarian.llm.tools_offered": len(tools),
            "librarian.llm.messages": len(messages),
        },
    )
    if span.records_content:
        span.set_content("gen_ai.input.messages", shaped_messages(messages))
    return ModelCall(span)


def shaped_messages(messages: Sequence[ChatMessage]) -> list[dict[str, object]]:
    """Return messages in the GenAI conventions' shape: role and parts (text, tool calls, tool results)."""
    shaped: list[dict[str, object]] = []
    for message in messages:
        parts: list[dict[str, object]] = []
        if message.role == "tool":
            parts.append({"type": "tool_call_response", "id": message.tool_call_id, "response": message.content})
        elif message.content:
            parts.append({"type": "text", "content": message.content})
        parts += [
            {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}
            for call in message.tool_calls
        ]
        shaped.append({"role": message.role, "parts": parts})
    return shaped
