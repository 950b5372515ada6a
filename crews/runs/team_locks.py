"""One run per team across processes: the team lock files and, beside them, the abort requests of their runs.

A run holds its team's lock (an `flock` on a file that names the run) until its task ends; another process asks
it to stop by touching the run's abort-request file.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from core.errors import AlreadyRunning
from core.file_locks import is_locked


class CrewBusy(AlreadyRunning):
    """A run of this team is already going (in this process or another)."""

    def __init__(self, crew: str, detail: str) -> None:
        super().__init__(f"crew {crew}: {detail}")


class TeamLocks:
    """The lock of each team and the abort requests of its runs, in one folder."""

    def __init__(self, locks_dir: Path) -> None:
        self._locks_dir = locks_dir

    def abort_path(self, run_id: str) -> Path:
        """Return the file whose presence asks run `run_id` to stop."""
        return self._locks_dir / f"{run_id}.abort"

    def abort_requests(self) -> Iterator[Path]:
        """Yield the abort-request files there are (their stem is the run id)."""
        return self._locks_dir.glob("*.abort")

    def is_held_by(self, crew: str, run_id: str) -> bool:
        """Return True when a process holds the team's lock for this very run."""
        try:
            return self.is_held(crew) and self._lock_path(crew).read_text(encoding="utf-8") == run_id
        except OSError:
            return False

    def _lock_path(self, crew: str) -> Path:
        slug = re.sub(r"[^a-z0-9]+", "-", crew.casefold()).strip("-") or "crew"
        return self._locks_dir / f"{slug}.lock"

    @contextmanager
    def hold(self, crew: str, run_id: str) -> Iterator[None]:
        """Hold the team's lock for run `run_id`, or raise CrewBusy when a run of the team is going."""
        self._locks_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._lock_path(crew), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise CrewBusy(crew, "a run of this crew is still going; wait for it or abort it") from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, run_id.encode(), 0)
            yield
        finally:
            os.close(fd)

    def is_held(self, crew: str) -> bool:
        """Return True when some process holds the team's lock."""
        return is_locked(self._lock_path(crew))
