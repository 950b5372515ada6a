"""Confirm-before-write, decided by code: the turn after proposals (or an undo plan) is read here, not by a model.

`EditGate` wraps any answerer (the agent, retrieval-only mode). Before the wrapped answerer sees a message, the gate
checks the conversation for shown proposals or a shown undo plan: a strict approval applies exactly those, "no"
discards them, anything else discards them and is answered as usual; a correction of the proposal ("reading,
not books") is answered as the earlier request with the value swapped (agent/gate/correction.py). After a turn
that proposed changes, the gate shows their ids and diffs (composed by code, never by the model) and the turn ends.

Whether the turn's user message asked for a change is decided here, by code: proposals nobody asked for open with a
warning, and a delete or move nobody asked for needs "yes delete" / "yes move" (a plain yes applies nothing). The
model's text above passes through an `ImitationGuard`, so it cannot fake the gate's warning or ask for a yes itself.

What the user's word sets off (applying, discarding, undoing, re-indexing) is `VaultWrites` (vault_writes.py).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime

from agent.chat_app_tasks import is_chat_app_task, latest_user_text
from agent.gate.approval import (
    approval_words,
    is_undo_request,
    missing_words,
    parse_approval,
    select_approved,
    words_needed,
)
from agent.gate.correction import corrected_turn
from agent.gate.intent import asked_change
from agent.gate.model_text import ImitationGuard, markup_closers
from agent.gate.replies import (
    SEPARATOR,
    auto_applied_block,
    discarded_notice,
    nothing_pending_text,
    proposals_block,
    words_refusal,
)
from agent.gate.vault_writes import AfterWrite, VaultWrites
from agent.locks import ConversationLocks
from core.chat import AnswerDone, AnswerEvent, AnswerText, TurnRequest, Usage
from core.edits import ProposedEdit
from core.errors import AppError
from core.ports import Answerer, NoteWriter
from core.settings import WriteSettings
from edits.changelog import SqliteChangeLog
from edits.lock import EditLock
from edits.messages.entries import code
from edits.messages.reports import incomplete_selection
from edits.proposals import SqliteProposalStore

logger = logging.getLogger(__name__)


def follows(request: TurnRequest, marker: str) -> bool:
    """Return True when the request continues the dialogue that showed `marker` (a proposal or change set id).

    Chat apps resend the dialogue, so a message answers proposals only if a reply in its history showed them.
    Another request sharing the conversation's identity (a new chat with the same `user` or the same first message,
    a regenerated reply without them) has not seen them and must neither approve nor discard them.
    """
    return any(f"`{marker}`" in message.content for message in request.messages if message.role == "assistant")


def shown_to_user(request: TurnRequest, pending: Sequence[ProposedEdit]) -> list[ProposedEdit]:
    """Return the pending proposals that the reply the user is answering showed."""
    return [proposal for proposal in pending if follows(request, proposal.id)]


def _estimated_done(request: TurnRequest, reply: str) -> AnswerDone:
    # Replies composed by code use no model: report word counts, marked as estimates like other estimates.
    prompt = sum(len(message.content.split()) for message in request.messages)
    return AnswerDone(usage=Usage(prompt, len(reply.split()), is_estimate=True))


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
        self._settings = settings
        self._clock = clock
        self._writes = VaultWrites(
            store=store, log=log, writer=writer, settings=settings, lock=lock, after_write=after_write
        )
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
        # A chore shares the chat's identity but is not the user's answer: it never approves or discards anything
        # (ChatAppTasks answers it before this gate where the service is built; this holds wherever the gate is).
        if is_chat_app_task(message):
            async for event in self._inner.answer(request):
                yield event
            return
        decided, notice, corrected = await self._decide(request, message, now)
        if decided is not None:
            yield AnswerText(decided)
            yield _estimated_done(request, decided)
            return
        if corrected is not None:  # "reading, not books" after a proposal: the earlier request, corrected by code
            request, message = corrected, latest_user_text(corrected)
            notice += f" Proposing it again as: “{message}”."
        if notice:
            yield AnswerText(notice + SEPARATOR)
        waiting = {proposal.id for proposal in self._store.pending(conversation, now)}
        async for event in self._answer_guarded(request, message, waiting):
            yield event

    async def _answer_guarded(
        self, request: TurnRequest, message: str, waiting: set[str]
    ) -> AsyncIterator[AnswerEvent]:
        """Answer as the wrapped answerer does, its text through an `ImitationGuard`, then show the turn's proposals."""
        conversation = request.conversation_id
        guard = ImitationGuard()
        try:
            async for event in self._inner.answer(request):
                if isinstance(event, AnswerText):
                    text = guard.feed(event.text)
                    if text:
                        yield AnswerText(text)
                    continue
                if isinstance(event, AnswerDone):
                    closing = await self._after_turn(conversation, message, exclude=waiting)
                    rest = guard.finish(has_proposals=bool(closing))
                    if rest:
                        yield AnswerText(rest)
                    if closing:
                        closers = markup_closers(guard.shown)
                        yield AnswerText(f"{closers}{SEPARATOR}{closing}" if closers else SEPARATOR + closing)
                yield event
        except AppError:  # what the model wrote before the failure stays shown: pass on what the guard held back
            made = any(p.id not in waiting for p in self._store.pending(conversation, self._clock()))
            rest = guard.finish(has_proposals=made)
            if rest:
                yield AnswerText(rest)
            raise

    async def _decide(
        self, request: TurnRequest, message: str, now: datetime
    ) -> tuple[str | None, str, TurnRequest | None]:
        """Return a reply composed by code (None: ask the answerer), a notice to show before an answer, and a turn.

        The turn is the one to answer instead when the message corrects the change just proposed (None: as sent).
        """
        conversation = request.conversation_id
        notice = ""
        change_set = self._store.undo_request(conversation, now)
        if change_set is not None and follows(request, change_set):
            decided = await self._writes.answer_undo(conversation, message, now)
            if decided is not None:
                return decided, "", None
            notice = "(The undo was cancelled; nothing was undone.)"
        pending = shown_to_user(request, self._store.pending(conversation, now))
        if pending:
            decided = await self._answer_proposals(message, pending, now)
            if decided is not None:
                return decided, "", None
            notice = discarded_notice(self._writes.discard(pending))
            if is_undo_request(message):  # "undo" is a command for code: no model can undo, so it must not go there
                return notice + SEPARATOR + await self._writes.plan_undo(conversation, now), "", None
            return None, notice, corrected_turn(request, message)
        return await self._without_pending(request, message, now), notice, None

    async def _answer_proposals(self, message: str, shown: list[ProposedEdit], now: datetime) -> str | None:
        """Return the reply to an answer about shown proposals, or None when the message is about something else."""
        approval = parse_approval(message)
        if approval.kind == "decline":
            return discarded_notice(self._writes.discard(shown))
        if not approval.is_approval:
            return None
        chosen = select_approved(approval, shown)
        if not chosen:
            ids = ", ".join(code(proposal.id) for proposal in shown)
            return f"No shown change has the id you gave; nothing was applied. The changes waiting are {ids}."
        needed = self._store.required_words([proposal.id for proposal in shown])
        yes = approval_words(needed.values())  # "yes", or "yes delete" when a delete nobody asked for is shown
        problem = incomplete_selection(chosen, shown, yes=yes)
        if problem:
            return f"Nothing was applied: {problem} The changes stay open; reply **{yes}** to apply them all."
        required = missing_words(chosen, shown, needed, message)
        if required is not None:  # nothing is discarded: the user answers again with the words
            return words_refusal(chosen, needed, required, approval.ids)
        reply, attempted = await self._writes.apply(chosen, now)
        left = [proposal for proposal in shown if proposal not in chosen]
        if attempted and left:
            reply += SEPARATOR + discarded_notice(self._writes.discard(left))
        return reply

    async def _without_pending(self, request: TurnRequest, message: str, now: datetime) -> str | None:
        """Answer "undo" and a stray "yes" in code; return None for anything else."""
        if is_undo_request(message):
            return await self._writes.plan_undo(request.conversation_id, now)
        if not parse_approval(message).is_approval:
            return None
        latest = self._store.latest(request.conversation_id)
        if latest is None or not follows(request, latest.id):  # a proposal this dialogue never showed is not its news
            return nothing_pending_text(None, now)
        return nothing_pending_text(latest, now, undone=self._log.is_undone(latest.id))

    async def _after_turn(self, conversation: str, message: str, *, exclude: set[str]) -> str:
        """Show the proposals the turn made and end it; with WRITE_CONFIRM=false, apply them at once instead.

        `message` is the user's message of the turn: what it did not ask for is marked, and a delete or move it did
        not ask for is stored as needing its word in the approval.
        """
        now = self._clock()
        made = [proposal for proposal in self._store.pending(conversation, now) if proposal.id not in exclude]
        if not made:
            return ""
        asked = asked_change(message)
        if self._settings.confirm:
            needed = words_needed(made, asked)
            self._store.require_words(needed)
            return proposals_block(made, now=now, asked=asked, needed=needed)
        logger.warning("WRITE_CONFIRM=false: applying %d proposed change(s) without asking", len(made))
        report, _ = await self._writes.apply(made, now)
        return auto_applied_block(made, report, asked=asked)
