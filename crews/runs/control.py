"""What a running crew shares with whoever watches it: the abort request and the stream of progress events.

An abort is asked for in this process (`request_abort`) or by another one, which creates the run's abort-request
file (`librarian crew abort` while a `librarian crew run` holds DATA_DIR): no lock is needed to ask.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

Event = dict[str, Any]


class RunControl:
    """Abort flag and progress fan-out of one run; watchers subscribe, the run emits, nobody blocks the run."""

    def __init__(self, run_id: str, *, abort_file: Path | None = None) -> None:
        self.run_id = run_id
        self._abort_file = abort_file  # another process asks this run to stop by creating it
        self._abort = False
        self._finished = False
        self._listeners: list[Callable[[Event], None]] = []
        self._queues: list[asyncio.Queue[Event | None]] = []
        self.last: Event | None = None

    @property
    def is_aborted(self) -> bool:
        """Return True once an abort was requested, here or through the abort-request file (looked at each time)."""
        if not self._abort and not self._finished and self._abort_file is not None and self._abort_file.exists():
            self._abort = True
            self.emit({"type": "abort_requested"})
        return self._abort

    def request_abort(self) -> bool:
        """Ask the run to stop; return False when it had already finished (nothing to abort)."""
        if self._finished:
            return False
        self._abort = True
        self.emit({"type": "abort_requested"})
        return True

    def close(self) -> bool:
        """Refuse aborts from now on (the run is past its last checkpoint); return True if one was requested."""
        was_requested = self.is_aborted
        self._finished = True
        if self._abort_file is not None:
            self._abort_file.unlink(missing_ok=True)
        return was_requested

    def listen(self, callback: Callable[[Event], None]) -> None:
        """Call `callback` with every event from now on (e.g. the CLI's live display)."""
        self._listeners.append(callback)

    def emit(self, event: Event) -> None:
        """Send an event to every listener and subscriber."""
        event = {"run": self.run_id, **event}
        self.last = event
        for callback in list(self._listeners):
            callback(event)
        for queue in list(self._queues):
            queue.put_nowait(event)

    def finish(self, event: Event) -> None:
        """Send the last event (the run's outcome) and end every subscription."""
        self.emit(event)
        self._finished = True
        for queue in list(self._queues):
            queue.put_nowait(None)

    async def events(self) -> AsyncIterator[Event]:
        """Yield events as they come until the run finishes (starting with the latest one, if any).

        A follower joining after an abort was requested learns it first, whatever came since: the CLI that asked
        for it on Ctrl-C follows the run again, and a "tokens" event between its request and its new subscription
        hid the request from it (seen under load in tests/integration/test_crew_abort.py).
        """
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        if self._abort and (self.last is None or self.last.get("type") != "abort_requested"):
            queue.put_nowait({"run": self.run_id, "type": "abort_requested"})
        if self.last is not None:
            queue.put_nowait(self.last)
        if self._finished:
            queue.put_nowait(None)
        self._queues.append(queue)
        try:
            while (event := await queue.get()) is not None:
                yield event
        finally:
            with contextlib.suppress(ValueError):
                self._queues.remove(queue)
