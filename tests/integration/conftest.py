"""Fixtures shared by the Local REST API stand-in tests: the running stand-in over a module's `vault`, a client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from edits.changelog import SqliteChangeLog
from edits.proposals import SqliteProposalStore
from tests.edit_fakes import open_change_log
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
