"""The OpenAI wire shapes ScriptedLLMServer sends: `chat.completion` bodies and `chat.completion.chunk` events."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from tests.scripted_llm_turns import ScriptedToolCall, Turn

ARGUMENT_PIECE_CHARS = 7  # OpenAI streams tool arguments in small pieces; the client must join them


def word_count(body: dict[str, Any]) -> int:
    """Return the words of every message (string or text parts): the server's honest prompt token count."""
    words = 0
    for message in body.get("messages") or []:
        content = message.get("content") or ""
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for part in parts:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                words += len(re.findall(r"\S+", part["text"]))
    return words


def _usage(usage: tuple[int, int]) -> dict[str, int]:
    prompt, completion = usage
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _finish(turn: Turn, calls: Sequence[ScriptedToolCall]) -> str:
    return turn.finish_reason or ("tool_calls" if calls else "stop")


def completion_body(
    turn: Turn, calls: Sequence[ScriptedToolCall], model: str, usage: tuple[int, int] | None
) -> dict[str, Any]:
    """Return a non-streamed `chat.completion`."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.content or (None if calls else "")}
    if calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
        ]
    body: dict[str, Any] = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": _finish(turn, calls)}],
    }
    if usage is not None:
        body["usage"] = _usage(usage)
    if turn.timings is not None:
        body["timings"] = dict(turn.timings)
    return body


def stream_events(
    turn: Turn, calls: Sequence[ScriptedToolCall], model: str, usage: tuple[int, int] | None
) -> Iterator[str]:
    """Yield the `data:` payloads of a streamed reply: role, tokens, tool-call fragments, finish, usage, [DONE]."""
    completion_id = f"chatcmpl-{uuid.uuid4().hex[:12]}"
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        body = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model}
        if finish is not None and turn.timings is not None:  # llama.cpp's own field, beside the finish reason
            body["timings"] = dict(turn.timings)
        return json.dumps({**body, "choices": [choice]})

    yield chunk({"role": "assistant", "content": ""})
    for piece in turn.pieces:
        yield chunk({"content": piece})
    for index, call in enumerate(calls):
        # The first fragment carries id, type and name; the arguments follow in pieces, with only the index.
        head = {"index": index, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        yield chunk({"tool_calls": [head]})
        text = call.arguments
        for start in range(0, len(text), ARGUMENT_PIECE_CHARS):
            piece = text[start : start + ARGUMENT_PIECE_CHARS]
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, _finish(turn, calls))
    if usage is not None:
        body = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model}
        yield json.dumps({**body, "choices": [], "usage": _usage(usage)})
    yield "[DONE]"
