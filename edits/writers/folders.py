"""The folders a write creates for its note, and their removal by undo: a capability only some writers have.

Not every `NoteWriter` can do this: the Obsidian Local REST API plugin cannot delete folders (DELETE on `dir/` is
405/40510), so `LocalRestApiWriter` leaves it out, and a change applied through it records no folders. Apply and
undo ask through `missing_folders` and `remove_empty_folders` here, which answer "none" for such a writer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from core.ports import NoteWriter


@runtime_checkable
class FolderWriter(Protocol):
    """A NoteWriter that can tell which folders a write would create, and remove them again once empty."""

    async def missing_folders(self, path: str) -> tuple[str, ...]:
        """Return the folders above the note `path` that do not exist yet, outermost first (vault-relative)."""
        ...

    async def remove_empty_folders(self, folders: Sequence[str]) -> tuple[str, ...]:
        """Remove each folder that is empty now, deepest first; return those removed (a failure keeps the folder)."""
        ...


async def missing_folders(writer: NoteWriter, path: str) -> tuple[str, ...]:
    """Return the folders a write of the note `path` would create, or () when the writer cannot remove them later."""
    if isinstance(writer, FolderWriter):
        return await writer.missing_folders(path)
    return ()


async def remove_empty_folders(writer: NoteWriter, folders: Sequence[str]) -> tuple[str, ...]:
    """Remove the folders that are empty now, deepest first, when the writer can; return those removed."""
    if folders and isinstance(writer, FolderWriter):
        return await writer.remove_empty_folders(folders)
    return ()


def parent_folders(path: str) -> tuple[str, ...]:
    """Return the folders holding the note `path`, outermost first: `A/B/n.md` gives `("A", "A/B")`."""
    parts = path.split("/")[:-1]
    return tuple("/".join(parts[: depth + 1]) for depth in range(len(parts)))


def deepest_first(folders: Sequence[str]) -> list[str]:
    """Return `folders` ordered so that a folder comes before every folder that holds it."""
    return sorted(set(folders), key=lambda folder: folder.count("/"), reverse=True)
