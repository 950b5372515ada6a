"""The index over HTTP: its status (counts, runs, per-file errors and warnings), a run on request, and search."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Annotated

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from app.http.deps import ServicesDep, runtime_of
from app.services.indexing_notice import indexing_notice
from app.services.search_filters import require_folder, require_tagged_note
from core.domain import SearchFilters
from core.errors import UpstreamUnavailable
from rag.search_trace import SearchTrace
from sync.index_runner import IndexRunner, RunFailed
from sync.scheduler import next_run_at
from sync.watcher import VaultWatcher

router = APIRouter()


class SearchRequest(BaseModel):
    """The body of POST /v1/search."""

    model_config = ConfigDict(extra="forbid")

    query: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
    k: int | None = Field(None, ge=1, le=100, description="How many hits (default TOP_K).")
    folder: str | None = Field(None, max_length=1000, description="Only notes in this folder and its sub-folders.")
    tags: list[Annotated[str, StringConstraints(max_length=200)]] = Field(
        default_factory=list, max_length=50, description="Only notes with any of these tags (#a also matches #a/b)."
    )
    explain: bool = Field(
        False,
        description="Tell for each hit its place in the dense and the BM25 list and its RRF share (two more queries).",
    )


def _runner(request: Request) -> IndexRunner:
    runner = runtime_of(request).index_runner
    return runner


async def status_json(runner: IndexRunner, watcher: VaultWatcher | None) -> dict[str, object]:
    """Return the index status as GET /v1/index/status (and the MCP `index_status` tool) shows it."""
    body = (await runner.status()).to_json()
    # A dead watcher (e.g. the OS watch limit) means saved notes wait for the next scheduled run: say so.
    body["watcher"] = (
        {"running": False, "error": "disabled (WATCH=false)"}
        if watcher is None
        else {"running": watcher.is_running, "error": watcher.error}
    )
    return body


async def served_status(request: Request) -> dict[str, object]:
    """Return the index status of this service, with when the scheduled re-index runs next."""
    body = await status_json(_runner(request), runtime_of(request).watcher)
    upcoming = next_run_at(runtime_of(request).index_scheduler)
    body["next_run_at"] = upcoming.isoformat() if upcoming else None
    return body


def filters_of(folder: str | None, tags: Iterable[str]) -> SearchFilters:
    """Return the search filters of a request: a folder (slashes around it ignored) and tags (# optional)."""
    return SearchFilters(
        folder=(folder or "").strip("/") or None, tags=tuple(tag.lstrip("#") for tag in tags if tag.strip())
    )


@router.get("/v1/index/status")
async def index_status(request: Request) -> dict[str, object]:
    """Return what the re-indexer knows now; a disagreement between the stores starts a repair run."""
    return await served_status(request)


@router.post("/v1/index")
async def index_now(request: Request) -> dict[str, object]:
    """Index new and changed notes now (after the current run, if one is going) and return that run's report."""
    try:
        report = await _runner(request).run_fresh("api")
    except RunFailed as exc:
        raise UpstreamUnavailable("index", exc.message) from exc
    return {"report": report.to_json()}


@router.post("/v1/search")
async def search(body: SearchRequest, request: Request, services: ServicesDep) -> dict[str, object]:
    """Return the best chunks for the query, best first (dense + BM25 fused with RRF; RERANKER_MODEL_DIR reranks).

    While the vault is being indexed, `notice` says how far (else it is null): during a first index nothing is
    searched and `hits` is empty, which must not read as "no notes match". A folder or tag no note has is a 404.
    """
    vault = runtime_of(request).settings.vault
    # A folder or tag the vault does not have is a 404, as `librarian search` says, not "no notes match".
    folder = await asyncio.to_thread(require_folder, vault, body.folder)
    notice = await indexing_notice(
        _runner(request), services.retriever, vault, progress_hint="`librarian status` shows the progress"
    )
    if notice is not None and notice.is_blocking:
        return {"hits": [], "notice": notice.text}
    filters = filters_of(folder, body.tags)
    said: dict[str, object] = {"notice": notice.text if notice is not None else None}
    if body.explain:
        trace = await asyncio.to_thread(services.retriever.trace, body.query, k=body.k, filters=filters)
        hits, said["trace"] = [hit.to_json() for hit in trace.hits], trace_json(trace)
    else:
        found = await asyncio.to_thread(services.retriever.search, body.query, k=body.k, filters=filters)
        hits = [hit.to_json() for hit in found]
    if not hits and filters.tags:
        await asyncio.to_thread(require_tagged_note, vault, filters.tags)
    return {"hits": hits, **said}


def trace_json(trace: SearchTrace) -> dict[str, object]:
    """Return how a traced search ranked: each list's depth, the fusion, the reranker (None: the fused order)."""
    fusion = trace.fusion
    return {"depth": trace.depth, "fusion": fusion.method, "rrf_k": fusion.rrf_k, "reranker": trace.reranker}
