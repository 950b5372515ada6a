"""Real replies of small local models, recorded with `bench/recording_proxy.py`, replayed by ScriptedLLMServer.

Each fixture in tests/fixtures/small_model_replies/ is one model call: the request body the service sent (prompt
and tools) and the reply exactly as the server streamed it (its `data:` payloads). A conversation of several model
calls is `NAME.1.json`, `NAME.2.json`, ...
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.scripted_llm_turns import ScriptedToolCall, Turn

FIXTURES = Path(__file__).parent / "fixtures" / "small_model_replies"


@dataclass(frozen=True)
class RecordedReply:
    """One recorded model call."""

    name: str  # the file name without .json
    model: str  # which model and server answered
    request: dict[str, Any]
    pieces: tuple[str, ...]  # the text deltas, as streamed
    calls: tuple[ScriptedToolCall, ...]  # structured tool calls, if the server returned any
    finish_reason: str
    usage: tuple[int, int] | None

    @property
    def text(self) -> str:
        """Return the reply's whole text."""
        return "".join(self.pieces)

    @property
    def question(self) -> str:
        """Return the text of the latest user message the model was asked."""
        return next(m["content"] for m in reversed(self.request["messages"]) if m["role"] == "user")

    @property
    def offered(self) -> set[str]:
        """Return the names of the tools offered with the call."""
        return {tool["function"]["name"] for tool in self.request.get("tools", [])}

    def turn(self) -> Turn:
        """Return the reply as a scripted turn, token for token."""
        return Turn(pieces=self.pieces, calls=self.calls, usage=self.usage, finish_reason=self.finish_reason)


def recorded(name: str) -> RecordedReply:
    """Return the fixture `name` (without .json)."""
    return load_recording(FIXTURES / f"{name}.json")


def load_recording(path: Path) -> RecordedReply:
    """Return the model call recorded in `path` (a fixture, or a file bench.recording_proxy saved)."""
    record = json.loads(path.read_text(encoding="utf-8"))
    if "body" in record:  # a whole (non-streamed) reply, such as the quote call's
        return _whole_reply(path, record)
    pieces: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish_reason, usage = "stop", None
    for data in record["sse"]:
        if data == "[DONE]":
            continue
        chunk = json.loads(data)
        if chunk.get("usage"):
            usage = (chunk["usage"]["prompt_tokens"], chunk["usage"]["completion_tokens"])
        for choice in chunk.get("choices", []):
            delta = choice.get("delta") or {}
            if delta.get("content"):
                pieces.append(delta["content"])
            for fragment in delta.get("tool_calls") or []:
                call = calls.setdefault(fragment.get("index", len(calls)), {"name": "", "arguments": ""})
                function = fragment.get("function") or {}
                call["name"] = call["name"] or function.get("name") or ""
                call["arguments"] += function.get("arguments") or ""
            finish_reason = choice.get("finish_reason") or finish_reason
    return RecordedReply(
        name=path.stem,
        model=record.get("model", "unknown"),
        request=record["request"],
        pieces=tuple(pieces),
        calls=tuple(ScriptedToolCall(c["name"], c["arguments"]) for _, c in sorted(calls.items())),
        finish_reason=finish_reason,
        usage=usage,
    )


def _whole_reply(path: Path, record: dict[str, Any]) -> RecordedReply:
    body = record["body"]
    choice = body["choices"][0]
    usage = body.get("usage")
    return RecordedReply(
        name=path.stem,
        model=record.get("model", "unknown"),
        request=record["request"],
        pieces=(choice["message"].get("content") or "",),
        calls=(),
        finish_reason=choice.get("finish_reason") or "stop",
        usage=(usage["prompt_tokens"], usage["completion_tokens"]) if usage else None,
    )


def all_recorded() -> list[RecordedReply]:
    """Return every fixture, by name."""
    return [recorded(path.stem) for path in sorted(FIXTURES.glob("*.json"))]
