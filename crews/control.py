"""What a running crew shares with whoever watches it: the abort request and the stream of progress events."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

Event = dict[str, Any]


class RunControl:
    """Abort flag and progress fan-out of one run; watchers subscribe, the run emits, nobody blocks the run."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self._abort = False
        self._finished = False
        self._listeners: list[Callable[[Event], None]] = []
        self._queues: list[asyncio.Queue[Event | None]] = []
        self.last: Event | None = None

    @property
    def is_aborted(self) -> bool:
        """Return True once an abort was requested (observed between tasks and inside the model stream)."""
        return self._abort

    def request_abort(self) -> bool:
        """Ask the run to stop; return False when it had already finished (nothing to abort)."""
        if self._finished:
            return False
        self._abort = True
        self.emit({"type": "abort_requested"})
        return True

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
        """Yield events as they come until the run finishes (starting with the latest one, if any)."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
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
