"""Confirm-before-write, decided by code: the turn after proposals (or an undo plan) is read here, not by a model.

`EditGate` wraps any answerer (the agent, retrieval-only mode). Before the wrapped answerer sees a message, the gate
checks the conversation for shown proposals or a shown undo plan: a strict approval applies exactly those, "no"
discards them, anything else discards them and is answered as usual. After a turn that proposed changes, the gate
shows their ids and diffs (composed by code, never by the model) and the turn ends.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import datetime, timedelta

from agent.edits.apply import apply_edits, undo_last
from agent.edits.approval import is_undo_request, parse_approval, select_approved
from agent.edits.changelog import SqliteChangeLog
from agent.edits.lock import EditLock
from agent.edits.proposals import SqliteProposalStore
from agent.edits.replies import (
    NOTHING_PENDING,
    READ_ONLY,
    SEPARATOR,
    apply_report_text,
    discarded_notice,
    markup_closers,
    proposals_block,
    undo_plan_text,
)
from agent.locks import ConversationLocks
from core.chat import AnswerDone, AnswerEvent, AnswerText, TurnRequest
from core.edits import ProposedEdit
from core.errors import AppError
from core.ports import Answerer, NoteWriter
from core.settings import WriteSettings

logger = logging.getLogger(__name__)

AfterWrite = Callable[[], Awaitable[object]]


def latest_user_text(request: TurnRequest) -> str:
    """Return the text of the client's latest user message ("" when there is none)."""
    for message in reversed(request.messages):
        if message.role == "user":
            return message.content.strip()
    return ""


def shown_to_user(request: TurnRequest, pending: Sequence[ProposedEdit]) -> list[ProposedEdit]:
    """Return the pending proposals the user was shown: those whose id is in the client's last assistant message.

    A client that sends no history (only the latest message) is trusted to have shown the last reply.
    """
    replies = [message.content for message in request.messages if message.role == "assistant"]
    if not replies:
        return list(pending)
    return [proposal for proposal in pending if f"`{proposal.id}`" in replies[-1]]


class EditGate:
    """An answerer that applies, discards and undoes changes only on the user's explicit word."""

    def __init__(
        self,
        inner: Answerer,
        *,
        store: SqliteProposalStore,
        log: SqliteChangeLog,
        writer: NoteWriter | None,
        settings: WriteSettings,
        clock: Callable[[], datetime],
        lock: EditLock,
        after_write: AfterWrite | None = None,
    ) -> None:
        self._inner = inner
        self._store = store
        self._log = log
        self._writer = writer
        self._settings = settings
        self._clock = clock
        self._after_write = after_write
        self._lock = lock
        self._locks = ConversationLocks()

    @property
    def mode(self) -> str:
        """Return the wrapped answerer's mode."""
        return self._inner.mode

    async def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        """Decide shown proposals or undo first; otherwise answer as the wrapped answerer does, then show proposals."""
        async with self._locks.hold(request.conversation_id):
            async for event in self._answer(request):
                yield event

    async def _answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        conversation, message, now = request.conversation_id, latest_user_text(request), self._clock()
        notice = ""
        if self._store.has_undo_request(conversation, now):
            decided = await self._answer_undo(conversation, message, now)
            if decided is not None:
                yield AnswerText(decided)
                yield AnswerDone()
                return
            notice = "(The undo was cancelled; nothing was undone.)"
        pending = self._store.pending(conversation, now)
        if pending:
            decided = await self._answer_proposals(request, message, pending, now)
            if decided is not None:
                yield AnswerText(decided)
                yield AnswerDone()
                return
            notice = discarded_notice(self._store.discard_pending(conversation))
            if is_undo_request(message):  # "undo" is a command for code: no model can undo, so it must not go there
                yield AnswerText(notice + SEPARATOR + await self._plan_undo(conversation, now))
                yield AnswerDone()
                return
        elif (reply := await self._without_pending(conversation, message, now)) is not None:
            yield AnswerText(reply)
            yield AnswerDone()
            return
        else:
            self._store.discard_pending(conversation)  # expired ones are no longer waiting either
        if notice:
            yield AnswerText(notice + SEPARATOR)
        shown: list[str] = []
        async for event in self._inner.answer(request):
            if isinstance(event, AnswerText):
                shown.append(event.text)
            elif isinstance(event, AnswerDone):
                closing = await self._after_turn(conversation)
                if closing:
                    closers = markup_closers("".join(shown))
                    yield AnswerText(f"{closers}{SEPARATOR}{closing}" if closers else SEPARATOR + closing)
            yield event

    async def _answer_proposals(
        self, request: TurnRequest, message: str, pending: list[ProposedEdit], now: datetime
    ) -> str | None:
        """Return the reply to an answer about shown proposals, or None when the message is about something else."""
        approval = parse_approval(message)
        if approval.kind == "decline":
            return discarded_notice(self._store.discard_pending(request.conversation_id))
        if not approval.is_approval:
            return None
        shown = shown_to_user(request, pending)
        if not shown:
            self._store.discard_pending(request.conversation_id)
            return "The changes waiting for approval were not shown in this chat, so none was applied."
        chosen = select_approved(approval, shown)
        if not chosen:
            ids = ", ".join(f"`{proposal.id}`" for proposal in shown)
            return f"No shown change has the id you gave; nothing was applied. The changes shown are {ids}."
        return await self._apply(request.conversation_id, chosen, now)

    async def _apply(self, conversation: str, chosen: list[ProposedEdit], now: datetime) -> str:
        if self._writer is None:
            self._store.discard_pending(conversation)
            return READ_ONLY
        try:
            async with self._lock.hold():
                report = await apply_edits(
                    chosen, writer=self._writer, log=self._log, settings=self._settings, now=now, store=self._store
                )
        except AppError as exc:  # writer offline, too many at once: nothing was written, the proposals stay open
            return f"Nothing was applied: {exc.message}. The proposed changes stay open until they expire."
        self._store.discard_pending(conversation)  # the ones not approved by id
        if report.applied:
            await self._reindex()
        return apply_report_text(report)

    async def _without_pending(self, conversation: str, message: str, now: datetime) -> str | None:
        """Answer "undo" and a stray "yes" in code; return None for anything else."""
        if is_undo_request(message):
            return await self._plan_undo(conversation, now)
        if not parse_approval(message).is_approval:
            return None
        latest = self._store.latest(conversation)
        if latest is not None and latest.status in ("pending", "expired") and latest.is_expired(now):
            self._store.discard_pending(conversation)
            return "The proposed change expired before your answer, so nothing was changed. Ask me again for it."
        return NOTHING_PENDING

    async def _plan_undo(self, conversation: str, now: datetime) -> str:
        if self._writer is None:
            return READ_ONLY
        try:
            plan = await undo_last(writer=self._writer, log=self._log, now=now, confirm=False)
        except AppError as exc:
            return f"Cannot plan the undo: {exc.message}"
        if plan.change_set_id is not None:
            ttl = timedelta(minutes=self._settings.proposal_ttl_minutes)
            self._store.request_undo(conversation, plan.change_set_id, now + ttl)
        return undo_plan_text(plan)

    async def _answer_undo(self, conversation: str, message: str, now: datetime) -> str | None:
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

    async def _after_turn(self, conversation: str) -> str:
        """Show the proposals the turn made and end it; with WRITE_CONFIRM=false, apply them at once instead."""
        now = self._clock()
        made = self._store.pending(conversation, now)
        if not made:
            return ""
        if self._settings.confirm:
            return proposals_block(made, now=now)
        logger.warning("WRITE_CONFIRM=false: applying %d proposed change(s) without asking", len(made))
        return await self._apply(conversation, made, now)

    async def _reindex(self) -> None:
        if self._after_write is None:
            return
        try:
            await self._after_write()
        except AppError as exc:  # the change is written; the scheduled re-index picks it up later
            logger.warning("re-indexing after an edit failed: %s", exc.message)
