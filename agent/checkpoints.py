"""Keeping the conversation checkpoints small: the latest checkpoint of each conversation, idle ones expired."""

from __future__ import annotations

from datetime import datetime

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

TURN_AT = "turn_at"  # checkpoint metadata: when the turn ran, in Unix seconds (set from the run's config)

# AsyncSqliteSaver has adelete_thread but no prune, so these statements run on its connection, under its lock.
# Keeping only the newest checkpoint is safe here: the agent's state has plain channels (no DeltaChannel), so
# every checkpoint holds the whole state; checkpoint ids are uuid6, so they sort by time (the saver itself
# takes the newest by `ORDER BY checkpoint_id DESC`).
_DELETE_OLDER_CHECKPOINTS = """
DELETE FROM checkpoints WHERE thread_id = ?1 AND checkpoint_id < (SELECT MAX(c.checkpoint_id) FROM checkpoints AS c
    WHERE c.thread_id = ?1 AND c.checkpoint_ns = checkpoints.checkpoint_ns)
"""
_DELETE_ORPHAN_WRITES = """
DELETE FROM writes WHERE thread_id = ?1 AND NOT EXISTS (SELECT 1 FROM checkpoints AS c
    WHERE c.thread_id = ?1 AND c.checkpoint_ns = writes.checkpoint_ns AND c.checkpoint_id = writes.checkpoint_id)
"""
# A conversation without the metadata (stored before it existed) counts as idle since forever.
_LAST_TURN_AT = f"MAX(COALESCE(json_extract(CAST(metadata AS TEXT), '$.{TURN_AT}'), 0))"
_IDLE_THREADS = f"SELECT thread_id FROM checkpoints GROUP BY thread_id HAVING {_LAST_TURN_AT} < ?"
_THREAD_LAST_TURN_AT = f"SELECT {_LAST_TURN_AT} FROM checkpoints WHERE thread_id = ?"


class SqliteCheckpoints:
    """Prunes and expires the conversations an AsyncSqliteSaver holds."""

    def __init__(self, saver: AsyncSqliteSaver) -> None:
        self._saver = saver

    async def keep_latest(self, thread_id: str) -> None:
        """Delete all but the newest checkpoint of a conversation, with their pending writes."""
        await self._saver.setup()
        async with self._saver.lock, self._saver.conn.cursor() as cursor:
            await cursor.execute(_DELETE_OLDER_CHECKPOINTS, (thread_id,))
            await cursor.execute(_DELETE_ORPHAN_WRITES, (thread_id,))
            await self._saver.conn.commit()

    async def idle_threads(self, before: datetime) -> list[str]:
        """Return the conversations whose last turn ran before `before`."""
        await self._saver.setup()
        async with self._saver.lock, self._saver.conn.execute(_IDLE_THREADS, (before.timestamp(),)) as cursor:
            return [str(row[0]) for row in await cursor.fetchall()]

    async def delete_if_idle(self, thread_id: str, before: datetime) -> bool:
        """Delete a conversation if its last turn still ran before `before`; return whether it was deleted."""
        await self._saver.setup()
        async with self._saver.lock:
            async with self._saver.conn.execute(_THREAD_LAST_TURN_AT, (thread_id,)) as cursor:
                row = await cursor.fetchone()
            if row is None or row[0] is None or row[0] >= before.timestamp():
                return False
        await self._saver.adelete_thread(thread_id)
        return True
