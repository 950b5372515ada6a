"""Chat nouns shared by the LLM client, the agent and the HTTP edge (OpenAI-compatible shapes)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A function call requested by the model; `arguments` is the raw JSON text the model produced."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of a conversation."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None  # for role "tool": the call this message answers
    name: str | None = None  # for role "tool": the tool's name


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool offered to the model: name, description and JSON-schema parameters (what the LLM reads)."""

    name: str
    description: str
    parameters: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one model call (from the provider, or estimated when it reports none)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    is_estimate: bool = False
    cached_tokens: int = 0  # prompt tokens the server took from its prompt cache, not read again
    # How long the rest of the prompt took to read: the server's own figure (llama.cpp's `timings`), else the time
    # to the first streamed chunk of output; None when neither is known (a whole reply from another server).
    prompt_seconds: float | None = None

    @property
    def total_tokens(self) -> int:
        """Return prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class ChatDelta:
    """A piece of a streamed reply: text as it arrives, then (last) the complete tool calls and usage."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    finish_reason: str | None = None


@dataclass(frozen=True, slots=True)
class ChatResult:
    """A whole reply."""

    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str = "stop"


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """One chat turn as the HTTP edge hands it to the answerer: the conversation and the client's full history."""

    conversation_id: str
    messages: tuple[ChatMessage, ...]


@dataclass(frozen=True, slots=True)
class AnswerText:
    """A piece of the answer text, streamed to the client as it is produced."""

    text: str


@dataclass(frozen=True, slots=True)
class AnswerStatus:
    """Progress while tools run ("searching your notes…"); the edge may show it or use it as a keep-alive."""

    text: str


@dataclass(frozen=True, slots=True)
class AnswerDone:
    """The end of a turn, with token usage."""

    usage: Usage = field(default_factory=Usage)
    finish_reason: str = "stop"


AnswerEvent = AnswerText | AnswerStatus | AnswerDone
