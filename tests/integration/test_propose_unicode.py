"""Notes whose names are stored decomposed (NFD, as vaults synced from a Mac often are) are found and edited in place.

Typed names are composed (NFC): "Café" is one code point for é, the file holds "e" plus a combining accent. Both
spell one note, so write tools must edit the file that exists and never create a look-alike second one.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import unicodedata
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.propose import ProposalToolbox
from core.edits import ProposedEdit
from core.errors import InvalidRequest
from edits.proposals import SqliteProposalStore
from tests.edit_fakes import write_settings, write_tools_reader
from tests.vault_state import vault_hashes

NOW = datetime(2026, 11, 16, 9, 0, tzinfo=UTC)
NFC_NAME = "Café Notes"
NFD_PATH = "Inbox/Cafe\u0301 Notes.md"
NFD_FOLDER = "Tagebu\u0308cher"  # "Tagebücher" decomposed
EMOJI_PATH = "Inbox/🌱 Seeds.md"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(Path(__file__).resolve().parents[2] / "sample_vault", root)
    (root / NFD_PATH).write_text("---\naliases:\n  - Cafe\u0301 list\n---\n# Café\nbody\n", encoding="utf-8")
    (root / EMOJI_PATH).write_text("# Seeds\n", encoding="utf-8")
    (root / NFD_FOLDER).mkdir()
    (root / NFD_FOLDER / "Day one.md").write_text("# Day one\n", encoding="utf-8")
    return root


@pytest.fixture
def toolbox(vault: Path, store: SqliteProposalStore) -> ProposalToolbox:
    reader = write_tools_reader(vault, NOW)
    return ProposalToolbox(reader, store, write_settings(), conversation_id="c1", clock=lambda: NOW)


def propose(toolbox: ProposalToolbox, tool: str, **arguments: str) -> list[ProposedEdit]:
    made = len(toolbox.proposals)
    asyncio.run(toolbox.run(tool, json.dumps(arguments)))
    return toolbox.proposals[made:]


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def test_the_fixture_really_stores_a_decomposed_name(vault: Path) -> None:
    names = {path.name for path in (vault / "Inbox").iterdir()}
    assert "Cafe\u0301 Notes.md" in names
    assert nfc(NFD_PATH).rpartition("/")[2] not in names


@pytest.mark.parametrize(
    "ref",
    [NFC_NAME, f"[[{NFC_NAME}]]", nfc(NFD_PATH), NFD_PATH, "Café list"],
    ids=["name", "link", "nfc-path", "nfd-path", "alias"],
)
def test_a_decomposed_note_is_edited_at_its_real_path(toolbox: ProposalToolbox, vault: Path, ref: str) -> None:
    before = vault_hashes(vault)
    (proposal,) = propose(toolbox, "edit_note", command="add_tag", path=ref, value="coffee")
    assert proposal.path == NFD_PATH
    assert proposal.base_hash is not None
    assert "  - coffee" in (proposal.new_text or "")
    assert vault_hashes(vault) == before


def test_two_edits_by_different_spellings_build_on_each_other(toolbox: ProposalToolbox, vault: Path) -> None:
    before = vault_hashes(vault)
    first = propose(toolbox, "edit_note", command="append", path=NFC_NAME, content="one")
    second = propose(toolbox, "edit_note", command="append", path=nfc(NFD_PATH), content="two")
    assert [p.path for p in (*first, *second)] == [NFD_PATH, NFD_PATH]
    assert second[0].depends_on == first[0].id
    assert (second[0].new_text or "").endswith("body\none\ntwo\n")
    assert vault_hashes(vault) == before


def test_a_decomposed_note_moves_from_its_real_path(toolbox: ProposalToolbox, vault: Path) -> None:
    before = vault_hashes(vault)
    (move,) = propose(toolbox, "move_note", path=NFC_NAME, new_path="Archive/")
    assert (move.path, move.new_path) == (NFD_PATH, "Archive/Cafe\u0301 Notes.md")
    assert vault_hashes(vault) == before


def test_renaming_it_to_its_composed_spelling_is_allowed(toolbox: ProposalToolbox) -> None:
    (move,) = propose(toolbox, "move_note", path=NFD_PATH, new_path=NFC_NAME)
    assert (move.path, move.new_path) == (NFD_PATH, nfc(NFD_PATH))


@pytest.mark.parametrize("ref", [nfc(NFD_PATH), "Inbox/Café Notes", NFC_NAME, "Cafe\u0301 Notes"])
def test_creating_the_composed_twin_is_refused(toolbox: ProposalToolbox, vault: Path, ref: str) -> None:
    before = vault_hashes(vault)
    path = ref if "/" in ref else f"Inbox/{ref}"
    with pytest.raises(InvalidRequest, match="already exists") as refused:
        propose(toolbox, "edit_note", command="create", path=path, content="# Café\n")
    assert NFD_PATH in str(refused.value)
    assert toolbox.proposals == []
    assert vault_hashes(vault) == before


def test_moving_another_note_onto_the_twin_is_refused(toolbox: ProposalToolbox, vault: Path) -> None:
    before = vault_hashes(vault)
    with pytest.raises(InvalidRequest, match="a note with this name already exists") as refused:
        propose(toolbox, "move_note", path="Inbox/Podcast to try.md", new_path=nfc(NFD_PATH))
    assert NFD_PATH in str(refused.value)
    assert vault_hashes(vault) == before


def test_a_new_note_joins_the_decomposed_folder_instead_of_a_look_alike(toolbox: ProposalToolbox) -> None:
    (created,) = propose(toolbox, "edit_note", command="create", path="Tagebücher/Day two.md", content="# Two\n")
    assert created.path == f"{NFD_FOLDER}/Day two.md"
    (moved,) = propose(toolbox, "move_note", path="Inbox/Podcast to try.md", new_path="Tagebücher/")
    assert moved.new_path == f"{NFD_FOLDER}/Podcast to try.md"


def test_emoji_names_still_work(toolbox: ProposalToolbox, vault: Path) -> None:
    before = vault_hashes(vault)
    (edit,) = propose(toolbox, "edit_note", command="append", path="🌱 Seeds", content="kale")
    assert edit.path == EMOJI_PATH
    (created,) = propose(toolbox, "edit_note", command="create", path="Inbox/🚀 Launch", content="# Launch\n")
    assert created.path == "Inbox/🚀 Launch.md"
    with pytest.raises(InvalidRequest, match="already exists"):
        propose(toolbox, "edit_note", command="create", path=EMOJI_PATH, content="# Again\n")
    (move,) = propose(toolbox, "move_note", path="🌱 Seeds", new_path="Archive/")
    assert move.new_path == "Archive/🌱 Seeds.md"
    assert vault_hashes(vault) == before


def test_read_tools_find_the_decomposed_note_by_its_composed_name(vault: Path) -> None:
    snapshot = write_tools_reader(vault, NOW).snapshot()
    assert snapshot.find_note(NFC_NAME) == NFD_PATH
    assert snapshot.find_note(f"[[{nfc(NFD_PATH)}#Café]]") == NFD_PATH
    assert snapshot.find_note("café list") == NFD_PATH


def test_the_daily_note_in_a_decomposed_folder_is_edited_and_new_ones_go_there(
    vault: Path, toolbox: ProposalToolbox
) -> None:
    folder = unicodedata.normalize("NFD", "Journal/Café")
    (vault / folder).mkdir(parents=True)
    (vault / folder / "2026-11-16.md").write_text("# Today\n", encoding="utf-8")
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian" / "daily-notes.json").write_text(json.dumps({"folder": "Journal/Café"}), encoding="utf-8")
    before = vault_hashes(vault)

    [today] = propose(toolbox, "edit_daily_note", command="append", date="2026-11-16", content="- ran 5 km")
    [tomorrow] = propose(toolbox, "edit_daily_note", command="append", date="2026-11-17", content="- rest")

    assert today.path == f"{folder}/2026-11-16.md" and today.new_text == "# Today\n- ran 5 km\n"
    assert tomorrow.path == f"{folder}/2026-11-17.md"  # no look-alike "Café" folder beside the real one
    assert vault_hashes(vault) == before
