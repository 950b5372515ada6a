"""The edit gate's decisions with an in-memory writer: what is shown, what "yes" applies, and what it refuses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.edits.changelog import SqliteChangeLog
from agent.edits.gate import EditGate
from agent.edits.lock import EditLock
from agent.edits.proposals import SqliteProposalStore, new_proposal
from core.chat import AnswerDone, AnswerEvent, AnswerText, ChatMessage, TurnRequest
from tests.edit_fakes import InMemoryNoteWriter, write_settings

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
NOTE = "Inbox/Idea.md"


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


class ProposingAnswerer:
    """Answers every turn with one sentence; when `next_edits` is set, proposes them as the agent's tools would."""

    mode = "scripted"

    def __init__(self, store: SqliteProposalStore, writer: InMemoryNoteWriter, clock: Clock) -> None:
        self._store, self._writer, self._clock = store, writer, clock
        self.next_edits: list[tuple[str, str]] = []  # (path, text after)
        self.turns = 0

    async def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        self.turns += 1
        for path, after in self.next_edits:
            before = self._writer.notes.get(path)
            self._store.add(
                new_proposal(
                    conversation_id=request.conversation_id,
                    operation="replace",
                    path=path,
                    before=before,
                    after=after,
                    now=self._clock(),
                    ttl_minutes=30,
                )
            )
        self.next_edits = []
        yield AnswerText("Model answer.")
        yield AnswerDone()


class Chat:
    """A client that resends the whole history, as chat apps do."""

    def __init__(self, gate: EditGate) -> None:
        self.gate = gate
        self.history: list[ChatMessage] = []

    def say(self, text: str) -> str:
        self.history.append(ChatMessage("user", text))
        reply = asyncio.run(self._collect(TurnRequest("c1", tuple(self.history))))
        self.history.append(ChatMessage("assistant", reply))
        return reply

    async def _collect(self, request: TurnRequest) -> str:
        return "".join([e.text async for e in self.gate.answer(request) if isinstance(e, AnswerText)])


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock]]:
    store = SqliteProposalStore(tmp_path / "proposals.sqlite")
    log = SqliteChangeLog(tmp_path / "changes.sqlite", tmp_path / "snapshots")
    writer = InMemoryNoteWriter({NOTE: "one\n", "Inbox/Other.md": "other\n"})
    clock = Clock()
    inner = ProposingAnswerer(store, writer, clock)
    lock = EditLock(tmp_path / "edits.lock")
    gate = EditGate(inner, store=store, log=log, writer=writer, settings=write_settings(), clock=clock, lock=lock)
    yield Chat(gate), inner, writer, clock
    store.close()
    log.close()


def test_yes_applies_exactly_what_was_shown_and_undo_asks_first(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    shown = chat.say("add two")
    assert "Model answer." in shown and "+two" in shown and writer.notes[NOTE] == "one\n"

    assert chat.say("yes").startswith("Applied 1 change:")
    assert writer.notes[NOTE] == "one\ntwo\n"

    plan = chat.say("undo")
    assert "restore the previous text" in plan and writer.notes[NOTE] == "one\ntwo\n"
    assert chat.say("ja").startswith("Undone change set")
    assert writer.notes[NOTE] == "one\n"
    assert inner.turns == 1  # approvals and undo never reached the model


def test_an_unknown_id_applies_nothing_and_keeps_the_proposals_open(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n"), ("Inbox/Other.md", "changed\n")]
    chat.say("change both")

    assert "No shown change has the id you gave" in chat.say("yes deadbeef")
    assert writer.notes[NOTE] == "one\n"
    chat.history[-1] = ChatMessage("assistant", chat.history[-3].content)  # the client shows the proposals again
    assert chat.say("yes").startswith("Applied 2 changes:")
    assert writer.notes == {NOTE: "one\ntwo\n", "Inbox/Other.md": "changed\n"}


def test_proposals_the_client_never_showed_are_not_applied(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    chat.say("add two")
    chat.history[-1] = ChatMessage("assistant", "a regenerated reply without the proposal")

    assert "not shown in this chat" in chat.say("yes")
    assert writer.notes[NOTE] == "one\n"


def test_an_offline_writer_keeps_the_proposals_for_a_later_yes(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    chat.say("add two")
    shown = chat.history[-1]
    writer.available = False

    assert "read-only right now" in chat.say("yes") and writer.notes[NOTE] == "one\n"
    writer.available = True
    chat.history[-1] = shown
    assert chat.say("yes").startswith("Applied 1 change:") and writer.notes[NOTE] == "one\ntwo\n"


def test_yes_after_the_proposal_expired_says_so_and_writes_nothing(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, clock = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    chat.say("add two")
    clock.now += timedelta(minutes=31)

    assert "expired" in chat.say("yes") and writer.notes[NOTE] == "one\n"
    assert chat.say("yes") == "Nothing is waiting for your approval, so nothing was changed."


def test_another_message_discards_the_proposals_and_is_answered(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    chat.say("add two")

    reply = chat.say("yes but make it three")
    assert reply.startswith("(Discarded the proposed change") and "Model answer." in reply
    assert chat.say("yes") == "Nothing is waiting for your approval, so nothing was changed."
    assert writer.notes[NOTE] == "one\n" and inner.turns == 2


def test_a_turn_in_between_cancels_a_shown_undo(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    chat.say("add two")
    chat.say("yes")
    chat.say("undo")
    other = Chat(chat.gate)  # the same conversation from a second window applies another change
    other.history = list(chat.history[:-2])
    inner.next_edits = [("Inbox/Other.md", "changed\n")]
    other.say("change other")
    other.say("yes")

    # The second window's turns discarded the first window's undo request, so "yes" finds nothing to undo.
    assert chat.say("yes") == "Nothing is waiting for your approval, so nothing was changed."
    assert writer.notes == {NOTE: "one\ntwo\n", "Inbox/Other.md": "changed\n"}


def test_no_to_an_undo_keeps_the_change(parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock]) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    chat.say("add two")
    chat.say("yes")
    chat.say("undo")

    assert chat.say("no") == "Kept the change; nothing was undone."
    assert writer.notes[NOTE] == "one\ntwo\n"


class SlowWriter(InMemoryNoteWriter):
    """Yields to the event loop inside every read and write, as a real writer's I/O does."""

    async def read(self, path: str) -> str | None:
        await asyncio.sleep(0.01)
        return await super().read(path)

    async def write(self, path: str, content: str) -> None:
        await asyncio.sleep(0.01)
        await super().write(path, content)


def test_two_conversations_approving_at_once_never_overwrite_each_other(tmp_path: Path) -> None:
    store = SqliteProposalStore(tmp_path / "proposals.sqlite")
    log = SqliteChangeLog(tmp_path / "changes.sqlite", tmp_path / "snapshots")
    writer = SlowWriter({NOTE: "base\n"})
    gate = EditGate(
        ProposingAnswerer(store, writer, Clock()),
        store=store,
        log=log,
        writer=writer,
        settings=write_settings(),
        clock=Clock(),
        lock=EditLock(tmp_path / "edits.lock"),
    )
    for conversation, line in (("a", "from A"), ("b", "from B")):
        store.add(
            new_proposal(
                conversation_id=conversation, operation="append", path=NOTE, before="base\n",
                after=f"base\n{line}\n", now=START, ttl_minutes=30,
            )
        )  # fmt: skip

    async def approve(conversation: str) -> str:
        request = TurnRequest(conversation, (ChatMessage("user", "yes"),))
        return "".join([e.text async for e in gate.answer(request) if isinstance(e, AnswerText)])

    async def both() -> list[str]:
        return list(await asyncio.gather(approve("a"), approve("b")))

    replies = asyncio.run(both())
    store.close()
    log.close()

    applied = [reply for reply in replies if reply.startswith("Applied 1 change")]
    refused = [reply for reply in replies if "changed since the proposal" in reply]
    assert len(applied) == 1 and len(refused) == 1
    assert writer.notes[NOTE] in ("base\nfrom A\n", "base\nfrom B\n")
