"""FileVaultWriter: notes changed directly on disk, atomically (temp file, fsync, os.replace), inside the vault."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path

from core.errors import EditConflict, InvalidRequest, NotFound, UpstreamUnavailable
from edits.writers.folders import deepest_first, parent_folders
from edits.writers.paths import TRASH_FOLDER, resolve_in_vault, trash_candidates

NEW_FILE_MODE = 0o644  # mkstemp creates 0600; a new note should be readable like one Obsidian creates


def read_exact_text(root: Path, path: str, *, allow_trash: bool = False) -> str | None:
    """Return a note's exact text (line endings kept) inside `root`, or None when it does not exist.

    Proposals hash what this returns and the writer re-reads with it, so both sides see the same bytes.
    `allow_trash` also reads `.trash/...` (the writer's own trashed copies, checked before an undo brings one back).
    """
    target = resolve_in_vault(root, path, allow_trash=allow_trash)
    try:
        with open(target, encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError as exc:
        raise InvalidRequest(f"{path!r} is a folder, not a note") from exc
    except UnicodeDecodeError as exc:
        raise InvalidRequest(f"{path!r} is not UTF-8 text") from exc
    except OSError as exc:
        raise UpstreamUnavailable("vault", f"could not read {path}: {exc.strerror}") from exc


class FileVaultWriter:
    """Write notes as files in the vault folder; deletes go to `<vault>/.trash/`, never unlinked."""

    def __init__(self, vault_root: Path) -> None:
        self._root = vault_root

    @property
    def name(self) -> str:
        """Return "files"."""
        return "files"

    async def is_available(self) -> bool:
        """Return True when the vault folder exists and is writable."""
        return self._root.is_dir() and os.access(self._root, os.W_OK | os.X_OK)

    async def read(self, path: str) -> str | None:
        """Return the note's exact text (line endings kept), or None; `.trash/...` paths are readable too."""
        return read_exact_text(self._root, path, allow_trash=True)

    async def write(self, path: str, content: str) -> None:
        """Create or replace the note atomically, creating parent folders and keeping its permission bits."""
        target = resolve_in_vault(self._root, path)
        if target.is_dir():
            raise InvalidRequest(f"{path!r} is a folder, not a note")
        try:
            await asyncio.to_thread(write_atomically, target, content)
        except OSError as exc:
            raise UpstreamUnavailable("vault", f"could not write {path}: {exc.strerror or exc}") from exc

    async def delete(self, path: str) -> str:
        """Move the note to `.trash/<path>` (" 1", " 2" ... added when that name is taken); return that path."""
        source = resolve_in_vault(self._root, path)
        if not source.is_file():
            raise NotFound(f"{path} does not exist in the vault")
        for candidate in trash_candidates(path):
            destination = resolve_in_vault(self._root, candidate, allow_trash=True)
            if not destination.exists():
                break
        try:
            await asyncio.to_thread(_rename, source, destination)
        except OSError as exc:
            raise UpstreamUnavailable("vault", f"could not move {path} to the trash: {exc.strerror}") from exc
        return candidate

    async def move(self, path: str, new_path: str) -> None:
        """Rename the note within the vault, or out of `.trash/`; an existing target is never overwritten."""
        source = resolve_in_vault(self._root, path, allow_trash=True)
        destination = resolve_in_vault(self._root, new_path)
        if not source.is_file():
            raise NotFound(f"{path} does not exist in the vault")
        # On a case-insensitive disk "Note.md" -> "note.md" finds itself; that rename is allowed.
        if destination.exists() and not os.path.samefile(source, destination):
            raise EditConflict(f"{new_path} already exists; refusing to overwrite it")
        try:
            await asyncio.to_thread(_rename, source, destination)
        except OSError as exc:
            raise UpstreamUnavailable("vault", f"could not move {path} to {new_path}: {exc.strerror}") from exc
        if path.startswith(f"{TRASH_FOLDER}/"):
            # Bringing a note back (undo of a delete) should leave the trash as it was before that delete, not a
            # trail of empty `.trash/<folders>`. Outside the trash an empty folder may be the user's own structure.
            await asyncio.to_thread(_remove_emptied_trash_folders, source.parent, depth=path.count("/") - 1)

    async def missing_folders(self, path: str) -> tuple[str, ...]:
        """Return the folders above the note `path` that do not exist yet (a write creates them), outermost first."""
        resolve_in_vault(self._root, path)
        return tuple(folder for folder in parent_folders(path) if not (self._root / folder).exists())

    async def remove_empty_folders(self, folders: Sequence[str]) -> tuple[str, ...]:
        """Remove each folder that is empty now, deepest first; return those removed.

        Undo calls this with the folders a change created for its note. Outside the trash an empty folder may be
        the user's own structure, so only these are removed, and only while empty: `os.rmdir` refuses a folder
        that holds anything, and a folder failing the vault-path rules (a dot folder, a symlink, outside the
        vault) is skipped. Either way the folder only stays behind, which is not an error.
        """
        return await asyncio.to_thread(_remove_empty_folders, self._root, deepest_first(folders))


def write_atomically(target: Path, content: str) -> None:
    """Write `content` to a temp file beside `target`, fsync it, os.replace it over `target`, fsync the folder.

    A crash or error at any point leaves either the old note or the new one, never a torn file or a temp file.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    # A dot-prefixed temp name: Obsidian ignores it, so the half-written file never shows up as a note.
    descriptor, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    _fsync_folder(target.parent)


def _rename(source: Path, destination: Path) -> None:
    destination.parent.mkdir(parents=True, exist_ok=True)
    os.rename(source, destination)
    _fsync_folder(destination.parent)
    if source.parent != destination.parent:
        _fsync_folder(source.parent)


def _remove_emptied_trash_folders(folder: Path, *, depth: int) -> None:
    """Remove `folder` and up to `depth - 1` of its parents while they are empty; `.trash` itself is never removed.

    `depth` counts the folders between `.trash/` and the note, so the walk can never climb to `.trash` or above.
    `os.rmdir` refuses a folder that is not empty, so a note Obsidian trashes meanwhile is never lost; any failure
    only leaves a folder behind, and the note is already back, so it is not an error.
    """
    for _ in range(depth):
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = folder.parent


def _remove_empty_folders(root: Path, folders: Sequence[str]) -> tuple[str, ...]:
    removed: list[str] = []
    for folder in folders:
        try:
            os.rmdir(resolve_in_vault(root, folder))
        except (InvalidRequest, OSError):
            continue
        removed.append(folder)
    return tuple(removed)


def _fsync_folder(folder: Path) -> None:
    # Makes the rename itself durable; some filesystems (and Windows) cannot open a folder, which is fine.
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(descriptor)
    finally:
        os.close(descriptor)
