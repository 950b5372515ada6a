"""Whether another process holds a lock file (`flock`), asked without waiting and without disturbing its holder."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def is_locked(path: Path) -> bool:
    """Return True when some process holds an exclusive `flock` on `path` (probed with a shared lock, released at once).

    A shared lock fails only while someone holds the exclusive one, so the probe never blocks the holder's own work;
    a file that does not exist is held by no one.
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
