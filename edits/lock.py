"""One apply or undo at a time, across conversations and processes, so two approvals never interleave.

Each apply re-reads a note, compares its hash and writes it: two of them interleaving (two conversations saying
"yes" at once, or `librarian undo` while the server applies) would let the second write over the first without
noticing. The asyncio lock orders the server's own writes; the file lock under DATA_DIR orders them with the CLI.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path


class EditLock:
    """An exclusive lock for applying and undoing changes (asyncio within the process, flock across processes)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = asyncio.Lock()

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        """Wait for any other apply or undo to finish, then hold the lock for the block."""
        async with self._lock:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                # flock blocks, so it waits in a worker thread; the asyncio lock keeps this process to one waiter.
                await asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)  # closing the descriptor releases the flock
