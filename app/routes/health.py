"""Liveness and readiness: /health answers if the process runs; /ready probes what answering needs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from urllib.parse import unquote, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from agent.tool_use import ToolUse
from app.deps import AnswererDep, ServicesDep
from app.wiring import EditServices, Services
from core.errors import AppError
from core.llm_endpoints import hosts_off_machine, key_values
from core.ports import ChatModel
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel, redact
from sync.consistency import check_consistency
from sync.index_runner import IndexRunner
from sync.reindex import RUN_FLAG

logger = logging.getLogger(__name__)
router = APIRouter()
PROBE_TIMEOUT_SECONDS = 3.0
STILL_RUNNING = "probe still running"
INDEXING = "indexing"
IN_STEP = ("ok", INDEXING, STILL_RUNNING)


@router.get("/health")
async def health() -> dict[str, str]:
    """Return 200 while the process is alive."""
    return {"status": "ok"}


@router.get("/ready")
async def ready(request: Request, services: ServicesDep, answerer: AnswererDep) -> JSONResponse:
    """Probe the vector store, the docstore and the LLM endpoint now (never a cached answer)."""
    probes = ProbeSlots.of(request)
    checks = {
        "vector_store": await probes.run("vector_store", lambda: services.store.count() >= 0),
        "docstore": await probes.run("docstore", lambda: services.docstore.get("")),
    }
    stores_answer = checks["vector_store"] == checks["docstore"] == "ok"
    # Comparing the stores needs both: a hung one would only get a second probe stuck behind the first.
    checks["index"] = await _index_check(request, services, probes) if stores_answer else "unknown (a store failed)"
    runner: IndexRunner | None = getattr(request.app.state, "index_runner", None)
    if runner is not None and stores_answer:
        runner.retry_now()  # both stores answer again: a run that failed on them need not wait out its backoff
    chat_model: ChatModel | None = request.app.state.chat_model
    llm: dict[str, object] = {}
    if chat_model is None:
        checks["llm"] = "not configured (retrieval-only mode)"
    else:
        problem = await _llm_problem(chat_model)
        checks["llm"] = "ok" if problem is None else "unreachable"
        llm = {"reachable": problem is None, "error": problem}
    checks["writes"] = await _writes_check(request)
    # Stores that disagree (an emptied Redis, lost points) are not ready: citations would check against gaps.
    is_ready = checks["vector_store"] == "ok" and checks["docstore"] == "ok" and checks["index"] in IN_STEP
    body: dict[str, object] = {"status": "ready" if is_ready else "not ready", "mode": answerer.mode, "checks": checks}
    tool_use: ToolUse | None = getattr(request.app.state, "tool_use", None)
    if chat_model is not None and tool_use is not None:
        body["model"] = {"id": chat_model.model_name, "tools": tool_use.describe(chat_model.model_name)}
    body["llm"] = {**llm, "leaves_machine": hosts_off_machine(_endpoints(request, chat_model))}
    settings: Settings = request.app.state.settings
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


def _endpoints(request: Request, chat_model: ChatModel | None) -> tuple[str, ...]:
    """Return the LLM endpoints note text may be sent to: a probed one is known only to the client."""
    if isinstance(chat_model, OpenAICompatibleChatModel):
        return chat_model.base_urls
    settings: Settings = request.app.state.settings
    return settings.llm.base_urls if chat_model is not None else ()


async def _index_check(request: Request, services: Services, probes: ProbeSlots) -> str:
    """Say whether the docstore, vector store and watermarks agree; a disagreement starts a repair run."""
    runner: IndexRunner | None = getattr(request.app.state, "index_runner", None)
    if runner is not None and runner.is_running:
        return INDEXING

    def compare() -> str:
        if services.watermarks.get_meta(RUN_FLAG) == "1":
            return INDEXING  # a run was cut short: the next one repairs it, by design
        found = check_consistency(services.watermarks, services.docstore, services.store)
        return "ok" if found.is_consistent else "; ".join(found.problems)

    result = await probes.run("index", compare)
    if runner is not None and result not in (*IN_STEP, "timeout") and not result.startswith("error"):
        runner.request_repair(tuple(result.split("; ")))
        return f"{result} (repairing)"
    return result


async def _writes_check(request: Request) -> str:
    """Say whether approved edits can be written now, and how (read-only is a setting, not a failure)."""
    edits: EditServices | None = getattr(request.app.state, "edits", None)
    if edits is None or edits.writer is None:
        return "read-only (WRITE_BACKEND=none)"
    writer = edits.writer
    try:
        is_up = await asyncio.wait_for(writer.is_available(), PROBE_TIMEOUT_SECONDS)
    except TimeoutError:
        is_up = False
    confirm = "" if edits.settings.confirm else ", WRITE_CONFIRM=false: applied without asking"
    return f"ok ({writer.name}{confirm})" if is_up else f"unavailable ({writer.name}): edits cannot be applied now"


class ProbeSlots:
    """Blocking probes in threads, at most one of each kind in flight, kept on `app.state`.

    A thread cannot be cancelled: after a timeout it runs on. Starting another probe while one still hangs
    would fill the default thread pool that the index runner and the embedder share, one probe at a time.
    """

    def __init__(self, secrets: tuple[str, ...]) -> None:
        self._running: dict[str, asyncio.Task[object]] = {}
        self._secrets = secrets

    @staticmethod
    def of(request: Request) -> ProbeSlots:
        """Return the slots the lifespan put on `app.state`."""
        slots: ProbeSlots = request.app.state.ready_probes
        return slots

    async def run(self, kind: str, check: Callable[[], object]) -> str:
        """Return "ok", "timeout", STILL_RUNNING, or "error: ..." (redacted) for one probe of `kind`."""
        task = self._running.get(kind)
        if task is not None and not task.done():
            return STILL_RUNNING
        task = asyncio.create_task(asyncio.to_thread(check))
        # Retrieve the outcome even when nobody awaits it any more, so a late failure is not logged as lost.
        task.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._running[kind] = task
        try:
            # shield: a timeout must not mark the task done while its thread still runs.
            await asyncio.wait_for(asyncio.shield(task), PROBE_TIMEOUT_SECONDS)
        except TimeoutError:
            return "timeout"
        except AppError as exc:
            return f"error: {redact(exc.message, self._secrets)}"
        except Exception as exc:  # noqa: BLE001 - the HTTP edge: a probe that fails in any way is "not ready"
            logger.warning("%s probe failed: %s", kind, redact(repr(exc), self._secrets))
            return f"error: {type(exc).__name__} (see the server log)"
        result = task.result()
        return result if isinstance(result, str) else "ok"  # a check may describe its outcome itself


def secrets_of(settings: Settings) -> tuple[str, ...]:
    """Return the configured secret values, to be redacted from probe errors (a Redis URL's password too)."""
    others = (settings.api_key, settings.qdrant_api_key, settings.redis_url)
    secrets = [*(secret.get_secret_value() for secret in others if secret is not None), *key_values(settings.llm)]
    if settings.redis_url is not None:
        # Errors echo the URL in pieces (host and port without the database), so the bare password counts too.
        with contextlib.suppress(ValueError):
            password = urlsplit(settings.redis_url.get_secret_value()).password
            if password:
                secrets.append(unquote(password))
                secrets.append(password)
    return tuple(secrets)
