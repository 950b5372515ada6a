"""The writes the edit gate makes on the user's word: applying approved proposals, planning and confirming an undo."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta

from agent.gate.approval import parse_approval
from core.edits import ProposedEdit
from core.errors import AppError
from core.ports import NoteWriter
from core.settings import WriteSettings
from edits.apply import apply_edits
from edits.changelog import SqliteChangeLog
from edits.lock import EditLock
from edits.messages.reports import READ_ONLY, apply_report_text, undo_plan_text
from edits.proposals import SqliteProposalStore
from edits.undo import plan_undo, undo_last

logger = logging.getLogger(__name__)

AfterWrite = Callable[[], Awaitable[object]]


class VaultWrites:
    """Applies and undoes changes under the edit lock, re-indexing after each write; `EditGate` decides when."""

    def __init__(
        self,
        *,
        store: SqliteProposalStore,
        log: SqliteChangeLog,
        writer: NoteWriter | None,
        settings: WriteSettings,
        lock: EditLock,
        after_write: AfterWrite | None = None,
    ) -> None:
        self._store = store
        self._log = log
        self._writer = writer
        self._settings = settings
        self._after_write = after_write
        self._lock = lock

    async def apply(self, chosen: list[ProposedEdit], now: datetime) -> tuple[str, bool]:
        """Apply the approved proposals; return the report and whether applying was attempted at all."""
        if self._writer is None:
            self.discard(chosen)
            return READ_ONLY, False
        try:
            async with self._lock.hold():
                report = await apply_edits(
                    chosen, writer=self._writer, log=self._log, settings=self._settings, now=now, store=self._store
                )
        except AppError as exc:  # writer offline, too many at once: nothing was written, the proposals stay open
            return f"Nothing was applied: {exc.message}. The proposed changes stay open until they expire.", False
        if report.applied:
            await self._reindex()
        return apply_report_text(report), True

    def discard(self, proposals: Sequence[ProposedEdit]) -> list[ProposedEdit]:
        """Mark these proposals discarded; return those that were still waiting."""
        return self._store.discard([proposal.id for proposal in proposals])

    async def plan_undo(self, conversation: str, now: datetime) -> str:
        """Plan undoing the vault's last change, to be confirmed in this conversation; return the plan's text."""
        if self._writer is None:
            return READ_ONLY
        try:
            plan = await plan_undo(writer=self._writer, log=self._log, now=now, lock=self._lock)
        except AppError as exc:
            return f"Cannot plan the undo: {exc.message}"
        if plan.change_set_id is not None and plan.has_writes:  # nothing to confirm otherwise
            ttl = timedelta(minutes=self._settings.proposal_ttl_minutes)
            self._store.request_undo(conversation, plan.change_set_id, now + ttl)
        return self._origin(plan.change_set_id, conversation, now) + undo_plan_text(plan)

    def _origin(self, change_set_id: str | None, conversation: str, now: datetime) -> str:
        """Say so when the change to undo was made elsewhere: undo reverts the vault's last change, not the chat's."""
        entries = self._log.last_change_set()
        if change_set_id is None or not entries or entries[0].change_set_id != change_set_id:
            return ""
        first = entries[0]
        if first.conversation_id == conversation:
            return ""
        when = first.at.astimezone(now.tzinfo).strftime("%Y-%m-%d %H:%M")
        return f"(The last change to the vault was made outside this chat, at {when}.)\n"

    async def answer_undo(self, conversation: str, message: str, now: datetime) -> str | None:
        """Return the reply to an answer about the shown undo plan (undoing on a yes), or None for anything else."""
        approval = parse_approval(message)
        change_set = self._store.take_undo_request(conversation, now)
        if approval.kind == "decline":
            return "Kept the change; nothing was undone."
        if not approval.is_approval or approval.ids or change_set is None or self._writer is None:
            return None
        try:
            async with self._lock.hold():
                plan = await undo_last(writer=self._writer, log=self._log, now=now, confirm=True, expected=change_set)
        except AppError as exc:
            return f"Nothing was undone: {exc.message}"
        await self._reindex()
        return undo_plan_text(plan)

    async def _reindex(self) -> None:
        if self._after_write is None:
            return
        try:
            await self._after_write()
        except AppError as exc:  # the change is written; the scheduled re-index picks it up later
            logger.warning("re-indexing after an edit failed: %s", exc.message)
