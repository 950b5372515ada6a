"""Safe edits through /v1/chat/completions, end to end: the openai SDK -> uvicorn -> agent -> a scripted LLM.

Every flow runs with the file writer and with the Local REST API writer on the stand-in: propose, show, approve
or decline, conflicts, ids, undo, expiry, auto-apply and read-only mode, each checked on the vault's bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.wiring import Services
from core.settings import Settings
from edits.messages.reports import READ_ONLY
from tests.integration.edit_flow_support import (
    PROPOSAL_ID,
    Librarian,
    LibrarianFactory,
    install_clock,
    librarian_factory,
    nothing_applied,
    tool_names,
)
from tests.scripted_llm import ScriptedLLMServer, Turn
from tests.vault_state import vault_hashes

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

GARLIC = "Areas/Garden/Garlic.md"
COMPOSTING = "Areas/Garden/Composting.md"
BIKE = "Inbox/Bike Repair Notes.md"
PODCAST = "Inbox/Podcast to try.md"
REVIEW = "Reviews/2026-W46 Weekly Review.md"
ADDED = "- Side-dress with quokkablend fertiliser in March"
ASK = "Add a fertiliser reminder to my Garlic note"


@pytest.fixture(params=["files", "rest"])
def factory(
    request: pytest.FixtureRequest, settings: Settings, services: Services, llm: ScriptedLLMServer
) -> Iterator[LibrarianFactory]:
    with librarian_factory(settings, services, llm, request.param) as made:
        yield made


FILES_ONLY = pytest.mark.parametrize("factory", ["files"], indirect=True)  # the writer plays no part


@pytest.fixture
def librarian(factory: LibrarianFactory) -> Librarian:
    return factory.start()


def propose_append(llm: ScriptedLLMServer, path: str = "Garlic", content: str = ADDED) -> None:
    """Script one model turn that proposes appending `content` to a note, then says so."""
    llm.add(
        Turn.tool_call("edit_note", {"command": "append", "path": path, "content": content}),
        Turn.text("I proposed the change; it is shown below."),
    )


def ids_in(reply: str) -> list[str]:
    return re.findall(PROPOSAL_ID, reply)


def appended(before: str, line: str = ADDED) -> str:
    return before + line + "\n" if before.endswith("\n") else before + "\n" + line + "\n"


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_an_approved_proposal_is_written_exactly_logged_and_reindexed(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path, services: Services, stream: bool
) -> None:
    before = (vault / GARLIC).read_text(encoding="utf-8")
    hashes = vault_hashes(vault)
    propose_append(llm)
    chat = librarian.chat(stream=stream)

    shown = chat.say(ASK)

    (proposal,) = ids_in(shown)
    assert f"`{GARLIC}`" in shown and f"+{ADDED}" in shown and "```diff" in shown
    assert "nothing is written yet" in shown
    assert vault_hashes(vault) == hashes

    applied = chat.say("yes")

    assert "Applied 1 change" in applied
    assert (vault / GARLIC).read_text(encoding="utf-8") == appended(before)
    changes = librarian.http.get("/v1/changes").json()["changes"]
    assert [(c["proposal_id"], c["path"], c["status"]) for c in changes] == [(proposal, GARLIC, "applied")]
    stored = services.docstore.get(GARLIC)
    assert stored is not None and ADDED in stored.markdown
    hits = services.retriever.search("quokkablend fertiliser", k=3)
    assert any(hit.chunk.path == GARLIC and "quokkablend" in hit.chunk.text for hit in hits)


def test_a_declined_proposal_changes_nothing_and_a_later_yes_finds_nothing(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path
) -> None:
    hashes = vault_hashes(vault)
    propose_append(llm)
    chat = librarian.chat()
    (proposal,) = ids_in(chat.say(ASK))

    declined = chat.say("no")

    assert "Discarded" in declined and f"`{proposal}`" in declined
    assert nothing_applied(chat.say("yes"))
    assert vault_hashes(vault) == hashes
    assert librarian.http.get("/v1/changes").json()["changes"] == []
    assert llm.turns_left == 0 and len(llm.chat_requests) == 2  # no model saw "no" or "yes"


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_an_unrelated_message_discards_the_proposal_and_is_answered_by_the_model(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path, stream: bool
) -> None:
    hashes = vault_hashes(vault)
    propose_append(llm)
    chat = librarian.chat(stream=stream)
    (proposal,) = ids_in(chat.say(ASK))
    llm.add(Turn.text("You planted 42 cloves [[Garlic]]."))

    reply = chat.say("How many cloves did I plant?")

    assert reply.startswith(f"(Discarded the proposed change `{proposal}`; nothing was written.)")
    assert "You planted 42 cloves [[Garlic]]." in reply
    assert llm.chat_requests[-1].messages[-1]["content"].endswith("Question: How many cloves did I plant?")
    assert nothing_applied(chat.say("yes"))
    assert vault_hashes(vault) == hashes


def test_approval_after_the_note_changed_on_disk_is_refused_and_keeps_the_users_edit(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path
) -> None:
    propose_append(llm)
    chat = librarian.chat()
    chat.say(ASK)
    users_edit = (vault / GARLIC).read_text(encoding="utf-8") + "\nWatered on Sunday.\n"
    (vault / GARLIC).write_text(users_edit, encoding="utf-8")

    reply = chat.say("yes")

    assert "changed since" in reply and "Nothing was applied" in reply
    assert (vault / GARLIC).read_text(encoding="utf-8") == users_edit
    assert librarian.http.get("/v1/changes").json()["changes"] == []


def test_yes_with_an_id_applies_only_that_one_of_two(librarian: Librarian, llm: ScriptedLLMServer, vault: Path) -> None:
    garlic, compost = (vault / GARLIC).read_text(encoding="utf-8"), (vault / COMPOSTING).read_text(encoding="utf-8")
    llm.add(
        Turn.tool_calls(
            ("edit_note", {"command": "append", "path": "Garlic", "content": ADDED}),
            ("edit_note", {"command": "append", "path": "Composting", "content": "- Turn the heap"}),
        ),
        Turn.text("Two changes are proposed below."),
    )
    chat = librarian.chat()
    shown = chat.say("Add reminders to my Garlic and Composting notes")
    first, second = ids_in(shown)
    assert "2 proposed changes" in shown and f"**yes {first}**" in shown

    reply = chat.say(f"yes {second}")

    assert "Applied 1 change" in reply and COMPOSTING in reply
    assert (vault / COMPOSTING).read_text(encoding="utf-8") == appended(compost, "- Turn the heap")
    assert (vault / GARLIC).read_text(encoding="utf-8") == garlic
    assert nothing_applied(chat.say(f"yes {first}"))  # the one not named was discarded, not kept waiting
    assert (vault / GARLIC).read_text(encoding="utf-8") == garlic


def test_an_unknown_id_applies_nothing(librarian: Librarian, llm: ScriptedLLMServer, vault: Path) -> None:
    hashes = vault_hashes(vault)
    propose_append(llm)
    chat = librarian.chat()
    (proposal,) = ids_in(chat.say(ASK))

    reply = chat.say("yes deadbeef")

    assert "No shown change has the id" in reply and f"`{proposal}`" in reply
    assert vault_hashes(vault) == hashes


def test_a_rename_updates_links_on_yes_and_undo_restores_every_note(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path
) -> None:
    original = vault_hashes(vault)
    bike = (vault / BIKE).read_bytes()
    llm.add(Turn.tool_call("move_note", {"path": "Bike Repair Notes", "new_path": "Bike Repair Log"}), Turn.text("Ok."))
    chat = librarian.chat()

    shown = chat.say("Rename Bike Repair Notes to Bike Repair Log")

    move, *links = ids_in(shown)
    assert f"`{BIKE}` → `Inbox/Bike Repair Log.md`" in shown and len(links) == 2
    assert shown.count(f"(after `{move}`)") == 2 and "+- The bike still skips" in shown
    assert vault_hashes(vault) == original

    assert "Applied 3 changes" in chat.say("yes")
    assert not (vault / BIKE).exists() and (vault / "Inbox/Bike Repair Log.md").read_bytes() == bike
    assert "see [[Bike Repair Log]]." in (vault / REVIEW).read_text(encoding="utf-8")

    chat.say("undo")
    assert chat.say("yes").startswith("Undone change set")
    assert vault_hashes(vault) == original


def test_a_delete_goes_to_the_trash_on_yes_and_undo_brings_it_back(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path
) -> None:
    podcast = (vault / PODCAST).read_bytes()
    hashes = vault_hashes(vault)
    llm.add(Turn.tool_call("delete_note", {"path": PODCAST}), Turn.text("Proposed."))
    chat = librarian.chat()

    shown = chat.say("Delete my podcast note")

    assert len(ids_in(shown)) == 1 and "⚠" not in shown  # asked for: no warning, a plain yes applies it
    assert f"Moves `{PODCAST}` to `.trash/`" in shown and f"The note has 6 lines, {len(podcast)} bytes" in shown
    assert "\n---\ntags:\n  - inbox\n" in shown and "… 1 more line\n" in shown and "+++ /dev/null" not in shown
    assert vault_hashes(vault) == hashes

    assert "Applied 1 change" in chat.say("yes")
    assert not (vault / PODCAST).exists() and (vault / ".trash" / PODCAST).read_bytes() == podcast

    chat.say("undo")
    assert chat.say("yes").startswith("Undone change set")
    assert (vault / PODCAST).read_bytes() == podcast


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_undo_in_chat_shows_the_plan_then_restores_the_note(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path, stream: bool
) -> None:
    original = (vault / GARLIC).read_bytes()
    propose_append(llm)
    chat = librarian.chat(stream=stream)
    chat.say(ASK)
    chat.say("yes")
    changed = (vault / GARLIC).read_bytes()
    change_set = librarian.http.get("/v1/changes").json()["changes"][0]["change_set_id"]

    plan = chat.say("undo that")

    assert plan.startswith(f"Undo would revert change set `{change_set}`") and "restore the previous text" in plan
    assert (vault / GARLIC).read_bytes() == changed

    done = chat.say("yes")

    assert done.startswith(f"Undone change set `{change_set}`")
    assert (vault / GARLIC).read_bytes() == original
    statuses = [c["undoes"] for c in librarian.http.get("/v1/changes").json()["changes"]]
    assert change_set in statuses
    assert nothing_applied(chat.say("yes"))


def test_undo_while_a_proposal_waits_discards_it_and_shows_the_undo_plan(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path
) -> None:
    original = (vault / GARLIC).read_bytes()
    propose_append(llm)
    chat = librarian.chat()
    chat.say(ASK)
    chat.say("yes")
    propose_append(llm, content="- A second reminder")
    (waiting,) = ids_in(chat.say("Add a second reminder"))
    requests_before = len(llm.chat_requests)

    plan = chat.say("undo")

    assert plan.startswith(f"(Discarded the proposed change `{waiting}`") and "Undo would revert" in plan
    assert len(llm.chat_requests) == requests_before  # code answered; no model was asked to "undo"
    assert chat.say("yes").startswith("Undone change set")
    assert (vault / GARLIC).read_bytes() == original


def test_declining_the_undo_keeps_the_change(librarian: Librarian, llm: ScriptedLLMServer, vault: Path) -> None:
    propose_append(llm)
    chat = librarian.chat()
    chat.say(ASK)
    chat.say("yes")
    changed = (vault / GARLIC).read_bytes()
    chat.say("rückgängig")

    assert chat.say("no") == "Kept the change; nothing was undone."
    assert (vault / GARLIC).read_bytes() == changed


def test_undo_after_a_later_user_edit_warns_and_keeps_the_users_edit(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path
) -> None:
    propose_append(llm)
    chat = librarian.chat()
    chat.say(ASK)
    chat.say("yes")
    users_edit = (vault / GARLIC).read_text(encoding="utf-8") + "Harvested early.\n"
    (vault / GARLIC).write_text(users_edit, encoding="utf-8")

    plan = chat.say("undo")
    assert "⚠" in plan and "edited since the change" in plan and "Reply **yes**" not in plan

    done = chat.say("yes")

    assert not done.startswith("Undone change set")  # only the user's edit was in the way: nothing was undone
    assert (vault / GARLIC).read_text(encoding="utf-8") == users_edit


def test_an_approval_after_the_ttl_is_expired_and_writes_nothing(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = install_clock(monkeypatch)
    librarian = factory.start(proposal_ttl_minutes=30)
    hashes = vault_hashes(vault)
    propose_append(llm)
    chat = librarian.chat()
    shown = chat.say(ASK)
    assert "expires in 30 min" in shown
    clock.advance(minutes=31)

    reply = chat.say("yes")

    assert "expired" in reply and "nothing was changed" in reply
    assert vault_hashes(vault) == hashes
    assert nothing_applied(chat.say("yes"))
    assert librarian.http.get("/v1/changes").json()["changes"] == []


def test_an_approval_just_before_the_ttl_still_applies(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = install_clock(monkeypatch)
    librarian = factory.start(proposal_ttl_minutes=30)
    before = (vault / GARLIC).read_text(encoding="utf-8")
    propose_append(llm)
    chat = librarian.chat()
    chat.say(ASK)
    clock.advance(minutes=29)

    assert "Applied 1 change" in chat.say("yes")
    assert (vault / GARLIC).read_text(encoding="utf-8") == appended(before)


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_write_confirm_false_applies_in_the_same_turn(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path, stream: bool
) -> None:
    librarian = factory.start(write_confirm=False)
    before = (vault / GARLIC).read_text(encoding="utf-8")
    propose_append(llm)

    reply = librarian.chat(stream=stream).say(ASK)

    assert "Applied 1 change" in reply and "Reply **yes**" not in reply
    assert (vault / GARLIC).read_text(encoding="utf-8") == appended(before)
    assert [c["path"] for c in librarian.http.get("/v1/changes").json()["changes"]] == [GARLIC]


@FILES_ONLY
def test_a_read_only_vault_offers_no_write_tools_and_undoes_nothing(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    librarian = factory.start(write_backend="none")
    hashes = vault_hashes(vault)
    llm.add(Turn.text("I can only read your notes here."))
    chat = librarian.chat()

    chat.say(ASK)

    offered = tool_names(llm.chat_requests[-1].json)
    assert "read_note" in offered and "edit_note" not in offered
    assert nothing_applied(chat.say("yes"))
    assert chat.say("undo") == READ_ONLY
    assert vault_hashes(vault) == hashes
    assert librarian.http.get("/v1/undo").status_code == 503


@FILES_ONLY
def test_the_write_tools_are_offered_when_the_vault_is_writable(librarian: Librarian, llm: ScriptedLLMServer) -> None:
    llm.add(Turn.text("Which line should I add?"))

    librarian.chat().say(ASK)

    assert "edit_note" in tool_names(llm.chat_requests[-1].json)
