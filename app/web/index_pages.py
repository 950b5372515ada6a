"""The Index page: what is indexed, the runs, the stores' agreement, every file with a problem, and the tracer.

The search box runs the traced search (`Retriever.trace`): each hit with its place in the dense and the BM25
list, so "why is this note first" and "why is my note missing" have an answer without curl.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from app.http.deps import ServicesDep
from app.http.routes.index import filters_of, served_status
from app.web.pages import PageRoute, SessionDep, render
from core.errors import AppError
from rag.search_trace import SearchTrace

router = APIRouter(route_class=PageRoute)
MAX_SHOWN_TEXT = 400  # characters of each hit's text on the page


@router.get("/")
async def index_page(
    request: Request,
    session: SessionDep,
    services: ServicesDep,
    q: Annotated[str, Query(max_length=2000)] = "",
    folder: Annotated[str, Query(max_length=1000)] = "",
    k: Annotated[str, Query(max_length=3)] = "",
) -> Response:
    """Show the index status and, for a query, the traced hits."""
    status = await served_status(request)
    trace: SearchTrace | None = None
    search_error: str | None = None
    top_k = int(k) if k.isdigit() and 0 < int(k) <= 100 else None  # anything else: TOP_K, as the API's default
    if q.strip():
        search_error = services.retriever.unready_reason()  # an empty vault, or the first index still running
    if q.strip() and search_error is None:
        try:
            filters = filters_of(folder, ())
            trace = await asyncio.to_thread(services.retriever.trace, q, k=top_k, filters=filters)
        except AppError as exc:  # e.g. an index built by another model: shown beside the form, the status stays
            search_error = exc.message
    return render(
        request,
        session,
        "index.html",
        index=status,
        q=q,
        folder=folder,
        k=k,
        trace=trace,
        search_error=search_error,
        max_text=MAX_SHOWN_TEXT,
    )
