"""Edit test doubles: an in-memory NoteWriter true to the contract, write settings, change logs, a searchless reader."""

from __future__ import annotations

import itertools
from datetime import datetime
from pathlib import Path
from typing import Literal

from agent.tools.reader import VaultReader
from core.domain import SearchFilters, SearchHit
from core.errors import EditConflict, InvalidRequest, NotFound
from core.settings import Settings, WriteSettings
from edits.changelog import SqliteChangeLog

CrashPoint = Literal["before_write", "after_write"]
TRASH = ".trash/"


def _refuse_trash(path: str) -> None:
    # The writers' contract: `.trash/` is readable and a note may be moved out of it, but it is never written.
    if path.startswith(TRASH):
        raise InvalidRequest(f"{path!r}: dot folders and dotfiles (.obsidian, .git, .trash) are never written")


def write_settings(**overrides: object) -> WriteSettings:
    values: dict[str, object] = {
        "backend": "files",
        "obsidian_api_url": "https://127.0.0.1:27124",
        "obsidian_api_key": None,
        "writable_folders": (),
        "private_folders": (),
        "confirm": True,
        "proposal_ttl_minutes": 30,
        "max_writes_per_turn": 10,
        "max_note_bytes": 10_000,
        "crews_root": "_crews",
    }
    values.update(overrides)
    return WriteSettings.model_validate(values)


def open_change_log(data_dir: Path) -> SqliteChangeLog:
    """Open a change log under `data_dir`, laid out as the app lays out DATA_DIR (changes.sqlite, snapshots/)."""
    return SqliteChangeLog(data_dir / "changes.sqlite", data_dir / "snapshots")


class InMemoryNoteWriter:
    """Keep notes in a dict keyed by vault-relative path; `crash` makes the next write fail like a crash."""

    name = "memory"

    def __init__(self, notes: dict[str, str] | None = None, *, available: bool = True) -> None:
        self.notes: dict[str, str] = dict(notes or {})
        self.available = available
        self.crash: CrashPoint | None = None

    async def is_available(self) -> bool:
        return self.available

    async def read(self, path: str) -> str | None:
        return self.notes.get(path)

    async def write(self, path: str, content: str) -> None:
        _refuse_trash(path)
        if self.crash == "before_write":
            raise RuntimeError("simulated crash before the write")
        self.notes[path] = content
        if self.crash == "after_write":
            raise RuntimeError("simulated crash after the write")

    async def delete(self, path: str) -> str:
        _refuse_trash(path)
        if path not in self.notes:
            raise NotFound(f"{path} does not exist")
        folder, _, file = path.rpartition("/")
        stem, _, suffix = file.rpartition(".")
        prefix = f"{TRASH}{folder}/" if folder else TRASH
        names = itertools.chain([prefix + file], (f"{prefix}{stem} {n}.{suffix}" for n in itertools.count(1)))
        target = next(name for name in names if name not in self.notes)
        self.notes[target] = self.notes.pop(path)
        return target

    async def move(self, path: str, new_path: str) -> None:
        _refuse_trash(new_path)
        if path not in self.notes:
            raise NotFound(f"{path} does not exist")
        if new_path in self.notes:
            raise EditConflict(f"{new_path} already exists")
        self.notes[new_path] = self.notes.pop(path)


class NoSearch:
    """The search port for a reader that only write tools use: they never search, so a search is a bug."""

    def search(self, query: str, *, k: int | None = None, filters: SearchFilters | None = None) -> list[SearchHit]:
        raise AssertionError(f"write tools do not search (asked for {query!r}, k={k}, filters={filters})")


def write_tools_reader(vault: Path, now: datetime, *, private: tuple[str, ...] = ("Private",)) -> VaultReader:
    """Return the VaultReader write tools plan against: the vault as it is, `Private` kept private, a fixed clock."""
    settings = Settings(_env_file=None, vault_path=vault, private_folders=private, crews_root="_none").vault
    return VaultReader(settings, NoSearch(), clock=lambda: now)
