"""Helpers for the read-tool tests: a registry over the indexed sample-vault copy, and calls as the model makes them."""

from __future__ import annotations

import asyncio
import json
import random
from datetime import datetime

from agent.tools import ToolOutcome, ToolRegistry, VaultReader
from app.wiring import Services

TODAY = datetime(2026, 11, 5, 9, 30)  # a Thursday with a daily note in sample_vault


def indexed_registry(services: Services, *, max_chars: int = 6_000) -> ToolRegistry:
    """Index the vault copy, then return the read tools over it with a fixed clock and random seed."""
    services.reindexer.run_once()
    reader = VaultReader(services.settings.vault, services.retriever, clock=lambda: TODAY, rng=random.Random(7))
    return ToolRegistry(reader, max_chars=max_chars)


def call(registry: ToolRegistry, tool: str, /, **arguments: object) -> ToolOutcome:
    """Run one tool call the way the agent does: arguments as JSON text, through the async entry point."""
    return asyncio.run(registry.run(tool, json.dumps(arguments)))
