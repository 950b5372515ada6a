"""Searching while the first index runs: "still being indexed (N of M notes)", never "no passages" or "no notes match".

Every front that searches says so: `search_notes` over MCP, `POST /v1/search`, and `librarian search` beside the
`serve` that is indexing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable
from typing import TypeVar

import httpx
from typer.testing import CliRunner

from app.cli.main import cli
from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from rag.notes.vault import scan_vault
from sync.reindex import ProgressCallback, Reindexer
from sync.report import Progress, ReindexReport
from tests.conftest import SETTINGS_ENV
from tests.fakes import ScriptedAnswerer
from tests.integration.mcp_support import http_client, text_of
from tests.live_server import serve_in_thread
from tests.scripted_llm import free_port

WAIT_S = 60.0
QUERY = {"query": "sourdough starter feeding", "k": 3}
T = TypeVar("T")


# Where the first run is paused: while scanning; as the index phase begins, before anything is written; and right
# after its first batch of notes is written.
PAUSE_POINTS: dict[str, Callable[[Progress], bool]] = {
    "scan": lambda progress: progress.phase == "scan",
    "indexing begins": lambda progress: progress.phase == "index" and progress.notes_done == 0,
    "first commit": lambda progress: progress.phase == "index" and progress.notes_done > 0,
}


class PausedReindexer:
    """The real reindexer, paused in its first run at the first progress event matching `pause_at` until released."""

    def __init__(self, inner: Reindexer, pause_at: str) -> None:
        self.inner = inner
        self.is_pause_point = PAUSE_POINTS[pause_at]
        self.paused = threading.Event()
        self.release = threading.Event()

    def run_once(self, on_progress: ProgressCallback | None = None) -> ReindexReport:
        def forward(progress: Progress) -> None:
            if on_progress:
                on_progress(progress)
            if self.is_pause_point(progress) and not self.paused.is_set():
                self.paused.set()
                self.release.wait(WAIT_S)

        return self.inner.run_once(forward)


def during_first_index(
    settings: Settings, services: Services, pause_at: str, search: Callable[[str], T], *, port: int | None = None
) -> tuple[T, T]:
    """Return what `search(base_url)` gives while the first run is paused at `pause_at`, and once the run is done."""
    paused = PausedReindexer(services.reindexer, pause_at)
    app = create_app(
        settings.model_copy(update={"watch": False}),
        dataclasses.replace(services, reindexer=paused),  # type: ignore[arg-type]
        answerer=ScriptedAnswerer(),
    )
    with serve_in_thread(app, port=port) as base:
        try:
            assert paused.paused.wait(WAIT_S), "the first index did not start"
            during = search(base)
        finally:
            paused.release.set()
        asyncio.run(asyncio.wait_for(_wait_idle(app), WAIT_S))
        after = search(base)
    return during, after


def search_during_first_index(settings: Settings, services: Services, pause_at: str) -> tuple[str, str]:
    """Return what search_notes says while the first run is paused at `pause_at`, and what it says once done."""

    async def search(url: str) -> str:
        async with http_client(url) as client:
            return text_of(await client.call_tool("search_notes", QUERY))

    return during_first_index(settings, services, pause_at, lambda base: asyncio.run(search(f"{base}/mcp")))


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


def test_search_as_the_index_phase_begins_says_nothing_is_searchable_yet(
    settings: Settings, services: Services
) -> None:
    # The index phase is reported before its first write, so no search sees written chunks under a "scan" progress.
    during, _ = search_during_first_index(settings, services, "indexing begins")

    total = len(scan_vault(settings.vault).notes)
    assert during.startswith(f"The vault is still being indexed (0 of {total} notes so far), so nothing can be")
    assert services.store.count() > 0  # written once released


def test_search_in_a_partial_index_says_passages_may_be_missing(settings: Settings, services: Services) -> None:
    during, _ = search_during_first_index(settings, services, "first commit")

    first_line = during.splitlines()[0]
    total = len(scan_vault(settings.vault).notes)
    assert first_line.startswith("The vault is still being indexed (") and f" of {total} notes so far)" in first_line
    assert "passages of the notes not indexed yet are missing" in first_line


def test_the_search_api_says_the_first_index_is_running_instead_of_answering_no_hits(
    settings: Settings, services: Services
) -> None:
    def search(base: str) -> dict[str, object]:
        body: dict[str, object] = httpx.post(f"{base}/v1/search", json=QUERY, timeout=30).json()
        return body

    during, after = during_first_index(settings, services, "scan", search)

    total = len(scan_vault(settings.vault).notes)
    assert during["hits"] == []
    assert str(during["notice"]).startswith(f"The vault is still being indexed (0 of {total} notes so far)")
    assert "`librarian status` shows the progress" in str(during["notice"])
    assert after["notice"] is None and after["hits"]


def test_librarian_search_beside_an_indexing_serve_says_still_indexing_not_no_notes_match(
    settings: Settings, services: Services
) -> None:
    port = free_port()
    served = settings.model_copy(update={"port": port})  # the owner file names this port to the CLI
    env: dict[str, str | None] = dict.fromkeys(SETTINGS_ENV)
    env.update(VAULT_PATH=str(settings.vault_path), DATA_DIR=str(settings.data_dir), HF_HUB_OFFLINE="1", COLUMNS="250")

    def search(_base: str) -> tuple[int, str, str]:
        result = CliRunner().invoke(cli, ["search", "sourdough starter feeding", "--k", "3"], env=env)
        return result.exit_code, result.stdout, result.stderr

    (code, out, err), (after_code, after_out, after_err) = during_first_index(
        served, services, "scan", search, port=port
    )

    assert code == 0, err
    assert "still being indexed" in err and "no notes match" not in out + err
    assert after_code == 0, after_err
    assert "Sourdough" in after_out and "still being indexed" not in after_err
