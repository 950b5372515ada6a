"""Per-conversation locks: the turns of one conversation run one after another."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field


@dataclass(slots=True)
class _Holder:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # turns holding or waiting for the lock


class ConversationLocks:
    """One asyncio.Lock per conversation id, so turns of a conversation run one after another; idle ones go."""

    def __init__(self) -> None:
        self._holders: dict[str, _Holder] = {}

    def __len__(self) -> int:
        """Return how many conversations have a turn running or waiting."""
        return len(self._holders)

    @asynccontextmanager
    async def hold(self, conversation_id: str) -> AsyncIterator[None]:
        """Wait for the conversation's earlier turns, then hold it for the duration of the block."""
        holder = self._holders.setdefault(conversation_id, _Holder())
        holder.users += 1
        try:
            async with holder.lock:
                yield
        finally:
            holder.users -= 1
            if holder.users == 0:
                del self._holders[conversation_id]
