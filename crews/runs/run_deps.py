"""What a crew run is built from (`CrewDeps`, made once by the wiring) and the error that stops a run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from core.errors import AppError
from core.ports import ChatModel, NoteWriter
from core.settings import CrewSettings, VaultSettings, WriteSettings
from crews.collectors import SearchFunction
from crews.logs.runlog import RunStore
from edits.changelog import SqliteChangeLog
from edits.lock import EditLock


class CrewRunError(AppError):
    """A run cannot start or must stop: no model, a read-only vault, nothing the pipeline can use."""


@dataclass(frozen=True, slots=True)
class CrewDeps:
    """What a run needs from the rest of the service (built once by the wiring, shared by every run)."""

    vault: VaultSettings
    writes: WriteSettings
    crews: CrewSettings
    writer: NoteWriter | None  # None: WRITE_BACKEND=none, so only dry runs
    log: SqliteChangeLog | None  # None: a service that only lists crews and runs
    lock: EditLock
    store: RunStore
    collect_only_store: RunStore  # dry runs without a model: their logs stay under DATA_DIR, out of the vault
    clock: Callable[[], datetime]  # local time: "today" is the user's day
    count_tokens: Callable[[str], int]
    chat_model: ChatModel | None = None
    search: SearchFunction | None = None
    context_tokens: Callable[[], Awaitable[int | None]] | None = None  # the endpoint's window, when it says
    after_write: Callable[[], Awaitable[object]] | None = None  # re-index once the run wrote
