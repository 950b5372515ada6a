"""NoteWriter adapters and the factory that picks one from WRITE_BACKEND (auto, rest, files, none)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import InvalidRequest
from core.ports import NoteWriter
from core.settings import WriteSettings
from edits.scope import check_not_denied

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
