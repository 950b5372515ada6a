"""What the MCP tools run on: the same reader, index runner, edit services and crews the service built for chat."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from agent.tools import ToolRegistry, VaultReader
from app.wiring import EditServices
from core.settings import Settings
from crews.service import CrewService
from rag.retrieve import Retriever
from sync.index_runner import IndexRunner
from sync.watcher import VaultWatcher

if TYPE_CHECKING:
    from app.http.runtime import Runtime


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


def backend_of(runtime: Runtime) -> McpBackend:
    """Return the backend over what the HTTP app's lifespan started.

    One reader for every MCP session: its parsed-notes cache serves them all, like chat's.
    """
    reader = VaultReader(runtime.settings.vault, runtime.services.retriever)
    return McpBackend(
        settings=runtime.settings,
        reader=reader,
        registry=ToolRegistry(reader),
        edits=runtime.edits,
        runner=runtime.index_runner,
        watcher=runtime.watcher,
        crews=runtime.crews,
        retriever=runtime.services.retriever,
    )
