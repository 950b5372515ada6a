"""Ctrl-C and SIGTERM during `librarian crew run`: an abort request the run honours, never a killed run.

A killed run would stay `running` until the next start marks it interrupted. Asked to abort instead, it stops at
its next step (between tasks, or inside the model's reply), ends `aborted` with its run log written, and its
partial writes stay undoable.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def abort_on_signals(request_abort: Callable[[], object]) -> Iterator[None]:
    """Call `request_abort` on SIGINT or SIGTERM while the event loop runs the crew (in this process)."""
    loop = asyncio.get_running_loop()
    handled = []
    for signum in STOP_SIGNALS:
        # Signal handlers can only be set from the main thread (and not at all on Windows): there, the default.
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, request_abort)
            handled.append(signum)
    try:
        yield
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Let SIGTERM raise KeyboardInterrupt as Ctrl-C does (following a server's run, both ask it to abort)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
