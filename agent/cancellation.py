"""Iterating an async stream in a task of its own, so that cancelling the consumer always cancels the stream's work.

sse-starlette cancels a disconnected client's response with an anyio cancel scope. anyio cancels again at every
await inside the scope, so LangGraph's clean-up after a CancelledError never completes and the running node (the
model call) goes on streaming into the void. Running the whole stream in one task of our own, cancelled with a
plain `Task.cancel()` when the consumer stops, delivers one ordinary CancelledError that LangGraph handles as
designed. (One task for the whole stream, not one per step: LangGraph's own task groups belong to the task that
started the stream.)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
UNWIND_SECONDS = 5.0  # a cancelled stream only finishes its clean-up (LangGraph's exit checkpoint): this is ample
# Streams still running, cancelled or not: at shutdown the stores must outlast their clean-up.
_running: set[asyncio.Task[None]] = set()


@dataclass(frozen=True, slots=True)
class _End:
    error: Exception | None = None


@dataclass(frozen=True, slots=True)
class _Item(Generic[T]):
    value: T


async def cancellable(stream: AsyncIterator[T]) -> AsyncIterator[T]:
    """Yield what `stream` yields, produced by a task that is cancelled as soon as the consumer stops."""
    queue: asyncio.Queue[_Item[T] | _End] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for value in stream:
                queue.put_nowait(_Item(value))
        except Exception as exc:  # handed to the consumer, which raises it as its own
            queue.put_nowait(_End(exc))
        else:
            queue.put_nowait(_End())

    producer = asyncio.create_task(pump(), name="cancellable-stream")
    _running.add(producer)
    producer.add_done_callback(_running.discard)
    try:
        while True:
            got = await queue.get()
            if isinstance(got, _End):
                if got.error is not None:
                    raise got.error
                return
            yield got.value
    finally:
        producer.cancel()  # synchronous: nothing the consumer's cancel scope can interrupt


async def streams_unwound(timeout: float = UNWIND_SECONDS) -> None:
    """Wait until every stream of this loop has ended, at most `timeout` seconds.

    Call it before closing the stores: a cancelled chat turn still writes its checkpoint as it unwinds, in its own
    task, after the request that started it has ended.
    """
    loop = asyncio.get_running_loop()
    pending = {task for task in _running if task.get_loop() is loop}
    if pending:
        await asyncio.wait(pending, timeout=timeout)
