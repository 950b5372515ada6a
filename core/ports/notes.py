"""The note-writing port: how the edit layer changes the vault."""

from __future__ import annotations

from typing import Protocol


class NoteWriter(Protocol):
    """Changes notes in the vault (the Obsidian Local REST API plugin, or files); paths are vault-relative."""

    @property
    def name(self) -> str:
        """Return "rest" or "files" (shown to the user with each applied change)."""
        ...

    async def is_available(self) -> bool:
        """Return True when writes can go through now (probed each time, never cached for the process)."""
        ...

    async def read(self, path: str) -> str | None:
        """Return the note's text, or None when it does not exist."""
        ...

    async def write(self, path: str, content: str) -> None:
        """Create the note, or replace its whole text (parent folders are created)."""
        ...

    async def delete(self, path: str) -> str:
        """Move the note to the vault's `.trash/` folder (never a hard delete); return its vault path there.

        The returned `.trash/...` path is the one path outside the notes that `read` and `move` (as the source)
        accept, so an undo can check the trashed copy and bring the note back.
        """
        ...

    async def move(self, path: str, new_path: str) -> None:
        """Move or rename the note (the caller rewrites links that pointed at it)."""
        ...
