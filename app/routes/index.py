"""GET /v1/index/status: counts, the last run, per-file errors of the background re-indexer."""

from __future__ import annotations

from fastapi import APIRouter, Request

from sync.index_runner import IndexRunner

router = APIRouter()


@router.get("/v1/index/status")
async def index_status(request: Request) -> dict[str, object]:
    """Return what the re-indexer knows now."""
    runner: IndexRunner = request.app.state.index_runner
    return (await runner.status()).to_json()
