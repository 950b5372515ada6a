"""Liveness and readiness: /health answers if the process runs; /ready probes what answering needs."""

from __future__ import annotations

import asyncio
import logging

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.http.deps import RuntimeDep
from app.http.probes import PROBE_TIMEOUT_SECONDS, STILL_RUNNING
from app.http.runtime import Runtime
from app.wiring import EditServices
from core.llm_endpoints import hosts_off_machine
from core.ports import ChatModel
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel
from sync.consistency import check_consistency
from sync.reindex import RUN_FLAG

logger = logging.getLogger(__name__)
router = APIRouter()
INDEXING = "indexing"
IN_STEP = ("ok", INDEXING, STILL_RUNNING)


@router.get("/health")
async def health() -> dict[str, str]:
    """Return 200 while the process is alive."""
    return {"status": "ok"}


@router.get("/ready")
async def ready(runtime: RuntimeDep) -> JSONResponse:
    """Probe the vector store, the docstore and the LLM endpoint now (never a cached answer)."""
    services, probes = runtime.services, runtime.ready_probes
    checks = {
        "vector_store": await probes.run("vector_store", lambda: services.store.count() >= 0),
        "docstore": await probes.run("docstore", lambda: services.docstore.get("")),
    }
    stores_answer = checks["vector_store"] == checks["docstore"] == "ok"
    # Comparing the stores needs both: a hung one would only get a second probe stuck behind the first.
    checks["index"] = await _index_check(runtime) if stores_answer else "unknown (a store failed)"
    runner = runtime.index_runner
    if stores_answer:
        runner.retry_now()  # both stores answer again: a run that failed on them need not wait out its backoff
    chat_model = runtime.chat_model
    llm: dict[str, object] = {}
    if chat_model is None:
        checks["llm"] = "not configured (retrieval-only mode)"
    else:
        problem = await _llm_problem(chat_model)
        checks["llm"] = "ok" if problem is None else "unreachable"
        llm = {"reachable": problem is None, "error": problem}
    checks["writes"] = await _writes_check(runtime.edits)
    # Stores that disagree (an emptied Redis, lost points) are not ready: citations would check against gaps.
    is_ready = checks["vector_store"] == "ok" and checks["docstore"] == "ok" and checks["index"] in IN_STEP
    body: dict[str, object] = {
        "status": "ready" if is_ready else "not ready",
        "mode": runtime.answerer.mode,
        "checks": checks,
    }
    if chat_model is not None:
        speed = chat_model.prompt_tokens_per_second()  # None until a reply is timed (the warm-up is the first)
        body["model"] = {
            "id": chat_model.model_name,
            "tools": runtime.tool_use.describe(chat_model.model_name),
            "warm_up": runtime.warm_up.status,  # "running": a question asked now waits behind it
            "prompt_tokens_per_second": None if speed is None else round(speed, 1),
        }
    body["llm"] = {**llm, "leaves_machine": hosts_off_machine(_endpoints(runtime.settings, chat_model))}
    settings = runtime.settings
    body["retrieval"] = {"reranker": settings.retrieval.reranker}  # None: hits keep their fused (RRF) order
    return JSONResponse(body, status_code=200 if is_ready else 503)


async def _llm_problem(chat_model: ChatModel) -> str | None:
    """Return why the LLM does not answer now (a wrong base URL named as such), None when it does."""
    try:
        # A coroutine, so the timeout cancels it: nothing is left running.
        if isinstance(chat_model, OpenAICompatibleChatModel):
            return await asyncio.wait_for(chat_model.unavailable_reason(), PROBE_TIMEOUT_SECONDS)
        is_up = await asyncio.wait_for(chat_model.is_available(), PROBE_TIMEOUT_SECONDS)
    except TimeoutError:
        return f"no answer within {PROBE_TIMEOUT_SECONDS:g} s"
    return None if is_up else "the endpoint did not answer"


def _endpoints(settings: Settings, chat_model: ChatModel | None) -> tuple[str, ...]:
    """Return the LLM endpoints note text may be sent to: a probed one is known only to the client."""
    if isinstance(chat_model, OpenAICompatibleChatModel):
        return chat_model.base_urls
    return settings.llm.base_urls if chat_model is not None else ()


async def _index_check(runtime: Runtime) -> str:
    """Say whether the docstore, vector store and watermarks agree; a disagreement starts a repair run."""
    services, runner = runtime.services, runtime.index_runner
    if runner.is_running:
        return INDEXING

    def compare() -> str:
        if services.watermarks.get_meta(RUN_FLAG) == "1":
            return INDEXING  # a run was cut short: the next one repairs it, by design
        found = check_consistency(services.watermarks, services.docstore, services.store)
        return "ok" if found.is_consistent else "; ".join(found.problems)

    result = await runtime.ready_probes.run("index", compare)
    if result not in (*IN_STEP, "timeout") and not result.startswith("error"):
        runner.request_repair(tuple(result.split("; ")))
        return f"{result} (repairing)"
    return result


async def _writes_check(edits: EditServices) -> str:
    """Say whether approved edits can be written now, and how (read-only is a setting, not a failure)."""
    if edits.writer is None:
        return "read-only (WRITE_BACKEND=none)"
    writer = edits.writer
    try:
        is_up = await asyncio.wait_for(writer.is_available(), PROBE_TIMEOUT_SECONDS)
    except TimeoutError:
        is_up = False
    confirm = "" if edits.settings.confirm else ", WRITE_CONFIRM=false: applied without asking"
    return f"ok ({writer.name}{confirm})" if is_up else f"unavailable ({writer.name}): edits cannot be applied now"
