"""A crew's accepted writes applied through the shared edit path, as part of the run's one change set.

Every write goes through `edits.apply.apply_edits` under the shared EditLock: write-ahead snapshot, change log
entry in the run's change set, read-back, and the staleness check once more (a note edited since its material was
collected is a "conflict", never overwritten). Undo of the run is undo of that change set.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta

from core.edits import ApplyReport, ProposedEdit
from core.ports import NoteWriter
from core.settings import WriteSettings
from crews.model import PlannedWrite
from edits.apply import apply_edits
from edits.changelog import SqliteChangeLog
from edits.lock import EditLock

# A run applies its proposals at once; shown in chat after a dry run, they stay open like the chat's own.
CREW_PROPOSAL_TTL = timedelta(days=365)


def crew_conversation_id(crew: str, run_id: str) -> str:
    """Return the change log's conversation id of a crew run's writes: `crew:<team>:<run id>`."""
    return f"crew:{crew}:{run_id}"


def to_proposals(
    writes: Sequence[PlannedWrite],
    *,
    conversation_id: str,
    now: datetime,
    ttl: timedelta = CREW_PROPOSAL_TTL,
    shown_as_crew: str | None = None,
) -> list[ProposedEdit]:
    """Return the writes as proposals bound to the hash taken at collection (a chat front can show and apply them).

    `shown_as_crew`: the writes of a dry run shown in a chat or MCP client, whose operation names the crew, since
    the conversation does not ("crew Daily-Briefing: section.write (...)").
    """
    return [
        ProposedEdit(
            id=secrets.token_hex(4),
            conversation_id=conversation_id,
            operation=(
                f"crew {shown_as_crew}: {write.action} ({write.summary})"
                if shown_as_crew
                else f"{write.action}: {write.summary}"
            ),
            path=write.path,
            new_path=None,
            base_hash=write.base_hash,
            new_text=write.new_text,
            diff=write.diff,
            created_at=now,
            expires_at=now + ttl,
        )
        for write in writes
    ]


async def apply_planned(
    accepted: Sequence[PlannedWrite],
    *,
    run_id: str,
    crew: str,
    change_set_id: str,
    writer: NoteWriter,
    log: SqliteChangeLog,
    lock: EditLock,
    settings: WriteSettings,
    now: datetime,
    max_writes: int | None = None,
) -> ApplyReport:
    """Apply the writes stage 2 accepted, under the EditLock, into change set `change_set_id`; return the report.

    Args:
        accepted: the writes `crews.writes.guard.check_writes` accepted.
        run_id: the run's id (the change log names the run's writes `crew:<crew>:<run id>`).
        crew: the team's name.
        change_set_id: the run's one change set, shared by all its actions tasks.
        writer: the NoteWriter (files or the Local REST API).
        log: the change log.
        lock: the EditLock every apply and undo takes.
        settings: the write settings (scope and size are checked once more).
        now: the current time.
        max_writes: refuse (nothing written) more writes than this; None: the caller checked the run's limit.

    Raises:
        InvalidRequest: more writes than `max_writes`, or `change_set_id` was undone already (nothing written).
        UpstreamUnavailable: the writer cannot write now (nothing written).

    """
    proposals = to_proposals(accepted, conversation_id=crew_conversation_id(crew, run_id), now=now)
    limit = len(proposals) if max_writes is None else max_writes
    async with lock.hold():
        return await apply_edits(
            proposals,
            writer=writer,
            log=log,
            settings=settings,
            now=now,
            change_set_id=change_set_id,
            max_writes=limit,
        )
