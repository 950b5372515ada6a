"""OpenAI chat-completions wire shapes: lenient requests (unknown parameters accepted), exact responses."""

from __future__ import annotations

import time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator
from pydantic_core import PydanticCustomError

from core.chat import ChatMessage, Usage
from core.errors import InvalidRequest

MODEL_ID = "vault-librarian"


class ContentPart(BaseModel):
    """One part of an array `content` (text parts are used; images and others are ignored without error)."""

    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None


class WireMessage(BaseModel):
    """A message as clients send it: content is a string, an array of parts, or null."""

    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[ContentPart] | None = None
    name: str | None = None

    def text(self) -> str:
        """Return the text of the message (text parts joined; other parts ignored)."""
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(part.text for part in self.content if part.type in ("text", "input_text") and part.text)


class StreamOptions(BaseModel):
    """`stream_options` of the request."""

    model_config = ConfigDict(extra="allow")

    include_usage: bool | None = False


class ChatCompletionRequest(BaseModel):
    """The request body of POST /v1/chat/completions; OpenAI parameters we don't use are accepted and ignored.

    Ignored on purpose: tools, tool_choice, response_format, max_tokens, temperature, metadata and the like; the
    agent picks its own tools and answers in Markdown with citations.
    """

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {"model": MODEL_ID, "messages": [{"role": "user", "content": "How long does the dough rest?"}]}
            ]
        },
    )

    model: str | None = None
    messages: list[WireMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    # A string per OpenAI; Open WebUI pipelines send an object describing the user.
    user: JsonValue = None
    n: int | None = Field(None, json_schema_extra={"minimum": 1, "maximum": 1})  # refused by _one_choice otherwise

    @field_validator("stream", mode="before")
    @classmethod
    def _null_stream_is_false(cls, value: object) -> object:
        return False if value is None else value

    @field_validator("messages", mode="before")
    @classmethod
    def _some_message(cls, value: object) -> object:
        # Before the length check, so the message reads like the rest of the API's (and names the field).
        if value == []:
            raise PydanticCustomError("too_short", "must contain at least one message")
        return value

    @field_validator("n")
    @classmethod
    def _one_choice(cls, value: int | None) -> int | None:
        if value is not None and value != 1:
            raise PydanticCustomError("n_unsupported", "n must be 1 (one choice per answer), got {n}", {"n": value})
        return value

    def user_id(self) -> str | None:
        """Return `user` when it is a string (the only form that names a conversation)."""
        return self.user if isinstance(self.user, str) else None

    def to_history(self) -> tuple[ChatMessage, ...]:
        """Return the conversation as domain messages, refusing what cannot be answered."""
        history = [
            ChatMessage(role="system" if message.role == "developer" else message.role, content=message.text())
            for message in self.messages
        ]
        if not any(m.role == "user" and m.content.strip() for m in history):
            raise InvalidRequest("the conversation has no user message with text to answer")
        return tuple(history)


def usage_json(usage: Usage) -> dict[str, int]:
    """Return the OpenAI `usage` object."""
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }


def completion_json(completion_id: str, content: str, usage: Usage, finish_reason: str) -> dict[str, object]:
    """Return a whole `chat.completion` response."""
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL_ID,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
                "logprobs": None,
            }
        ],
        "usage": usage_json(usage),
    }


def chunk_json(
    completion_id: str,
    *,
    content: str | None = None,
    role: str | None = None,
    finish_reason: str | None = None,
    usage: Usage | None = None,
    with_choice: bool = True,
) -> dict[str, object]:
    """Return one `chat.completion.chunk` of a stream."""
    delta: dict[str, str] = {}
    if role is not None:
        delta["role"] = role
    if content is not None:
        delta["content"] = content
    chunk: dict[str, object] = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": MODEL_ID,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}]
        if with_choice
        else [],
    }
    if usage is not None:
        chunk["usage"] = usage_json(usage)
    return chunk


def error_json(
    message: str, *, error_type: str, code: str | None = None, param: str | None = None
) -> dict[str, object]:
    """Return the OpenAI error body."""
    return {"error": {"message": message, "type": error_type, "param": param, "code": code}}
