"""Turning answer events into OpenAI responses: SSE `chat.completion.chunk`s, or one `chat.completion`."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncIterator

from app.http.errors import describe_error
from app.http.openai_schemas import chunk_json, completion_json, error_json
from core.chat import AnswerDone, AnswerText, TurnRequest, Usage
from core.errors import AppError, UpstreamUnavailable
from core.ports import Answerer

logger = logging.getLogger(__name__)


def new_completion_id() -> str:
    """Return a fresh OpenAI-style completion id."""
    return f"chatcmpl-{uuid.uuid4().hex}"


async def collect_answer(answerer: Answerer, turn: TurnRequest) -> dict[str, object]:
    """Run a turn to the end and return the whole `chat.completion` body."""
    parts: list[str] = []
    usage, finish_reason = Usage(), "stop"
    async for event in answerer.answer(turn):
        if isinstance(event, AnswerText):
            parts.append(event.text)
        elif isinstance(event, AnswerDone):
            usage, finish_reason = event.usage, event.finish_reason
    content = "".join(parts)
    if not content.strip():
        raise UpstreamUnavailable("llm", "the model returned an empty answer; try again or rephrase")
    return completion_json(new_completion_id(), content, usage, finish_reason)


async def stream_answer(answerer: Answerer, turn: TurnRequest, *, include_usage: bool) -> AsyncIterator[str]:
    """Yield SSE data payloads: a role chunk, text chunks, a finish chunk, [usage], then [DONE].

    A failure mid-stream ends with an OpenAI-shaped error chunk and [DONE]; a client disconnect cancels this
    generator (sse-starlette cancels its task), which cancels the answerer's work with it.
    """
    completion_id = new_completion_id()
    yield json.dumps(chunk_json(completion_id, role="assistant", content=""))
    has_text = False
    try:
        async for event in answerer.answer(turn):
            if isinstance(event, AnswerText) and event.text:
                has_text = True
                yield json.dumps(chunk_json(completion_id, content=event.text))
            elif isinstance(event, AnswerDone):
                if not has_text:
                    raise UpstreamUnavailable("llm", "the model returned an empty answer; try again or rephrase")
                yield json.dumps(chunk_json(completion_id, finish_reason=event.finish_reason))
                if include_usage:
                    yield json.dumps(chunk_json(completion_id, usage=event.usage, with_choice=False))
    except AppError as exc:
        _status, body = describe_error(exc)
        yield json.dumps(body)
    except Exception:  # noqa: BLE001 - the HTTP edge: log it, end the stream cleanly, never leak a traceback
        logger.exception("answer failed mid-stream")
        yield json.dumps(error_json("internal error; see the server log", error_type="server_error"))
    yield "[DONE]"
