"""What the MCP tools run on: the same reader, index runner, edit services and crews the service built for chat."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent.tools import ToolRegistry, VaultReader
from app.wiring import EditServices
from core.settings import Settings
from crews.service import CrewService
from rag.retrieve import Retriever
from sync.index_runner import IndexRunner
from sync.watcher import VaultWatcher


def local_now() -> datetime:
    """Return the local time (the user's today for daily notes; proposals compare aware times)."""
    return datetime.now().astimezone()


@dataclass(frozen=True, slots=True)
class McpBackend:
    """The running service's parts the MCP front needs; built once the lifespan has started them."""

    settings: Settings
    reader: VaultReader
    registry: ToolRegistry
    edits: EditServices
    runner: IndexRunner
    watcher: VaultWatcher | None
    crews: CrewService | None
    clock: Callable[[], datetime] = local_now
    retriever: Retriever | None = None  # says whether anything can be searched yet (the first index)

    @property
    def is_writable(self) -> bool:
        """Return True unless WRITE_BACKEND=none made the vault read-only (then no write tool is offered)."""
        return self.edits.writer is not None


def backend_from_state(state: Any) -> McpBackend:
    """Return the backend over what `app.main.start_services` stored on `app.state`.

    One reader for every MCP session: its parsed-notes cache serves them all, like chat's.
    """
    settings: Settings = state.settings
    reader = VaultReader(settings.vault, state.services.retriever)
    return McpBackend(
        settings=settings,
        reader=reader,
        registry=ToolRegistry(reader),
        edits=state.edits,
        runner=state.index_runner,
        watcher=state.watcher,
        crews=getattr(state, "crews", None),
        retriever=state.services.retriever,
    )
