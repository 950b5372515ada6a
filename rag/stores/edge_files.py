"""The files of an edge store beside its shard: the lock that keeps other processes out, and identity.json."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

from core.domain import IndexIdentity
from core.errors import ResourceBusy


def hold_open_lock(path: Path) -> int:
    """Return a descriptor holding `<path>.lock` exclusively, or raise ResourceBusy if another process has it."""
    # Beside the store's folder, not in it: an uninitialised store creates nothing until reset().
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(f"{path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ResourceBusy(
            "qdrant",
            f"the embedded index at {path} is open in another process (only one process may use it; "
            "stop that process, or run this command through it)",
        ) from None
    return fd


def read_identity(file: Path) -> IndexIdentity | None:
    """Return the identity written in `file`, or None when it is missing or unreadable."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # missing or torn: the store counts as uninitialised and the indexer resets it
    model_id, dim = (data.get("model_id"), data.get("dim")) if isinstance(data, dict) else (None, None)
    if not isinstance(model_id, str) or not isinstance(dim, int):
        return None
    return IndexIdentity(model_id=model_id, dim=dim)


def write_identity(file: Path, identity: IndexIdentity) -> None:
    """Write `identity` to `file` atomically (temp file, fsync, replace)."""
    tmp = file.with_suffix(".json.tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        json.dump({"model_id": identity.model_id, "dim": identity.dim}, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, file)
