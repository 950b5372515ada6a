"""The OpenAI chat-completions wire format: request bodies, replies, streamed chunks and provider error bodies."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.chat import ChatDelta, ChatMessage, ChatResult, ToolCall, ToolSpec, Usage

# An empty parameter schema is rejected by some providers (OpenAI wants an object schema).
_EMPTY_PARAMETERS: Mapping[str, object] = {"type": "object", "properties": {}}
_CHARS_PER_TOKEN = 4
_MAX_ERROR_CHARS = 500
# Ids of models that cannot chat, as LM Studio, Ollama, vLLM and OpenAI list them next to chat models:
# "text-embedding-nomic-embed-text-v1.5", "mxbai-embed-large", "bge-m3", "multilingual-e5-large", "all-minilm".
_NOT_CHAT_MODEL = re.compile(
    r"embed|rerank|minilm|paraphrase-|whisper|dall-e|moderation|(?:^|[/:_.-])(?:bge|e5|gte|tts)(?:[-_:.]|$)",
    re.IGNORECASE,
)


class MalformedReply(Exception):
    """The endpoint answered with something that is not an OpenAI-shaped reply."""


def build_payload(
    model: str,
    messages: Sequence[ChatMessage],
    tools: Sequence[ToolSpec],
    *,
    stream: bool,
    stream_usage: bool,
    response_format: Mapping[str, object] | None = None,
    max_tokens: int | None = None,
    max_tokens_field: str = "max_tokens",
    temperature: float | None = None,
) -> dict[str, Any]:
    """Return the JSON body of POST /chat/completions (`response_format` as OpenAI's, passed through)."""
    payload: dict[str, Any] = {"model": model, "messages": [message_to_wire(m) for m in messages], "stream": stream}
    if tools:
        payload["tools"] = [tool_to_wire(tool) for tool in tools]
    if stream and stream_usage:
        payload["stream_options"] = {"include_usage": True}
    if response_format is not None:
        payload["response_format"] = dict(response_format)
    if max_tokens is not None:
        payload[max_tokens_field] = max_tokens
    if temperature is not None:
        payload["temperature"] = temperature
    return payload


def message_to_wire(message: ChatMessage) -> dict[str, Any]:
    """Return one message in OpenAI wire format."""
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        # OpenAI documents null content for an assistant message that only calls tools.
        wire["content"] = message.content or None
        wire["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        wire["tool_call_id"] = message.tool_call_id
    # OpenAI accepts `name` on user/system/assistant messages only; strict servers reject it on tool messages
    # (langchain-openai strips it there for the same reason), and tool_call_id already names the call.
    if message.name is not None and message.role != "tool":
        wire["name"] = message.name
    return wire


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    """Return one tool in OpenAI wire format."""
    parameters = dict(tool.parameters) if tool.parameters else dict(_EMPTY_PARAMETERS)
    function = {"name": tool.name, "description": tool.description, "parameters": parameters}
    return {"type": "function", "function": function}


def estimate_tokens(text: str) -> int:
    """Return a rough token count (four characters a token), for providers that report no usage."""
    return (len(text) + _CHARS_PER_TOKEN - 1) // _CHARS_PER_TOKEN


def estimate_usage(messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], reply: str) -> Usage:
    """Return an estimated Usage for a call whose provider reported none."""
    prompt = "".join(m.content + "".join(c.name + c.arguments for c in m.tool_calls) for m in messages)
    prompt += "".join(json.dumps(tool_to_wire(tool)) for tool in tools)
    return Usage(prompt_tokens=estimate_tokens(prompt), completion_tokens=estimate_tokens(reply), is_estimate=True)


def usage_from_wire(value: object) -> Usage | None:
    """Return the provider's usage, or None when it reported none.

    Prompt tokens served from the server's cache come from OpenAI's `prompt_tokens_details.cached_tokens` (llama.cpp,
    vLLM, OpenAI send it); llama.cpp's `timings`, a field of its own, add to it (`with_timings`).
    """
    if not isinstance(value, Mapping):
        return None
    prompt, completion = value.get("prompt_tokens"), value.get("completion_tokens")
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    details = value.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, Mapping) else None
    return Usage(prompt_tokens=prompt, completion_tokens=completion, cached_tokens=_count(cached))


def with_timings(usage: Usage, timings: object) -> Usage:
    """Return `usage` with the prompt's reading time and cached tokens llama.cpp's `timings` give, if it gave them."""
    if not isinstance(timings, Mapping):
        return usage
    read, millis, cached = timings.get("prompt_n"), timings.get("prompt_ms"), timings.get("cache_n")
    usage = replace(usage, cached_tokens=max(usage.cached_tokens, _count(cached)))
    if not isinstance(millis, int | float) or isinstance(millis, bool) or not 0 <= millis < math.inf:
        return usage
    if _count(read) <= 0:
        return usage
    # The tokens read are the prompt less those from the cache (prompt_n = prompt_tokens - cache_n).
    cached_tokens = max(usage.cached_tokens, usage.prompt_tokens - _count(read))
    return replace(usage, cached_tokens=cached_tokens, prompt_seconds=millis / 1000)


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _arguments_text(value: object) -> str:
    # Some servers send arguments as an object instead of JSON text.
    if isinstance(value, str):
        return value
    return json.dumps(value) if value is not None else ""


def _first_choice(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    choices = body.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        return choices[0]
    return None


def result_from_wire(body: object, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec]) -> ChatResult:
    """Return the ChatResult of a non-streamed reply (usage estimated when the provider gave none)."""
    if not isinstance(body, Mapping):
        raise MalformedReply("the reply is not a JSON object")
    choice = _first_choice(body)
    message = choice.get("message") if choice else None
    if not isinstance(message, Mapping):
        raise MalformedReply("the reply has no choices[0].message")
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    calls = tuple(
        ToolCall(id=str(call.get("id") or f"call_{i}"), name=str(function.get("name") or ""), arguments=args)
        for i, call in enumerate(message.get("tool_calls") or [])
        if isinstance(call, Mapping) and isinstance(function := call.get("function"), Mapping)
        for args in [_arguments_text(function.get("arguments"))]
    )
    usage = usage_from_wire(body.get("usage"))
    if usage is None:
        usage = estimate_usage(messages, tools, text + "".join(c.name + c.arguments for c in calls))
    else:  # as for a streamed reply (StreamAssembler.final_delta): timings only with the server's own usage
        usage = with_timings(usage, body.get("timings"))
    finish = choice.get("finish_reason") if choice else None
    return ChatResult(
        content=text,
        tool_calls=calls,
        usage=usage,
        finish_reason=finish if isinstance(finish, str) else ("tool_calls" if calls else "stop"),
    )


@dataclass
class _CallParts:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class StreamAssembler:
    """Collect a streamed reply: text deltas pass through, tool-call fragments are joined by index."""

    is_done: bool = False  # `data: [DONE]` seen
    finish_reason: str | None = None
    usage: Usage | None = None
    timings: Mapping[str, Any] | None = None  # llama.cpp's, in its last chunk
    has_output: bool = False  # a chunk has brought text, reasoning or a tool call: the prompt has been read
    # Seconds from the request to that chunk (set by the caller, who holds the clock): the prompt's reading time
    # where the server gives none of its own, a little long (it holds connecting and the first token too).
    first_output_seconds: float | None = None
    text: list[str] = field(default_factory=list)
    calls: dict[int, _CallParts] = field(default_factory=dict)

    def feed_line(self, line: str) -> str:
        """Take one SSE line and return the text it adds ("" for none); raise ProviderError on an error event."""
        if line.startswith("error:"):
            # llama.cpp's server reports a failure mid-stream as an `error:` line, not a data event.
            raise ProviderError(error_text_from_bytes(line[6:].encode()))
        if not line.startswith("data:"):
            return ""  # blank separators, `:` comments, `event:`/`id:` fields
        data = line[5:].strip()
        if data == "[DONE]":
            self.is_done = True
            return ""
        if not data:
            return ""
        try:
            chunk = json.loads(data)
        except json.JSONDecodeError as exc:
            raise MalformedReply(f"a streamed chunk is not JSON: {data[:200]!r}") from exc
        if not isinstance(chunk, Mapping):
            raise MalformedReply("a streamed chunk is not a JSON object")
        if "error" in chunk:
            raise ProviderError(error_text(chunk))
        usage = usage_from_wire(chunk.get("usage"))
        self.usage = usage or self.usage
        if isinstance(timings := chunk.get("timings"), Mapping):
            self.timings = timings
        choice = _first_choice(chunk)
        if choice is None:
            return ""
        if isinstance(finish := choice.get("finish_reason"), str):
            self.finish_reason = finish
        delta = choice.get("delta")
        if not isinstance(delta, Mapping):
            return ""
        for fragment in delta.get("tool_calls") or []:
            if isinstance(fragment, Mapping):
                self._add_call_fragment(fragment)
        self.has_output = self.has_output or any(
            delta.get(key) for key in ("content", "tool_calls", "reasoning_content", "reasoning")
        )
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.text.append(content)
            return content
        return ""

    def _add_call_fragment(self, fragment: Mapping[str, Any]) -> None:
        index = fragment.get("index")
        key = index if isinstance(index, int) else len(self.calls)
        parts = self.calls.setdefault(key, _CallParts())
        if isinstance(call_id := fragment.get("id"), str) and call_id:
            parts.id = call_id
        function = fragment.get("function")
        if isinstance(function, Mapping):
            # Most servers name the call in its first fragment only; some repeat it, so the first one wins.
            if isinstance(name := function.get("name"), str) and name and not parts.name:
                parts.name = name
            parts.arguments.append(_arguments_text(function.get("arguments")))

    @property
    def is_complete(self) -> bool:
        """Return True when the stream ended properly ([DONE] or a finish reason)."""
        return self.is_done or self.finish_reason is not None

    def final_delta(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec]) -> ChatDelta:
        """Return the closing delta: every tool call assembled, usage (estimated if absent), finish reason."""
        calls = tuple(
            ToolCall(id=parts.id or f"call_{index}", name=parts.name, arguments="".join(parts.arguments))
            for index, parts in sorted(self.calls.items())
        )
        usage = self.usage or estimate_usage(
            messages, tools, "".join(self.text) + "".join(c.name + c.arguments for c in calls)
        )
        usage = usage if usage.is_estimate else with_timings(usage, self.timings)
        # A server giving timings of its own (llama.cpp) is not timed by its first output, even when they say nothing.
        is_untimed = self.timings is None and usage.prompt_seconds is None
        if is_untimed and self.first_output_seconds is not None and not usage.is_estimate:
            usage = replace(usage, prompt_seconds=self.first_output_seconds)
        finish = self.finish_reason or ("tool_calls" if calls else "stop")
        return ChatDelta(tool_calls=calls, usage=usage, finish_reason=finish)


class ProviderError(Exception):
    """The provider reported an error inside a streamed reply."""


def error_text(body: object) -> str:
    """Return the provider's error message from an error body (OpenAI, Ollama, vLLM, FastAPI shapes)."""
    if isinstance(body, Mapping):
        for key in ("error", "detail", "message"):
            value = body.get(key)
            if isinstance(value, Mapping) and isinstance(value.get("message"), str):
                return str(value["message"])[:_MAX_ERROR_CHARS]
            if isinstance(value, str) and value:
                return value[:_MAX_ERROR_CHARS]
    return json.dumps(body)[:_MAX_ERROR_CHARS]


def error_text_from_bytes(raw: bytes) -> str:
    """Return the provider's error message from a raw error response body."""
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        return error_text(json.loads(text))
    except json.JSONDecodeError:
        return text[:_MAX_ERROR_CHARS] or "(empty body)"


def model_ids(body: object) -> list[str]:
    """Return the model ids of a GET /models reply, in the order listed."""
    data = body.get("data") if isinstance(body, Mapping) else None
    ids: Iterable[object] = (entry.get("id") for entry in data if isinstance(entry, Mapping)) if data else ()
    return [model_id for model_id in ids if isinstance(model_id, str) and model_id]


def first_model_id(body: object) -> str | None:
    """Return the first model id of a GET /models reply, or None when it lists none."""
    return next(iter(model_ids(body)), None)


def is_chat_model_id(model_id: str) -> bool:
    """Return False for ids that name embedding, rerank, speech or image models rather than chat models."""
    return _NOT_CHAT_MODEL.search(model_id) is None


def chat_model_id(body: object) -> str | None:
    """Return the first listed id that looks like a chat model, else the first id, else None."""
    ids = model_ids(body)
    return next((model_id for model_id in ids if is_chat_model_id(model_id)), next(iter(ids), None))
