"""Vault path safety shared by the writers: relative paths only, no traversal, no dot folders, no escapes."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

from core.errors import InvalidRequest

TRASH_FOLDER = ".trash"
_DRIVE = re.compile(r"^[A-Za-z]:")


def check_vault_path(path: str, *, allow_trash: bool = False) -> str:
    """Return `path` when it is a safe vault-relative note path, else raise InvalidRequest.

    Args:
        path: a vault-relative path with `/` separators.
        allow_trash: accept a path inside `.trash/` (only the writers' own delete-to-trash uses it).

    """
    if not path or "\x00" in path:
        raise InvalidRequest("the note path is empty or contains a NUL character")
    if "\\" in path:
        raise InvalidRequest(f"{path!r}: use '/' in vault paths, not backslashes")
    if path.startswith("/") or _DRIVE.match(path):
        raise InvalidRequest(f"{path!r}: absolute paths are refused; give a path relative to the vault")
    segments = path.split("/")
    for index, segment in enumerate(segments):
        if segment in ("", ".", ".."):
            raise InvalidRequest(f"{path!r}: empty, '.' and '..' segments are refused (path outside the vault)")
        is_own_trash = allow_trash and index == 0 and segment == TRASH_FOLDER and len(segments) > 1
        if segment.startswith(".") and not is_own_trash:
            raise InvalidRequest(f"{path!r}: dot folders and dotfiles (.obsidian, .git, .trash) are never written")
    return path


def resolve_in_vault(vault_root: Path, path: str, *, allow_trash: bool = False) -> Path:
    """Return the filesystem path of a vault note, refusing any path that goes through a symlink.

    A symlink even inside the vault is refused: `Inbox/cfg.md -> ../.obsidian/app.json` or a link into a private
    folder would let a harmless-looking path change what the scope rules protect. The index skips symlinks too.
    """
    check_vault_path(path, allow_trash=allow_trash)
    root = vault_root.resolve()
    target = root / path
    real = target.resolve()
    if not real.is_relative_to(root) or real == root:
        raise InvalidRequest(f"{path!r} leads outside the vault (through a symlink); refused")
    if real != target:
        raise InvalidRequest(f"{path!r} goes through a symlink; symlinked notes and folders are never read or written")
    return target


def trash_candidates(path: str) -> Iterator[str]:
    """Yield the trash names to try in order: `.trash/<path>`, then `.trash/<stem> 1<suffix>`, `... 2`, ..."""
    folder, _, name = path.rpartition("/")
    stem, dot, suffix = name.rpartition(".")
    if not stem:  # no extension, or a dotless name
        stem, dot, suffix = name, "", ""
    prefix = f"{TRASH_FOLDER}/{folder}/" if folder else f"{TRASH_FOLDER}/"
    yield prefix + name
    for number in itertools.count(1):
        yield f"{prefix}{stem} {number}{dot}{suffix}"
