"""One owner per DATA_DIR: an flock on `DATA_DIR/owner.lock`, whose text says who holds it and how to reach it.

The embedded vector store must never be opened by two processes (a second `EdgeShard.load` damages the files of
the first), and two re-indexers on one index would undo each other's work. So exactly one process (a
`librarian serve`, or one CLI command while no server runs) owns a DATA_DIR at a time. The lock is an flock, so
it is released when the process ends however it ends (kill -9 included): there are no stale locks to clean up.
The file's text (JSON, mode 0600) tells other processes who holds it and, for a server, its URL and a local
token it accepts, so CLI commands can go through that server instead of opening the stores themselves.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from app.process.data_dir_vault import claim_vault
from core.errors import ResourceBusy
from core.file_locks import is_locked
from core.settings import ServerSettings

OWNER_FILE = "owner.lock"
# A holder writes its text right after taking the lock; a reader that finds it empty waits this long for it.
_TEXT_WAIT_SECONDS = 2.0
_LOCK_TRIES = 5


@dataclass(frozen=True, slots=True)
class Owner:
    """Who holds a DATA_DIR: the process, the command, the vault it serves and, for a server, how to reach it."""

    pid: int
    command: str  # "serve", "index", "status" ...
    vault: str
    started_at: str
    url: str | None = None  # a server's API, e.g. http://127.0.0.1:8000
    token: str | None = None  # a bearer the server accepts besides API_KEY (the file is readable by its user only)

    @property
    def is_server(self) -> bool:
        """Return True when the holder is a running service that answers HTTP."""
        return self.url is not None

    def describe(self) -> str:
        """Return e.g. "`librarian serve` (pid 4242) on http://127.0.0.1:8000"."""
        where = f" on {self.url}" if self.url else ""
        return f"`librarian {self.command}` (pid {self.pid}){where}"


class DataDirTaken(ResourceBusy):
    """Another process owns the DATA_DIR."""

    def __init__(self, data_dir: Path, owner: Owner | None) -> None:
        holder = owner.describe() if owner else "another process"
        super().__init__("DATA_DIR", f"{data_dir} is in use by {holder}")
        self.message = f"DATA_DIR {data_dir} is in use by {holder}"
        self.owner = owner


class DataDirOwnership:
    """Hold a DATA_DIR for this process; `release()` (or the end of the process) gives it up."""

    def __init__(self, fd: int, data_dir: Path, owner: Owner) -> None:
        self._fd: int | None = fd
        self.data_dir = data_dir
        self.owner = owner

    @classmethod
    def acquire(
        cls, data_dir: Path, command: str, *, vault: Path, url: str | None = None, switch_vault: bool = False
    ) -> DataDirOwnership:
        """Take DATA_DIR for `command`, or raise DataDirTaken naming the holder; a server also gets a local token.

        Raises:
            DataDirTaken: another process holds it.
            VaultMismatch: its index belongs to another vault (unless `switch_vault`: app/process/data_dir_vault.py).

        """
        data_dir.mkdir(parents=True, exist_ok=True)
        path = data_dir / OWNER_FILE
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        if not _lock_exclusive(fd):
            os.close(fd)
            raise DataDirTaken(data_dir, read_owner(data_dir))
        try:
            claim_vault(data_dir, vault, switch=switch_vault)
        except BaseException:
            os.close(fd)  # gives the lock up: nothing was taken
            raise
        owner = Owner(
            pid=os.getpid(),
            command=command,
            vault=str(vault.expanduser().resolve()),
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            url=url,
            token=secrets.token_urlsafe(32) if url else None,
        )
        os.fchmod(fd, 0o600)  # an older file may have been created with other permissions
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(asdict(owner)).encode(), 0)
        return cls(fd, data_dir, owner)

    def release(self) -> None:
        """Give the DATA_DIR up (the text stays, but a free lock means nobody holds it); safe to call twice."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing the descriptor releases the flock


def read_owner(data_dir: Path) -> Owner | None:
    """Return who holds DATA_DIR now, or None when nobody does (never takes the lock)."""
    path = data_dir / OWNER_FILE
    deadline = time.monotonic() + _TEXT_WAIT_SECONDS
    while True:
        if not is_held(data_dir):
            return None
        try:
            owner = _parse_owner(path.read_text(encoding="utf-8"))
        except OSError:
            return None
        if owner is not None or time.monotonic() > deadline:
            return owner
        time.sleep(0.05)  # held, but its holder has not written its text yet


def is_held(data_dir: Path) -> bool:
    """Return True when some process holds DATA_DIR's lock (probed with a shared lock, released at once)."""
    return is_locked(data_dir / OWNER_FILE)


def _lock_exclusive(fd: int) -> bool:
    # A few tries: `is_held` in another process holds a shared lock for an instant, which must not look like an owner.
    for attempt in range(_LOCK_TRIES):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if attempt + 1 < _LOCK_TRIES:
                time.sleep(0.05)
            continue
        return True
    return False


def _parse_owner(text: str) -> Owner | None:
    try:
        data = json.loads(text)
        return Owner(**data) if isinstance(data, dict) else None
    except (ValueError, TypeError):
        return None


def service_url(settings: ServerSettings) -> str:
    """Return the URL other processes on this machine reach the service at (loopback for a wildcard bind)."""
    host = settings.host.strip("[]")
    if host in ("", "0.0.0.0"):  # a wildcard bind is reached through loopback
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{settings.port}" if ":" in host else f"http://{host}:{settings.port}"
