"""`search_notes` over MCP while the first index runs: "still being indexed (N of M notes)", never "no passages"."""

from __future__ import annotations

import asyncio
import dataclasses
import threading

from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from rag.notes.vault import scan_vault
from sync.reindex import ProgressCallback, Reindexer
from sync.report import Progress, ReindexReport
from tests.fakes import ScriptedAnswerer
from tests.integration.mcp_support import http_client, text_of
from tests.live_server import serve_in_thread

WAIT_S = 60.0


class PausedReindexer:
    """The real reindexer, paused in its first run at the first progress event of `phase` until released."""

    def __init__(self, inner: Reindexer, phase: str) -> None:
        self.inner = inner
        self.phase = phase
        self.paused = threading.Event()
        self.release = threading.Event()

    def run_once(self, on_progress: ProgressCallback | None = None) -> ReindexReport:
        def forward(progress: Progress) -> None:
            if on_progress:
                on_progress(progress)
            if progress.phase == self.phase and not self.paused.is_set():
                self.paused.set()
                self.release.wait(WAIT_S)

        return self.inner.run_once(forward)


def search_during_first_index(settings: Settings, services: Services, phase: str) -> tuple[str, str]:
    """Return what search_notes says while the first run is paused at `phase`, and what it says once done."""
    paused = PausedReindexer(services.reindexer, phase)
    app = create_app(
        settings.model_copy(update={"watch": False}),
        dataclasses.replace(services, reindexer=paused),  # type: ignore[arg-type]
        answerer=ScriptedAnswerer(),
    )
    query = {"query": "sourdough starter feeding", "k": 3}

    async def search(url: str) -> str:
        async with http_client(url) as client:
            return text_of(await client.call_tool("search_notes", query))

    with serve_in_thread(app) as base:
        try:
            assert paused.paused.wait(WAIT_S), "the first index did not start"
            during = asyncio.run(search(f"{base}/mcp"))
        finally:
            paused.release.set()
        asyncio.run(asyncio.wait_for(_wait_idle(app), WAIT_S))
        after = asyncio.run(search(f"{base}/mcp"))
    return during, after


async def _wait_idle(app: object) -> None:
    runner = app.state.runtime.index_runner  # type: ignore[attr-defined]
    while runner.is_running or runner.last_report is None:
        await asyncio.sleep(0.05)


def test_search_before_anything_is_indexed_says_how_far_the_first_index_is(
    settings: Settings, services: Services
) -> None:
    during, after = search_during_first_index(settings, services, "scan")

    total = len(scan_vault(settings.vault).notes)
    assert during.startswith(f"The vault is still being indexed (0 of {total} notes so far)")
    assert "No passages found" not in during
    assert "Sourdough" in after and "still being indexed" not in after


def test_search_in_a_partial_index_says_passages_may_be_missing(settings: Settings, services: Services) -> None:
    during, _ = search_during_first_index(settings, services, "index")

    first_line = during.splitlines()[0]
    total = len(scan_vault(settings.vault).notes)
    assert first_line.startswith("The vault is still being indexed (") and f" of {total} notes so far)" in first_line
    assert "passages of the notes not indexed yet are missing" in first_line
