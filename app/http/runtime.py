"""What the lifespan started for serving, as one typed object on `app.state.runtime`.

Routes, pages and the MCP endpoint reach it through `app.http.deps` (`RuntimeDep`, `runtime_of`), never through
loose `app.state` attributes, so a missing or misspelt part is a type error, not an AttributeError at request time.
"""

from __future__ import annotations

from dataclasses import dataclass

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from agent.prompt_cache import WarmUp
from agent.tool_use import ToolUse
from app.http.probes import ProbeSlots
from app.process.ownership import DataDirOwnership
from app.wiring import EditServices, Services
from core.ports import Answerer, ChatModel
from core.settings import Settings
from crews.schedule import CrewSchedule
from crews.service import CrewService
from sync.index_runner import IndexRunner
from sync.watcher import VaultWatcher


@dataclass(frozen=True, slots=True)
class Runtime:
    """The running service: stores, index runner, edit layer, crews and the answerer, built once per app start."""

    settings: Settings
    ownership: DataDirOwnership
    services: Services
    index_runner: IndexRunner
    index_scheduler: AsyncIOScheduler  # the index page and /v1/index/status tell its next run
    watcher: VaultWatcher | None  # None unless SYNC_WATCH
    edits: EditServices
    crews: CrewService
    crew_schedule: CrewSchedule
    tool_use: ToolUse  # what the model does with tools; /ready shows it
    warm_up: WarmUp  # where the model's start-up warm-up stands; /ready shows it
    chat_model: ChatModel | None  # None: retrieval-only mode
    answerer: Answerer
    ready_probes: ProbeSlots
