"""NoteWriter adapters and the factory that picks one from WRITE_BACKEND (auto, rest, files, none)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import InvalidRequest
from core.ports import NoteWriter
from core.settings import WriteSettings
from edits.scope import check_not_denied
from edits.writers.folders import missing_folders, remove_empty_folders

if TYPE_CHECKING:
    from edits.writers.files import FileVaultWriter
    from edits.writers.rest import LocalRestApiWriter


class AutoWriter:
    """Send each call to the Local REST API when the plugin answers now, else to the files; never cached."""

    def __init__(self, rest: LocalRestApiWriter, files: FileVaultWriter) -> None:
        self._rest = rest
        self._files = files
        self._last: NoteWriter | None = None

    @property
    def name(self) -> str:
        """Return the backend the last call went through ("rest" or "files"), or "auto" before any call."""
        return self._last.name if self._last is not None else "auto"

    async def current(self) -> NoteWriter:
        """Probe the plugin and return the writer to use for this one call."""
        self._last = self._rest if await self._rest.is_available() else self._files
        return self._last

    async def is_available(self) -> bool:
        """Return True when either the plugin or the vault folder takes writes now."""
        return await self._rest.is_available() or await self._files.is_available()

    async def read(self, path: str) -> str | None:
        """Return the note's text through the backend available now, or None."""
        return await (await self.current()).read(path)

    async def write(self, path: str, content: str) -> None:
        """Create or replace the note through the backend available now."""
        await (await self.current()).write(path, content)

    async def delete(self, path: str) -> str:
        """Move the note to `.trash/` through the backend available now; return its path there."""
        return await (await self.current()).delete(path)

    async def move(self, path: str, new_path: str) -> None:
        """Move or rename the note through the backend available now."""
        await (await self.current()).move(path, new_path)

    # Folders always go through the files writer: falling back to it at all assumes both write the same vault
    # folder, so the folders a plugin write created are on that disk too, and the plugin cannot delete folders.
    async def missing_folders(self, path: str) -> tuple[str, ...]:
        """Return the folders a write of `path` would create, when the vault folder is reachable (else none)."""
        return await self._files.missing_folders(path) if await self._files.is_available() else ()

    async def remove_empty_folders(self, folders: Sequence[str]) -> tuple[str, ...]:
        """Remove the folders that are empty now, deepest first, through the vault folder; return those removed."""
        return await self._files.remove_empty_folders(folders) if await self._files.is_available() else ()


class DenylistGuard:
    """Refuse, whoever asks, any write, move or delete that touches the fixed denylist (`edits.scope`).

    The last check before the vault: `apply_edits` and crews check scope before they get here, but undo restores
    whatever paths its change log names, so a change set logged before the crew root was denied is refused here.
    """

    def __init__(self, writer: NoteWriter, settings: WriteSettings) -> None:
        self._writer = writer
        self._settings = settings

    @property
    def inner(self) -> NoteWriter:
        """Return the writer behind the guard."""
        return self._writer

    @property
    def name(self) -> str:
        """Return the name of the writer behind the guard ("rest" or "files")."""
        return self._writer.name

    async def is_available(self) -> bool:
        """Return True when the writer behind the guard takes writes now."""
        return await self._writer.is_available()

    async def read(self, path: str) -> str | None:
        """Return the note's text (reads are not the denylist's concern)."""
        return await self._writer.read(path)

    async def write(self, path: str, content: str) -> None:
        """Create or replace the note unless it is in the denylist."""
        check_not_denied(path, settings=self._settings)
        await self._writer.write(path, content)

    async def delete(self, path: str) -> str:
        """Move the note to `.trash/` unless it is in the denylist; return its path there."""
        check_not_denied(path, settings=self._settings)
        return await self._writer.delete(path)

    async def move(self, path: str, new_path: str) -> None:
        """Move the note unless either end is in the denylist (an undo may move a note back out of `.trash/`)."""
        check_not_denied(path, settings=self._settings, allow_trash=True)
        check_not_denied(new_path, settings=self._settings)
        await self._writer.move(path, new_path)

    async def missing_folders(self, path: str) -> tuple[str, ...]:
        """Return the folders a write of `path` would create, when the writer behind can remove them later."""
        return await missing_folders(self._writer, path)

    async def remove_empty_folders(self, folders: Sequence[str]) -> tuple[str, ...]:
        """Remove the folders that are empty now and not in the denylist (skipped, never refused); return those."""
        allowed = [folder for folder in folders if not self._is_denied(folder)]
        return await remove_empty_folders(self._writer, allowed)

    def _is_denied(self, folder: str) -> bool:
        try:
            check_not_denied(folder, settings=self._settings)
        except InvalidRequest:
            return True
        return False


def build_writer(settings: WriteSettings, vault_root: Path) -> NoteWriter | None:
    """Return the writer WRITE_BACKEND asks for, behind the DenylistGuard, or None when the vault is read-only.

    `auto` without OBSIDIAN_API_KEY writes files: the plugin would refuse every request without its key.
    """
    if settings.backend == "none":
        return None
    from edits.writers.files import FileVaultWriter

    files = FileVaultWriter(vault_root)
    key = settings.obsidian_api_key.get_secret_value() if settings.obsidian_api_key else ""
    if settings.backend == "files" or not key:
        if settings.backend == "rest":
            raise InvalidRequest("WRITE_BACKEND=rest needs OBSIDIAN_API_KEY (Obsidian settings > Local REST API)")
        return DenylistGuard(files, settings)
    from edits.writers.rest import LocalRestApiWriter

    rest = LocalRestApiWriter(settings.obsidian_api_url, key)
    return DenylistGuard(rest if settings.backend == "rest" else AutoWriter(rest, files), settings)
