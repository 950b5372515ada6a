"""OpenAI response bodies as models: what the OpenAPI schema documents (the routes build them as plain JSON)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class ErrorDetail(BaseModel):
    """What went wrong, in OpenAI's words: `type` is the class of error, `code` the specific one."""

    model_config = ConfigDict(extra="forbid")

    message: str
    type: str
    param: str | None
    code: str | None


class ErrorBody(BaseModel):
    """The body of every error response (OpenAI's shape), documented in the OpenAPI schema."""

    model_config = ConfigDict(extra="forbid")

    error: ErrorDetail


class AssistantReply(BaseModel):
    """The answer's message."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["assistant"]
    content: str


class CompletionChoice(BaseModel):
    """The one choice of a completion."""

    model_config = ConfigDict(extra="forbid")

    index: int
    message: AssistantReply
    finish_reason: str
    logprobs: None


class UsageBody(BaseModel):
    """Token counts of the turn (estimates in retrieval-only mode)."""

    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    """A whole `chat.completion` (`stream` false), documented in the OpenAPI schema."""

    model_config = ConfigDict(extra="forbid")

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[CompletionChoice]
    usage: UsageBody


class ChunkDelta(BaseModel):
    """What one chunk adds to the reply: the role first, then pieces of text."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(BaseModel):
    """The one choice of a chunk; `finish_reason` is set on the last text chunk."""

    model_config = ConfigDict(extra="forbid")

    index: int
    delta: ChunkDelta
    finish_reason: str | None
    logprobs: None


class ChatCompletionChunk(BaseModel):
    """One `chat.completion.chunk` of a stream (`stream` true); the usage chunk has no choices."""

    model_config = ConfigDict(extra="forbid")

    id: str
    object: Literal["chat.completion.chunk"]
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: UsageBody | None = None


class ModelCard(BaseModel):
    """One model of GET /v1/models."""

    model_config = ConfigDict(extra="forbid")

    id: str
    object: Literal["model"]
    created: int
    owned_by: str


class ModelList(BaseModel):
    """The body of GET /v1/models, documented in the OpenAPI schema."""

    model_config = ConfigDict(extra="forbid")

    object: Literal["list"]
    data: list[ModelCard]
