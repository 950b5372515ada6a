"""Chat ports: the model endpoint the agent and the crews call, and what answers one chat turn."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Protocol

from core.chat import AnswerEvent, ChatDelta, ChatMessage, ChatResult, ToolSpec, TurnRequest


class ChatModel(Protocol):
    """An OpenAI-compatible chat endpoint (Ollama, LM Studio, llama.cpp, vLLM, OpenAI ...)."""

    @property
    def model_name(self) -> str:
        """Return the model the endpoint answers with (for logs and the `model` field)."""
        ...

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        response_format: Mapping[str, object] | None = None,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Return the whole reply to `messages` (at most `max_tokens` long, when given: finish_reason "length").

        `response_format` is OpenAI's (`{"type": "json_schema", "json_schema": {"name", "schema", "strict"}}`):
        asked for where the endpoint supports it, never guaranteed, so the caller validates the reply.
        """
        ...

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        response_format: Mapping[str, object] | None = None,
        max_tokens: int | None = None,
    ) -> AsyncIterator[ChatDelta]:
        """Yield the reply as it is produced: text deltas, then one delta with tool calls, usage and finish reason."""
        ...

    async def is_available(self) -> bool:
        """Return True when an endpoint answers now (probed, never cached for the life of the process)."""
        ...

    def prompt_tokens_per_second(self) -> float | None:
        """Return how fast the model reads prompts (tokens a second), measured on its latest replies; None: unknown."""
        ...


class Answerer(Protocol):
    """Answers one chat turn from the vault (the agent, or retrieval-only mode without an LLM)."""

    @property
    def mode(self) -> str:
        """Return "agent" or "retrieval-only" (shown by /ready and the CLI)."""
        ...

    def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        """Yield the answer as it is produced, ending with one AnswerDone."""
        ...
