"""Fixtures shared by integration tests: the Local REST API stand-in over a module's `vault` and a client of it, the
stores, the scripted model, and the librarian asked through the `openai` client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from app.wiring import Services
from core.settings import Settings
from edits.changelog import SqliteChangeLog
from edits.proposals import SqliteProposalStore
from tests.edit_fakes import open_change_log
from tests.integration.openai_librarian import openai_librarian
from tests.obsidian_standin import StandinVault
from tests.scripted_llm import ScriptedLLMServer

STANDIN_KEY = "0123abcd" * 8  # the plugin's keys are 64 hex characters


@pytest.fixture
def standin(vault: Path) -> Iterator[StandinVault]:
    """Serve the test module's `vault` folder like the Obsidian Local REST API plugin."""
    with StandinVault(vault, api_key=STANDIN_KEY) as running:
        yield running


@pytest.fixture
def client(standin: StandinVault) -> Iterator[httpx.Client]:
    """Return an authenticated HTTP client for the stand-in."""
    with httpx.Client(base_url=standin.base_url, headers=standin.auth_headers) as http:
        yield http


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteProposalStore]:
    """Return an empty proposal store under the test's DATA_DIR (modules testing another store define their own)."""
    proposals = SqliteProposalStore(tmp_path / "data" / "proposals.sqlite")
    yield proposals
    proposals.close()


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SqliteChangeLog]:
    """Return an empty change log under the test's DATA_DIR."""
    changes = open_change_log(tmp_path / "data")
    yield changes
    changes.close()


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    """Return a running scripted OpenAI-compatible server with an empty script (tests add turns)."""
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture
def openai_client(settings: Settings, services: Services, llm: ScriptedLLMServer) -> Iterator[openai.OpenAI]:
    """Return an `openai` client of the librarian over the session's index, answering with the scripted `llm`."""
    with openai_librarian(settings, services, llm.base_url) as client:
        yield client
