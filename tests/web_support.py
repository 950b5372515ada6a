"""The web UI in a real browser: a served copy of sample_vault with the example crews, and Debian's Chromium.

Used by the browser tests (tests/integration/test_web_browser.py) and by scripts/screenshots.py. Chromium comes
from Debian's package (`apt-get install chromium`, which .ci/run does); Playwright drives it and never downloads a
browser of its own.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from app.http.main import create_app
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel
from tests.conftest import SAMPLE_VAULT
from tests.crew_support import CrewWorld, crew_world
from tests.integration.mcp_support import http_client, proposal_ids, propose_append
from tests.live_server import serve_in_thread
from tests.scripted_llm_turns import Turn

CHROMIUM = Path("/usr/bin/chromium")
NO_BROWSER = f"no browser for the web UI tests: {CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)"
# As root, without a sandbox; no background traffic (this machine's network is closed: each attempt would fail).
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
API_KEY = "a-web-ui-key-for-the-tests"
NOTE = "Inbox/Quick capture.md"


@dataclass
class WebWorld:
    """A `librarian serve` at `url` over `vault` (example crews installed), its LLM scripted."""

    url: str
    vault: Path
    settings: Settings
    crews: CrewWorld

    def propose_over_mcp(self, content: str, path: str = NOTE) -> str:
        """Have an MCP client without elicitation propose appending `content` to `path`; return the proposal id."""

        async def propose() -> list[str]:
            headers = {"Authorization": f"Bearer {API_KEY}"} if self.settings.api_key else {}
            async with http_client(f"{self.url}/mcp", headers=headers) as client:
                return await propose_append(client, path, content)

        (proposal_id,) = asyncio.run(propose())
        return proposal_id


def propose_locally(settings: Settings, content: str, path: str = NOTE) -> str:
    """Propose appending `content` to `path` as an MCP client's model would (in this process); return the id."""
    arguments = {"command": "append", "path": path, "content": content}
    (proposal_id,) = proposal_ids(run_write_tool_locally(settings, "edit_note", arguments))
    return proposal_id


def run_write_tool_locally(settings: Settings, tool: str, arguments: dict[str, Any]) -> str:
    """Call a write tool as an MCP client's model would (in this process); return the reply the model reads."""
    from agent.propose import ProposalToolbox
    from agent.tools import VaultReader
    from app.mcp.backend import local_now
    from app.mcp.writes import describe_for_mcp
    from app.services.proposal_access import MCP_CONVERSATION
    from app.wiring import build_edit_services

    edits = build_edit_services(settings)
    try:
        reader = VaultReader(settings.vault, search=None)  # type: ignore[arg-type]  # the write tools never search
        toolbox = ProposalToolbox(
            reader,
            edits.store,
            edits.settings,
            conversation_id=MCP_CONVERSATION,
            clock=local_now,
            describe=describe_for_mcp,
        )
        return toolbox.run_blocking(tool, json.dumps(arguments)).text
    finally:
        edits.close()


def csrf_of(html: str) -> str:
    """Return the CSRF token the forms of a page carry."""
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    if found is None:
        raise AssertionError("the page has no form token")
    return found.group(1)


@contextmanager
def web_world(
    root: Path, *, script: Callable[[dict[str, Any]], Turn], api_key: str | None = API_KEY
) -> Iterator[WebWorld]:
    """Serve a fresh copy of sample_vault under `root` with the example crews and a scripted model."""
    vault = root / "vault"
    shutil.copytree(SAMPLE_VAULT, vault, symlinks=True)
    settings = Settings(_env_file=None, vault_path=vault, data_dir=root / "data")
    key = SecretStr(api_key) if api_key else None
    with crew_world(settings, script=script, api_key=key, watch=False) as world:
        llm = world.settings.llm.model_copy(update={"base_urls": (world.llm.base_url,), "retries": 0})
        app = create_app(world.settings, world.services, chat_model=OpenAICompatibleChatModel(llm))
        with serve_in_thread(app) as url:
            yield WebWorld(url, vault, world.settings, world)


@contextmanager
def chromium_page(*, dark: bool = False, width: int = 1280, height: int = 900) -> Iterator[Any]:
    """Yield a Playwright page in headless Debian Chromium (a fresh profile, closed afterwards)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_FLAGS), headless=True)
        try:
            context = browser.new_context(
                viewport={"width": width, "height": height}, color_scheme="dark" if dark else "light"
            )
            page = context.new_page()
            page.set_default_timeout(30_000)
            yield page
        finally:
            browser.close()


def log_in(page: Any, url: str, path: str = "/") -> None:
    """Open `path`, which sends the browser to the login form, and log in with the API key."""
    page.goto(f"{url}{path}")
    page.fill("#api_key", API_KEY)
    page.click("button:has-text('Log in')")
    page.wait_for_url(f"{url}{path}")
