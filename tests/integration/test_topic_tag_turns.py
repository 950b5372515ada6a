"""'Tag my notes about X with #y' and 'tag them #y' through POST /v1/chat/completions: the notes found by code.

The 0.5B, given one change contract for "Tag my notes about Kyoto with #japan", tagged one of the three notes on
Kyoto. Code finds the notes as a map of content would (or takes those the previous reply listed), proposes the tag
for each, and writes nothing before "yes"; "undo" takes every one back.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.wiring import Services
from core.settings import Settings
from rag.notes.markdown import parse_note
from tests.integration.edit_flow_support import LibrarianFactory, librarian_factory
from tests.scripted_llm import ScriptedLLMServer
from tests.vault_state import vault_hashes

GARDEN = ["Composting", "Garden Plan 2027", "Garlic", "Seed Inventory", "Tomato Varieties"]


@pytest.fixture
def factory(settings: Settings, services: Services, llm: ScriptedLLMServer) -> Iterator[LibrarianFactory]:
    services.reindexer.run_once()
    with librarian_factory(settings, services, llm, "files") as made:
        yield made


def _tags(vault: Path, name: str) -> list[str]:
    path = next(vault.rglob(f"{name}.md"))
    return list(parse_note(path.relative_to(vault).as_posix(), path.read_text(encoding="utf-8")).tags)


def test_the_notes_on_a_topic_are_each_proposed_the_tag_and_applied_and_undone_together(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    chat = factory.start(llm_tools="auto").chat()
    hashes = vault_hashes(vault)
    asked_before = len(llm.chat_requests)

    shown = chat.say("Tag my notes about gardening with #outdoors")

    assert len(llm.chat_requests) == asked_before  # no model call: code chose every note
    assert "add the tag “outdoors” to the notes on “gardening”" in shown
    assert all(f"`Areas/Garden/{name}.md`" in shown for name in GARDEN)
    assert "Sourdough" not in shown
    assert vault_hashes(vault) == hashes  # proposals only

    applied = chat.say("yes")

    assert f"Applied {shown.count('· add tag ·')} changes" in applied
    assert all("outdoors" in _tags(vault, name) for name in GARDEN)
    assert "Undo would revert change set" in chat.say("undo")
    chat.say("yes")
    assert vault_hashes(vault) == hashes


def test_them_are_the_notes_the_previous_reply_listed_not_the_one_it_was_about(
    factory: LibrarianFactory, vault: Path
) -> None:
    chat = factory.start(llm_tools="auto").chat()
    listing = chat.say("Which notes link to Garlic?")
    listed = [line for line in listing.splitlines() if line.startswith("- [[")]
    assert listed and "link to [[Garlic]]" in listing

    shown = chat.say("Tag them with #allium")

    assert shown.count("· add tag ·") == len(listed)
    assert "`Areas/Garden/Garlic.md`" not in shown  # the note they link to is no item of the list
    chat.say("yes")
    assert "allium" not in _tags(vault, "Garlic")


def test_a_note_already_tagged_is_said_so_and_the_others_are_proposed(factory: LibrarianFactory, vault: Path) -> None:
    garlic = vault / "Areas/Garden/Garlic.md"
    garlic.write_text(
        garlic.read_text(encoding="utf-8").replace("  - area/garden\n", "  - area/garden\n  - outdoors\n")
    )
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Add the tag outdoors to my notes on gardening")

    assert "Already tagged: `Areas/Garden/Garlic.md`." in shown
    assert "· add tag · `Areas/Garden/Composting.md`" in shown
    assert "· add tag · `Areas/Garden/Garlic.md`" not in shown


def test_notes_beyond_the_changes_one_turn_may_propose_are_said_to_be_left(
    settings: Settings, services: Services, llm: ScriptedLLMServer, vault: Path
) -> None:
    services.reindexer.run_once()
    limited = settings.model_copy(update={"max_writes_per_turn": 2})
    with librarian_factory(limited, services, llm, "files") as factory:
        chat = factory.start(llm_tools="auto").chat()
        shown = chat.say("Tag my notes about gardening with #outdoors")

    assert shown.count("· add tag ·") == 2
    assert "more were not proposed: no more changes fit in one request (MAX_WRITES_PER_TURN)" in shown


def test_a_tag_obsidian_would_not_read_is_refused_once_not_once_a_note(factory: LibrarianFactory, vault: Path) -> None:
    chat = factory.start(llm_tools="auto").chat()
    hashes = vault_hashes(vault)

    shown = chat.say("Tag my notes about gardening with #2027")

    assert shown.startswith("“2027” is not a tag: a tag has at least one non-digit. Nothing was proposed.")
    assert "· add tag ·" not in shown and vault_hashes(vault) == hashes
