"""PRIVATE_FOLDERS: never indexed, never read by a tool, so never sent to an LLM."""

from __future__ import annotations

import asyncio

import pytest

from agent.tools import ToolRegistry, VaultReader
from app.wiring import build_services
from core.errors import AppError
from core.settings import Settings
from tests.fakes import HashingEmbedder

PRIVATE = "Areas/Health"


def test_private_folders_are_not_indexed_nor_readable_by_tools(settings: Settings) -> None:
    private = settings.model_copy(update={"private_folders": (f"{PRIVATE}/",)})
    services = build_services(private, embedder=HashingEmbedder())
    try:
        services.reindexer.run_once()
        indexed = services.store.indexed_paths()
        assert indexed and not any(path.startswith(f"{PRIVATE}/") for path in indexed)
        assert not any(path.startswith(f"{PRIVATE}/") for path in services.docstore.paths())

        tools = ToolRegistry(VaultReader(private.vault, services.retriever))
        listing = asyncio.run(tools.run("vault", '{"command": "list_notes", "folder": "Areas"}'))
        assert PRIVATE not in listing.text
        with pytest.raises(AppError):
            asyncio.run(tools.run("read_note", '{"note": "Areas/Health/Half Marathon Plan"}'))
    finally:
        services.close()
