"""The edit gate's decisions with an in-memory writer: what is shown, what "yes" applies, and what it refuses."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.gate.edit_gate import EditGate
from core.chat import AnswerDone, AnswerEvent, AnswerText, ChatMessage, TurnRequest
from core.edits import ProposedEdit
from edits.lock import EditLock
from edits.proposals import SqliteProposalStore, new_proposal
from tests.edit_fakes import InMemoryNoteWriter, open_change_log, write_settings

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
        self.next_edits: list[tuple[str, str] | ProposedEdit] = []  # (path, text after), or a ready proposal
        self.text = "Model answer."
        self.turns = 0

    async def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        self.turns += 1
        for edit in self.next_edits:
            if isinstance(edit, ProposedEdit):
                self._store.add(replace(edit, conversation_id=request.conversation_id))
                continue
            path, after = edit
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
        for word in re.findall(r"\s*\S+", self.text):  # streamed word by word, as models do
            yield AnswerText(word)
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
    log = open_change_log(tmp_path)
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

    assert chat.say("yes") == "Nothing is waiting for your approval, so nothing was changed."
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
    assert "expired before your answer" in chat.say("yes")  # asked again: still says what happened


def test_another_message_discards_the_proposals_and_is_answered(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    chat.say("add two")

    reply = chat.say("yes but make it three")
    assert reply.startswith("(Discarded the proposed change") and "Model answer." in reply
    assert "was discarded, so nothing was changed" in chat.say("yes")
    assert writer.notes[NOTE] == "one\n" and inner.turns == 2


def test_an_undo_confirmed_after_another_change_landed_is_refused(
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

    # The second window's dialogue did not show the undo plan, so it neither confirmed nor cancelled it.
    assert chat.say("yes").startswith("Nothing was undone: the last change")  # the set shown is no longer last
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
    log = open_change_log(tmp_path)
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
    shown: dict[str, str] = {}
    for conversation, line in (("a", "from A"), ("b", "from B")):
        proposal = new_proposal(
            conversation_id=conversation, operation="append", path=NOTE, before="base\n",
            after=f"base\n{line}\n", now=START, ttl_minutes=30,
        )  # fmt: skip
        store.add(proposal)
        shown[conversation] = f"Proposed change `{proposal.id}`"

    async def approve(conversation: str) -> str:
        dialogue = (
            ChatMessage("user", "add"),
            ChatMessage("assistant", shown[conversation]),
            ChatMessage("user", "yes"),
        )
        request = TurnRequest(conversation, dialogue)
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


def test_a_request_from_another_dialogue_neither_approves_nor_discards(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    chat.say("add two")
    title_task = Chat(chat.gate)  # e.g. Open WebUI's title task, sent with the same chat id

    task = "### Task: Generate a concise title for the chat.\n<chat_history>\nUSER: add two\n</chat_history>"
    assert title_task.say(task) == "Model answer."
    other_window = Chat(chat.gate)  # another chat of the same user, with its own last reply
    other_window.history = [ChatMessage("user", "hi"), ChatMessage("assistant", "Model answer.")]
    assert other_window.say("yes") == "Nothing is waiting for your approval, so nothing was changed."
    assert writer.notes[NOTE] == "one\n"
    assert chat.say("yes please").startswith("Applied 1 change:")
    assert writer.notes[NOTE] == "one\ntwo\n"


def move_with_link_update(writer: InMemoryNoteWriter) -> list[tuple[str, str] | ProposedEdit]:
    writer.notes.update({"Old.md": "old\n", "Linker.md": "see [[Old]]\n"})
    move = new_proposal(
        conversation_id="-", operation="move", path="Old.md", before="old\n", after="old\n", now=START,
        ttl_minutes=30, new_path="New.md",
    )  # fmt: skip
    links = new_proposal(
        conversation_id="-", operation="update links", path="Linker.md", before="see [[Old]]\n",
        after="see [[New]]\n", now=START, ttl_minutes=30, depends_on=move.id,
    )  # fmt: skip
    return [move, links]


def test_a_move_approved_without_its_link_updates_is_held_back(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = move_with_link_update(writer)
    move, links = inner.next_edits
    assert isinstance(move, ProposedEdit) and isinstance(links, ProposedEdit)
    shown = chat.say("rename Old to New")
    assert 'A change marked "after" needs the change it names.' in shown

    refused = chat.say(f"yes {move.id}")
    assert refused.startswith("Nothing was applied: the move") and f"yes {move.id} {links.id}" in refused
    assert "Old.md" in writer.notes
    chat.history[-1] = ChatMessage("assistant", shown)
    assert f"builds on `{move.id}`" in chat.say(f"yes {links.id}")
    chat.history[-1] = ChatMessage("assistant", shown)
    assert chat.say("yes").startswith("Applied 2 changes:")
    assert writer.notes == {NOTE: "one\n", "Inbox/Other.md": "other\n", "New.md": "old\n", "Linker.md": "see [[New]]\n"}


def test_approving_some_by_id_says_which_were_discarded(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n"), ("Inbox/Other.md", "changed\n")]
    chat.say("change both")
    first, second = (p for p in chat.gate._store.pending("c1", START))  # noqa: SLF001 - the ids shown

    reply = chat.say(f"yes {first.id}")

    assert reply.startswith("Applied 1 change:") and f"(Discarded the proposed change `{second.id}`" in reply
    assert writer.notes == {NOTE: "one\ntwo\n", "Inbox/Other.md": "other\n"}


def test_an_undo_that_could_only_overwrite_the_users_edit_is_not_offered(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    chat.say("add two")
    chat.say("yes")
    writer.notes[NOTE] = "one\ntwo\nmy own line\n"

    plan = chat.say("undo")

    assert "Reply **yes**" not in plan and "⚠" in plan
    assert chat.say("yes").startswith("The last change proposed in this chat")  # no undo was waiting
    assert writer.notes[NOTE] == "one\ntwo\nmy own line\n"


def test_undo_in_another_chat_says_the_change_was_made_elsewhere(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, _, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    chat.say("add two")
    chat.say("yes")

    async def undo_elsewhere() -> str:
        request = TurnRequest("c2", (ChatMessage("user", "undo"),))
        return "".join([e.text async for e in chat.gate.answer(request) if isinstance(e, AnswerText)])

    assert asyncio.run(undo_elsewhere()).startswith("(The last change to the vault was made outside this chat")
    assert not chat.say("undo").startswith("(The last change")


def test_a_new_chat_with_the_same_identity_neither_approves_nor_discards(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    chat.say("add two")

    fresh = Chat(chat.gate)  # e.g. a new chat sent with the same `user`: it never saw the proposal
    assert fresh.say("ok") == "Nothing is waiting for your approval, so nothing was changed."
    assert "Model answer." in Chat(chat.gate).say("How long does the dough rest?")
    assert writer.notes[NOTE] == "one\n"
    assert chat.say("yes").startswith("Applied 1 change:")


def test_yes_after_an_undo_says_the_change_was_undone(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, _, _ = parts
    inner.next_edits = [(NOTE, "one\ntwo\n")]
    chat.say("add two")
    chat.say("yes")
    chat.say("undo")
    chat.say("yes")

    assert "was applied and then undone" in chat.say("yes")


def delete_of_other() -> ProposedEdit:
    return new_proposal(
        conversation_id="-", operation="delete to .trash/", path="Inbox/Other.md", before="other\n", after=None,
        now=START, ttl_minutes=30,
    )  # fmt: skip


def test_a_delete_nobody_asked_for_needs_yes_delete_and_a_plain_yes_keeps_it_open(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    delete = delete_of_other()
    inner.next_edits = [delete]
    inner.text = "Done. Reply yes to confirm."

    shown = chat.say("what is in my inbox?")

    assert shown.startswith("Done. [removed:") and "Reply yes to confirm" not in shown
    assert shown.index("⚠ **You did not ask for a change") < shown.index(f"`{delete.id}` · ")
    refused = chat.say("yes")
    assert refused.startswith("Nothing was applied") and "Reply **yes delete** (or **ja löschen**)" in refused
    assert chat.say("yes move").startswith("Nothing was applied")  # names a move, but the change is a delete
    assert writer.notes["Inbox/Other.md"] == "other\n"
    assert chat.say("ja löschen").startswith("Applied 1 change:")
    assert "Inbox/Other.md" not in writer.notes
    assert inner.turns == 1


def test_a_requested_delete_takes_a_plain_yes_and_model_text_without_proposals_is_left_alone(
    parts: tuple[Chat, ProposingAnswerer, InMemoryNoteWriter, Clock],
) -> None:
    chat, inner, writer, _ = parts
    inner.text = "To approve a change, reply yes."
    assert chat.say("How do I approve a change?").startswith("To approve a change, reply yes.")
    inner.next_edits = [delete_of_other()]

    shown = chat.say("Delete the note Other")

    assert "⚠" not in shown and "[removed:" in shown  # the model's own "reply yes" is neutralised all the same
    assert chat.say("yes").startswith("Applied 1 change:")
    assert "Inbox/Other.md" not in writer.notes
