"""The scripted turns ScriptedLLMServer plays: text, tool calls, HTTP errors, delays and dropped connections."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ScriptedToolCall:
    """A tool call the scripted model makes; `arguments` is JSON text."""

    name: str
    arguments: str = "{}"
    id: str | None = None  # None: the server numbers it (call_1, call_2 ...)


def _call(call: ScriptedToolCall | tuple[str, Mapping[str, Any] | str]) -> ScriptedToolCall:
    if isinstance(call, ScriptedToolCall):
        return call
    name, arguments = call
    return ScriptedToolCall(name, arguments if isinstance(arguments, str) else json.dumps(arguments))


def split_tokens(content: str) -> tuple[str, ...]:
    """Split text the way chat models stream it: words with their leading whitespace."""
    return tuple(re.findall(r"\s*\S+|\s+$", content))


@dataclass(frozen=True)
class Turn:
    """One scripted reply: text, tool calls, an HTTP error or a dropped connection. Build it with the classmethods."""

    pieces: tuple[str, ...] = ()  # text tokens, streamed one chunk each
    calls: tuple[ScriptedToolCall, ...] = ()
    status: int = 200
    body: Mapping[str, Any] | str | None = None  # error body; None: OpenAI-shaped "scripted error <status>"
    echo_headers: bool = False  # the error body repeats the request headers, as some proxies do
    delay: float = 0.0  # seconds before the first byte of the reply
    delay_per_token: float | None = None  # None: the server's default
    disconnect_after: int | None = None  # drop the connection after this many text tokens (0: before any reply)
    usage: tuple[int, int] | None = None  # (prompt, completion); None: counted by the server
    report_usage: bool = True  # False: a provider that never reports usage
    finish_reason: str | None = None  # None: "tool_calls" when there are calls, else "stop"
    # llama.cpp's `timings` ({"prompt_n", "prompt_ms", "cache_n", ...}), sent as it sends them: in the last chunk.
    timings: Mapping[str, Any] | None = None
    # Mid-stream, after `hold_after` streamed events, wait until the test sets `hold` (a run caught while it goes).
    hold: threading.Event | None = None
    hold_after: int = 0

    @property
    def content(self) -> str:
        """Return the whole text of the turn."""
        return "".join(self.pieces)

    @classmethod
    def text(
        cls,
        content: str | Sequence[str],
        *,
        delay: float = 0.0,
        delay_per_token: float | None = None,
        usage: tuple[int, int] | None = None,
        report_usage: bool = True,
        finish_reason: str | None = None,
        timings: Mapping[str, Any] | None = None,
    ) -> Turn:
        """Answer with text; a sequence gives the exact streamed tokens, a string is split into words."""
        pieces = split_tokens(content) if isinstance(content, str) else tuple(content)
        return cls(
            pieces=pieces,
            delay=delay,
            delay_per_token=delay_per_token,
            usage=usage,
            report_usage=report_usage,
            finish_reason=finish_reason,
            timings=timings,
        )

    @classmethod
    def tool_call(
        cls,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        id: str | None = None,
        content: str = "",
        delay: float = 0.0,
        usage: tuple[int, int] | None = None,
        report_usage: bool = True,
    ) -> Turn:
        """Call one tool (arguments as a dict or JSON text), optionally after some text."""
        call = ScriptedToolCall(name, arguments if isinstance(arguments, str) else json.dumps(arguments or {}), id)
        return cls.tool_calls(call, content=content, delay=delay, usage=usage, report_usage=report_usage)

    @classmethod
    def tool_calls(
        cls,
        *calls: ScriptedToolCall | tuple[str, Mapping[str, Any] | str],
        content: str = "",
        delay: float = 0.0,
        usage: tuple[int, int] | None = None,
        report_usage: bool = True,
    ) -> Turn:
        """Call several tools at once: ScriptedToolCall values or (name, arguments) pairs."""
        return cls(
            pieces=split_tokens(content),
            calls=tuple(_call(call) for call in calls),
            delay=delay,
            usage=usage,
            report_usage=report_usage,
        )

    @classmethod
    def error(
        cls, status: int, body: Mapping[str, Any] | str | None = None, *, echo_headers: bool = False, delay: float = 0.0
    ) -> Turn:
        """Answer with an HTTP error; `echo_headers` puts the request headers (Authorization too) in the body."""
        return cls(status=status, body=body, echo_headers=echo_headers, delay=delay)

    @classmethod
    def disconnect(cls, *, after_tokens: int = 0, content: str = "This reply is cut off before it ends") -> Turn:
        """Drop the connection after `after_tokens` streamed tokens (0: before any response at all)."""
        return cls(pieces=split_tokens(content), disconnect_after=after_tokens)
