"""POST /v1/chat/completions: OpenAI-compatible, streamed or not, answered from the vault."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from sse_starlette.sse import EventSourceResponse

from app.http.deps import AnswererDep, server_settings_of
from app.http.openai_schemas import ChatCompletionRequest
from app.http.streaming import collect_answer, stream_answer
from app.services.conversation import conversation_id
from core.chat import TurnRequest

router = APIRouter()


@router.post("/v1/chat/completions", response_model=None)
async def chat_completions(
    body: ChatCompletionRequest, request: Request, answerer: AnswererDep
) -> dict[str, Any] | EventSourceResponse:
    """Answer the latest user message from the vault, with verified [[citations]]."""
    history = body.to_history()
    turn = TurnRequest(conversation_id=conversation_id(request.headers, body.user_id(), history), messages=history)
    if not body.stream:
        return await collect_answer(answerer, turn)
    settings = server_settings_of(request)
    include_usage = bool(body.stream_options and body.stream_options.include_usage)
    # ping: a comment line every KEEPALIVE_SECONDS while tools run, so clients never wait long without a byte.
    # sep: bare "\n" line ends, as OpenAI sends; some hand-written SSE parsers split on "\n\n" only.
    return EventSourceResponse(
        stream_answer(answerer, turn, include_usage=include_usage),
        ping=settings.keepalive_seconds,
        sep="\n",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        # On SIGTERM an answer streaming gets the grace non-streamed ones get (sse-starlette's default ends it at
        # once, without its last chunk or [DONE]); uvicorn cancels what is left when the grace is over.
        shutdown_grace_period=settings.shutdown_grace_seconds,
    )
