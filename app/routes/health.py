"""Liveness and readiness: /health answers if the process runs; /ready probes what answering needs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.deps import AnswererDep, ServicesDep
from core.errors import AppError
from core.ports import ChatModel

router = APIRouter()
PROBE_TIMEOUT_SECONDS = 3.0


@router.get("/health")
async def health() -> dict[str, str]:
    """Return 200 while the process is alive."""
    return {"status": "ok"}


@router.get("/ready")
async def ready(request: Request, services: ServicesDep, answerer: AnswererDep) -> JSONResponse:
    """Probe the vector store, the docstore and the LLM endpoint now (never a cached answer)."""
    checks = {
        "vector_store": await _probe(lambda: services.store.count() >= 0),
        "docstore": await _probe(lambda: services.docstore.get("")),
    }
    chat_model: ChatModel | None = request.app.state.chat_model
    if chat_model is None:
        checks["llm"] = "not configured (retrieval-only mode)"
    else:
        try:
            is_up = await asyncio.wait_for(chat_model.is_available(), PROBE_TIMEOUT_SECONDS)
        except TimeoutError:
            is_up = False
        checks["llm"] = "ok" if is_up else "unreachable"
    is_ready = checks["vector_store"] == "ok" and checks["docstore"] == "ok"
    body = {"status": "ready" if is_ready else "not ready", "mode": answerer.mode, "checks": checks}
    return JSONResponse(body, status_code=200 if is_ready else 503)


async def _probe(check: Callable[[], object]) -> str:
    try:
        await asyncio.wait_for(asyncio.to_thread(check), PROBE_TIMEOUT_SECONDS)
    except TimeoutError:
        return "timeout"
    except AppError as exc:
        return f"error: {exc.message}"
    return "ok"
