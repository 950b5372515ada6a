"""GET /v1/index/status: counts, the last run, per-file errors of the background re-indexer."""

from __future__ import annotations

from fastapi import APIRouter, Request

from sync.index_runner import IndexRunner
from sync.watcher import VaultWatcher

router = APIRouter()


@router.get("/v1/index/status")
async def index_status(request: Request) -> dict[str, object]:
    """Return what the re-indexer knows now."""
    runner: IndexRunner = request.app.state.index_runner
    body = (await runner.status()).to_json()
    watcher: VaultWatcher | None = request.app.state.watcher
    # A dead watcher (e.g. the OS watch limit) means saved notes wait for the next scheduled run: say so.
    body["watcher"] = (
        {"running": False, "error": "disabled (WATCH=false)"}
        if watcher is None
        else {"running": watcher.is_running, "error": watcher.error}
    )
    return body
