"""The vault as the read tools see it now: files scanned per call, notes re-parsed only when their stat changes."""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Protocol

from agent.tools.snapshot import VaultSnapshot, build_snapshot
from core.domain import Note, SearchFilters, SearchHit
from core.errors import InvalidRequest, NotFound
from core.settings import VaultSettings
from rag.notes.markdown import parse_note
from rag.notes.obsidian_config import (
    FALLBACK_TEMPLATES_FOLDER,
    DailyNotesConfig,
    TemplateFormats,
    configured_templates_folder,
    daily_notes_config,
    new_note_folder,
    template_formats,
)
from rag.notes.vault import FileStat, check_vault_path, read_note_text, scan_vault


class NoteSearch(Protocol):
    """Hybrid search over the index (`rag.retrieve.Retriever` satisfies it)."""

    def search(self, query: str, *, k: int | None = None, filters: SearchFilters | None = None) -> list[SearchHit]:
        """Return the best `k` chunks for `query`, best first."""
        ...


def local_now() -> datetime:
    """Return the current local time (the production clock: "today" is the user's day, not UTC's)."""
    return datetime.now().astimezone()


class VaultReader:
    """Read the current vault for the agent's tools; never writes, never leaves the vault."""

    def __init__(
        self,
        vault: VaultSettings,
        search: NoteSearch,
        *,
        clock: Callable[[], datetime] = local_now,
        rng: random.Random | None = None,
    ) -> None:
        self._vault = vault
        self._search = search
        self._clock = clock
        self.rng = rng or random.Random()
        self._lock = threading.Lock()
        self._parsed: dict[str, tuple[FileStat, Note]] = {}
        self._snapshot: VaultSnapshot | None = None

    @property
    def root(self) -> Path:
        """Return the vault folder, resolved (InvalidRequest when it is missing or unreadable)."""
        return check_vault_path(self._vault.path)

    @property
    def redacts_secrets(self) -> bool:
        """Return True when credentials in note text are masked in what the tools show (REDACT_SECRETS)."""
        return self._vault.redact_secrets

    def today(self) -> date:
        """Return today's date by the injected clock."""
        return self._clock().date()

    def now(self) -> datetime:
        """Return the current time by the injected clock (templates' {{time}})."""
        return self._clock()

    def search(self, query: str, *, k: int, filters: SearchFilters) -> list[SearchHit]:
        """Return the best `k` indexed passages for `query` within `filters`."""
        return self._search.search(query, k=k, filters=None if filters.is_empty else filters)

    def snapshot(self) -> VaultSnapshot:
        """Return the vault as it is now; unchanged notes keep their parse, an unchanged vault its snapshot."""
        scan = scan_vault(self._vault)
        other_files = tuple(sorted(scan.other_files))
        with self._lock:  # tool calls run in worker threads; one refresh at a time keeps the cache coherent
            current = self._snapshot
            if current is not None and current.stats == scan.notes and current.other_files == other_files:
                return current
            parsed = {path: self._parse(scan.root, path, stat) for path, stat in scan.notes.items()}
            self._parsed = {path: (scan.notes[path], note) for path, note in parsed.items()}
            self._snapshot = build_snapshot(scan.root, parsed, dict(scan.notes), other_files)
            return self._snapshot

    def _parse(self, root: Path, path: str, stat: FileStat) -> Note:
        cached = self._parsed.get(path)
        if cached is not None and cached[0] == stat:
            return cached[1]
        title = Path(path).stem
        if stat.size > self._vault.max_note_bytes:
            return Note(path=path, title=title, warnings=(f"larger than MAX_NOTE_BYTES ({stat.size} bytes)",))
        try:
            _, text, _ = read_note_text(root, path)
        except OSError as exc:
            return Note(path=path, title=title, warnings=(f"not readable: {exc.strerror or exc}",))
        return parse_note(path, text)

    def read_text(self, snapshot: VaultSnapshot, path: str) -> str:
        """Return the current text of a vault file, refusing anything that resolves outside the vault."""
        full = snapshot.root / path
        if not Path(os.path.realpath(full)).is_relative_to(snapshot.root):
            raise InvalidRequest(f"'{path}' leads outside the vault; it is not read")
        try:
            _, text, _ = read_note_text(snapshot.root, path)
        except FileNotFoundError as exc:
            raise NotFound(f"'{path}' no longer exists") from exc
        except OSError as exc:
            raise NotFound(f"'{path}' cannot be read: {exc.strerror or exc}") from exc
        return text

    def daily_notes_config(self, snapshot: VaultSnapshot) -> DailyNotesConfig:
        """Return the Daily notes plugin's folder, format and template (root, YYYY-MM-DD and none by default)."""
        return daily_notes_config(snapshot.root, snapshot.notes)  # the notes listed: no second walk of the vault

    def template_formats(self, snapshot: VaultSnapshot) -> TemplateFormats:
        """Return the Templates plugin's date and time formats (YYYY-MM-DD and HH:mm by default)."""
        return template_formats(snapshot.root)

    def new_note_folder(self, snapshot: VaultSnapshot) -> str:
        """Return the folder for new notes (Obsidian's "Default location for new notes"; "" = the root)."""
        return new_note_folder(snapshot.root)

    def templates_folder(self, snapshot: VaultSnapshot) -> str:
        """Return the Templates plugin's folder, else a top-level "Templates" folder, else raise NotFound."""
        folder = configured_templates_folder(snapshot.root)
        if folder is not None:
            return folder
        if snapshot.folder_exists(FALLBACK_TEMPLATES_FOLDER):
            return FALLBACK_TEMPLATES_FOLDER
        raise NotFound("no templates folder is configured (Settings > Templates > Template folder location)")
