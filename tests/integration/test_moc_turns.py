"""'Make a MOC of my notes on X' through POST /v1/chat/completions: the map is built by code, never by the model.

The links are the notes code found on the topic (sample_vault's garden notes by their folder and tags), the note
goes to the vault's MOCs folder or the folder named, and it is only a proposal until "yes".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.wiring import Services
from core.settings import Settings
from tests.integration.edit_flow_support import LibrarianFactory, librarian_factory
from tests.scripted_llm import ScriptedLLMServer
from tests.vault_state import vault_hashes

GARDEN_NOTES = ["Composting", "Garden Plan 2027", "Garlic", "Ideas", "Seed Inventory", "Tomato Varieties"]


@pytest.fixture
def factory(settings: Settings, services: Services, llm: ScriptedLLMServer) -> Iterator[LibrarianFactory]:
    services.reindexer.run_once()
    with librarian_factory(settings, services, llm, "files") as made:
        yield made


def test_a_map_of_content_links_the_notes_filed_under_its_topic_and_asks_no_model(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    chat = factory.start(llm_tools="auto").chat()
    hashes = vault_hashes(vault)
    asked_before = len(llm.chat_requests)

    shown = chat.say("Make a MOC of my notes on gardening")

    assert len(llm.chat_requests) == asked_before  # no model call: code chose every link
    assert "create the map of content “Gardening MOC”" in shown and "`MOCs/Gardening MOC.md`" in shown
    assert all(f"+- [[{name}]]" in shown for name in GARDEN_NOTES if name != "Ideas")
    assert "[[Sourdough]]" not in shown and "[[Half Marathon Plan]]" not in shown
    assert vault_hashes(vault) == hashes  # a proposal only

    assert "Applied 1 change" in chat.say("yes")
    text = (vault / "MOCs/Gardening MOC.md").read_text(encoding="utf-8")
    assert "- [[Garlic]]\n" in text and "- [[Areas/Garden/Ideas|" not in text
    assert "- [[Areas/Garden/Ideas]]" in text  # two notes are called Ideas: the link names this one


def test_a_named_map_goes_to_the_folder_the_request_names(factory: LibrarianFactory, vault: Path) -> None:
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Create a note called Kitchen Index linking my notes about cooking in the Inbox folder")

    assert "`Inbox/Kitchen Index.md`" in shown and "+- [[Sourdough]]" in shown and "+- [[Garlic]]" not in shown


def test_a_topic_no_note_is_about_is_said_plainly_and_nothing_is_proposed(
    factory: LibrarianFactory, vault: Path
) -> None:
    # The relevance gate as shipped (these tests otherwise turn it off): it judges notes when none names the topic.
    chat = factory.start(llm_tools="auto", relevance_floor=Settings.model_fields["relevance_floor"].default).chat()
    hashes = vault_hashes(vault)

    shown = chat.say("Make a MOC of my notes on quantum chromodynamics")

    assert "I found no notes on “quantum chromodynamics”" in shown and "Proposed change" not in shown
    chat.say("yes")
    assert vault_hashes(vault) == hashes


def test_a_vault_without_a_templates_folder_gets_its_map_too(factory: LibrarianFactory, vault: Path) -> None:
    # obsidian-tasks-demo has no templates folder: the lookup's "no templates folder" ended the turn with a 404.
    for template in (vault / "Templates").iterdir():
        template.unlink()
    (vault / "Templates").rmdir()
    (vault / ".obsidian" / "templates.json").unlink(missing_ok=True)
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Make a MOC of my notes on gardening")
    created = chat.say("Create a note called Pea Trial using the Pea Template")

    assert "create the map of content “Gardening MOC”" in shown and "+- [[Garlic]]" in shown
    assert "no templates folder" not in created
