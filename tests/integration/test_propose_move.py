"""move_note and delete_note over a tmp vault: propose (vault untouched), apply with both writers, undo."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from agent.propose import WRITE_TOOLS, ProposalToolbox
from agent.propose.move import MOVE_TOOLS
from agent.tools.reader import VaultReader
from core.edits import ApplyReport, ProposedEdit
from core.errors import InvalidRequest, NotFound
from core.ports import NoteWriter
from edits.apply import apply_edits
from edits.changelog import SqliteChangeLog
from edits.proposals import SqliteProposalStore
from edits.undo import undo_last
from edits.writers.files import FileVaultWriter
from edits.writers.rest import LocalRestApiWriter
from tests.edit_fakes import write_settings, write_tools_reader
from tests.obsidian_standin import StandinVault
from tests.vault_state import vault_hashes, write_notes

NOW = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
NOTES = {
    "Projects/Garden.md": (
        "---\ntags: [plants]\n---\n# Garden\n## Ideas\n- see [[Garden#Ideas]]\n- [c](../Areas/Compost.md)\n"
    ),
    "Areas/Compost.md": "# Compost\nFor the [[Garden]] and [[Projects/Garden#Ideas|ideas]].\n",
    "Daily/2024-05-01.md": '---\nup: "[[Garden]]"\n---\nWorked on ![[Garden]].\n```\n[[Garden]] in code\n```\n',
    "Inbox/Links.md": "[plan](../Projects/Garden.md) and [ideas](Projects/Garden.md#Ideas)\n",
    "Home.md": "[[Compost]] and [[Garden|my garden]]\n",
    "Unrelated.md": "# Nothing to see [[Compost]]\n",
}
BACKLINKS = {"Areas/Compost.md", "Daily/2024-05-01.md", "Inbox/Links.md", "Home.md"}


def reader_for(vault: Path) -> VaultReader:
    return write_tools_reader(vault, NOW)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_notes(tmp_path / "vault", {**NOTES, "Private/diary.md": "[[Garden]]\n"})


def make_toolbox(vault: Path, store: SqliteProposalStore, **overrides: object) -> ProposalToolbox:
    settings = write_settings(**{"private_folders": ("Private",), "max_writes_per_turn": 10, **overrides})
    return ProposalToolbox(
        reader_for(vault), store, settings, conversation_id="c1", clock=lambda: NOW, tools=(*WRITE_TOOLS, *MOVE_TOOLS)
    )


def propose(toolbox: ProposalToolbox, tool: str, **arguments: str) -> list[ProposedEdit]:
    known = len(toolbox.proposals)
    asyncio.run(toolbox.run(tool, json.dumps(arguments)))
    return toolbox.proposals[known:]


def apply(proposals: list[ProposedEdit], writer: NoteWriter, log: SqliteChangeLog) -> ApplyReport:
    return asyncio.run(apply_edits(proposals, writer=writer, log=log, settings=write_settings(), now=NOW))


def undo(writer: NoteWriter, log: SqliteChangeLog) -> None:
    asyncio.run(undo_last(writer=writer, log=log, now=NOW + timedelta(minutes=1), confirm=True))


@pytest.fixture(params=["files", "rest-4.1.7", "rest-3.6.2"])
def writer(request: pytest.FixtureRequest, vault: Path) -> Iterator[NoteWriter]:
    if request.param == "files":
        yield FileVaultWriter(vault)
    else:
        # 4.1.7 has MOVE, and Obsidian rewrites the wikilinks itself; 3.6.2 has no MOVE, so the writer copies.
        flavor = "4.1.7" if request.param == "rest-4.1.7" else "3.6.2"
        with StandinVault(vault, api_key="k", flavor=flavor) as standin:
            yield LocalRestApiWriter(standin.base_url, "k")


def test_move_tools_say_nothing_is_written_until_yes_and_delete_goes_to_trash() -> None:
    move, delete = (tool.spec() for tool in MOVE_TOOLS)
    assert (move.name, delete.name) == ("move_note", "delete_note")
    assert "Nothing is written" in move.description and "replies yes" in move.description
    assert ".trash/" in delete.description and "replies yes" in delete.description


@pytest.mark.parametrize(
    ("new_path", "target"),
    [
        ("Garden plan", "Projects/Garden plan.md"),
        ("Archive/", "Archive/Garden.md"),
        ("Archive/Plot", "Archive/Plot.md"),
    ],
)
def test_proposing_a_move_plans_the_move_and_link_updates_and_leaves_the_vault_byte_identical(
    vault: Path, store: SqliteProposalStore, new_path: str, target: str
) -> None:
    before = vault_hashes(vault)
    move, *updates = propose(make_toolbox(vault, store), "move_note", path="[[Garden]]", new_path=new_path)
    assert vault_hashes(vault) == before
    assert (move.operation, move.path, move.new_path, move.kind) == ("move", "Projects/Garden.md", target, "move")
    assert all(update.operation == "update links" and update.depends_on == move.id for update in updates)
    assert {update.path for update in updates} <= BACKLINKS
    assert "Private/diary.md" not in {update.path for update in updates}
    assert [p.id for p in store.pending("c1", NOW)] == [move.id, *(update.id for update in updates)]


def test_a_rename_rewrites_every_link_form_and_a_folder_move_only_the_ones_that_break(
    vault: Path, store: SqliteProposalStore
) -> None:
    move, *updates = propose(make_toolbox(vault, store), "move_note", path="Garden", new_path="Garden plan")
    texts = {update.path: update.new_text for update in updates}
    assert move.new_text == NOTES["Projects/Garden.md"].replace("[[Garden#Ideas]]", "[[Garden plan#Ideas]]")
    assert texts["Areas/Compost.md"] == "# Compost\nFor the [[Garden plan]] and [[Projects/Garden plan#Ideas|ideas]].\n"
    assert texts["Daily/2024-05-01.md"] == NOTES["Daily/2024-05-01.md"].replace(
        '"[[Garden]]"', '"[[Garden plan]]"'
    ).replace("![[Garden]]", "![[Garden plan]]")
    assert (
        texts["Inbox/Links.md"] == "[plan](../Projects/Garden%20plan.md) and [ideas](Projects/Garden%20plan.md#Ideas)\n"
    )
    assert texts["Home.md"] == "[[Compost]] and [[Garden plan|my garden]]\n"

    store_two = SqliteProposalStore(vault.parent / "data" / "other.sqlite")
    move, *updates = propose(
        make_toolbox(vault, store_two), "move_note", path="Projects/Garden.md", new_path="Archive/"
    )
    store_two.close()
    # [[Garden]] stays unique, so only path links and the moved note's relative link change.
    assert move.new_text == NOTES["Projects/Garden.md"]  # ../Areas/Compost.md still resolves from Archive/
    assert {update.path: update.new_text for update in updates} == {
        "Areas/Compost.md": "# Compost\nFor the [[Garden]] and [[Archive/Garden#Ideas|ideas]].\n",
        "Inbox/Links.md": "[plan](../Archive/Garden.md) and [ideas](Archive/Garden.md#Ideas)\n",
    }


@pytest.mark.parametrize("new_path", ["Garden plan", "Archive/Deep/"])
def test_an_approved_move_applies_with_both_writers_every_backlink_resolves_and_undo_restores_all(
    vault: Path,
    store: SqliteProposalStore,
    log: SqliteChangeLog,
    writer: NoteWriter,
    new_path: str,
    request: pytest.FixtureRequest,
) -> None:
    original = vault_hashes(vault)
    proposals = propose(make_toolbox(vault, store), "move_note", path="Garden", new_path=new_path)
    report = apply(proposals, writer, log)
    by_obsidian = {o.path for o in report.outcomes if o.message.endswith("already reads as proposed")}
    # A note Obsidian's MOVE already fixed counts as applied (reported "unchanged" by newer apply_edits).
    assert len(report.outcomes) == len(proposals)
    assert all(o.status == "applied" or (o.status == "unchanged" and o.path in by_obsidian) for o in report.outcomes)
    if request.node.callspec.params["writer"] == "rest-4.1.7":  # Obsidian's MOVE already fixed the wikilinks
        assert "Areas/Compost.md" in by_obsidian and "Inbox/Links.md" not in by_obsidian
    else:
        assert by_obsidian == set()
    moved = proposals[0].new_path
    assert moved is not None and (vault / moved).is_file() and not (vault / "Projects" / "Garden.md").exists()
    snapshot = reader_for(vault).snapshot()
    assert {link.source for link in snapshot.incoming[moved]} == BACKLINKS
    for source in BACKLINKS:
        assert all(item.path is not None for item in snapshot.outgoing[source]), source
    for proposal in proposals:
        assert (vault / (proposal.new_path or proposal.path)).read_text(encoding="utf-8") == proposal.new_text

    undo(writer, log)
    assert vault_hashes(vault) == original


def test_link_updates_approved_without_their_move_apply_nothing(
    vault: Path, store: SqliteProposalStore, log: SqliteChangeLog
) -> None:
    original = vault_hashes(vault)
    _, *updates = propose(make_toolbox(vault, store), "move_note", path="Garden", new_path="Garden plan")
    report = apply(updates, FileVaultWriter(vault), log)
    assert {outcome.status for outcome in report.outcomes} == {"skipped"}
    assert vault_hashes(vault) == original


def test_delete_names_the_notes_whose_links_break_and_goes_to_the_trash(
    vault: Path, store: SqliteProposalStore, log: SqliteChangeLog, writer: NoteWriter
) -> None:
    original = vault_hashes(vault)
    [proposal] = propose(make_toolbox(vault, store), "delete_note", path="Projects/Garden")
    assert vault_hashes(vault) == original
    assert (proposal.kind, proposal.new_text, proposal.path) == ("delete", None, "Projects/Garden.md")
    assert proposal.operation == (
        "delete to .trash/ (links to it break in Areas/Compost.md, Daily/2024-05-01.md, Home.md, Inbox/Links.md)"
    )
    assert [outcome.status for outcome in apply([proposal], writer, log).outcomes] == ["applied"]
    assert not (vault / "Projects" / "Garden.md").exists()
    assert (vault / ".trash" / "Projects" / "Garden.md").read_text(encoding="utf-8") == NOTES["Projects/Garden.md"]
    undo(writer, log)
    assert (vault / "Projects" / "Garden.md").read_text(encoding="utf-8") == NOTES["Projects/Garden.md"]


def test_delete_of_an_unlinked_note_says_only_where_it_goes(vault: Path, store: SqliteProposalStore) -> None:
    [proposal] = propose(make_toolbox(vault, store), "delete_note", path="Unrelated")
    assert proposal.operation == "delete to .trash/"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"path": "Compost", "new_path": "Projects/Garden"}, "already exists at 'Projects/Garden.md'"),
        ({"path": "Garden", "new_path": "Projects/Garden.md"}, "already at that path"),
        ({"path": "Garden", "new_path": "Garden: plan"}, "contains ':'"),
        ({"path": "Garden", "new_path": "Garden #2"}, "contains '#'"),
        ({"path": "Garden", "new_path": "Garden [old]"}, "contains '\\['"),
        ({"path": "Garden", "new_path": "What is RAG?"}, r"'What is RAG\?' contains '\?'.*e.g. 'What is RAG'"),
        ({"path": "Garden", "new_path": "Garden.txt"}, "only Markdown notes"),
        ({"path": "Garden", "new_path": "Private/"}, "private folder"),
        ({"path": "Garden", "new_path": ".trash/"}, "hidden"),
        ({"path": "Garden", "new_path": "../Outside"}, "leaves the vault"),
        ({"path": "Unrelated", "new_path": "home"}, "only in case|already exists"),
        ({"path": "Nope", "new_path": "Archive/"}, "no note named 'Nope'"),
        ({"path": "Garden", "new_path": "Inbox"}, "'Inbox' is a folder: pass 'Inbox/'"),
        ({"path": "Private/diary.md", "new_path": "Inbox/"}, "private folder"),
    ],
)
def test_bad_moves_are_refused_clearly_and_store_nothing(
    vault: Path, store: SqliteProposalStore, arguments: dict[str, str], message: str
) -> None:
    with pytest.raises((InvalidRequest, NotFound), match=message):
        propose(make_toolbox(vault, store), "move_note", **arguments)
    assert store.pending("c1", NOW) == []


def test_moving_out_of_the_writable_folders_is_refused_by_the_toolbox(vault: Path, store: SqliteProposalStore) -> None:
    toolbox = make_toolbox(vault, store, writable_folders=("Projects", "Areas", "Daily", "Inbox"))
    with pytest.raises(InvalidRequest, match="outside the writable folders"):
        propose(toolbox, "move_note", path="Garden", new_path="Archive/")
    with pytest.raises(InvalidRequest, match="outside the writable folders"):
        propose(toolbox, "move_note", path="Home", new_path="Projects/")


def test_links_in_notes_that_may_not_be_written_are_named_not_changed(vault: Path, store: SqliteProposalStore) -> None:
    toolbox = make_toolbox(vault, store, writable_folders=("Projects", "Areas"))
    move, *updates = propose(toolbox, "move_note", path="Garden", new_path="Garden plan")
    assert [update.path for update in updates] == ["Areas/Compost.md"]
    assert (
        move.operation
        == "move (links in Daily/2024-05-01.md, Home.md, Inbox/Links.md break: those notes may not be written)"
    )


def test_a_target_proposed_earlier_this_turn_is_taken_and_a_created_note_can_be_moved(
    vault: Path, store: SqliteProposalStore
) -> None:
    toolbox = make_toolbox(vault, store)
    [create] = propose(toolbox, "edit_note", command="create", path="Archive/Garden.md", content="# New")
    with pytest.raises(InvalidRequest, match="already exists at 'Archive/Garden.md'"):
        propose(toolbox, "move_note", path="Garden", new_path="Archive/")
    [move] = propose(toolbox, "move_note", path="Archive/Garden.md", new_path="Archive/Old garden")
    assert (move.new_path, move.depends_on, move.new_text) == ("Archive/Old garden.md", create.id, "# New\n")


def test_a_note_edited_earlier_this_turn_moves_with_its_edit(vault: Path, store: SqliteProposalStore) -> None:
    toolbox = make_toolbox(vault, store)
    [edit] = propose(
        toolbox, "edit_note", command="append", path="Projects/Garden.md", content="- [[Garden#Ideas]] again"
    )
    move, *_ = propose(toolbox, "move_note", path="Garden", new_path="Garden plan")
    assert move.depends_on == edit.id
    assert move.new_text is not None and move.new_text.endswith("- [[Garden plan#Ideas]] again\n")
    with pytest.raises(NotFound, match="moved or deleted by a change proposed earlier"):
        propose(toolbox, "delete_note", path="Projects/Garden.md")


# -- the stand-in's MOVE (plugin 4.1+), which the REST writer relies on ------------------------------------------


def test_standin_move_renames_rewrites_wikilinks_and_answers_like_the_plugin(vault: Path) -> None:
    with StandinVault(vault, api_key="k") as standin, httpx.Client(base_url=standin.base_url) as http:
        headers = {**standin.auth_headers, "Destination": "Archive/Garden%20plan.md"}
        response = http.request("MOVE", "/vault/Projects/Garden.md", headers=headers)
        assert (response.status_code, response.headers["content-location"]) == (204, "Archive/Garden%20plan.md")
        compost = (vault / "Areas" / "Compost.md").read_text(encoding="utf-8")
        assert compost == "# Compost\nFor the [[Garden plan]] and [[Archive/Garden plan#Ideas|ideas]].\n"
        assert (vault / "Daily" / "2024-05-01.md").read_text(encoding="utf-8") == NOTES["Daily/2024-05-01.md"].replace(
            '"[[Garden]]"', '"[[Garden plan]]"'
        ).replace("![[Garden]]", "![[Garden plan]]")
        assert (vault / "Inbox" / "Links.md").read_text(encoding="utf-8") == NOTES["Inbox/Links.md"]
        back = {**standin.auth_headers, "Destination": "Projects/Garden.md"}
        assert http.request("MOVE", "/vault/Archive/Garden%20plan.md", headers=back).status_code == 204
        assert (vault / "Areas" / "Compost.md").read_text(encoding="utf-8") == NOTES["Areas/Compost.md"]
        taken = {**standin.auth_headers, "Destination": "Home.md"}
        conflict = http.request("MOVE", "/vault/Unrelated.md", headers=taken)
        assert (conflict.status_code, conflict.json()["errorCode"]) == (409, 40920)
        missing = http.request("MOVE", "/vault/Unrelated.md", headers=standin.auth_headers)
        assert missing.json() == {"message": "Destination header is required for MOVE operations.", "errorCode": 40020}
        gone = http.request("MOVE", "/vault/Nope.md", headers={**standin.auth_headers, "Destination": "X.md"})
        assert gone.status_code == 404
        into_folder = {**standin.auth_headers, "Destination": "Archive/"}
        assert http.request("MOVE", "/vault/Unrelated.md", headers=into_folder).status_code == 204
        assert (vault / "Archive" / "Unrelated.md").is_file()


def test_standin_3_x_has_no_move(vault: Path) -> None:
    with StandinVault(vault, api_key="k", flavor="3.6.2") as standin, httpx.Client(base_url=standin.base_url) as http:
        response = http.request("MOVE", "/vault/Home.md", headers={**standin.auth_headers, "Destination": "H.md"})
        assert response.status_code == 405 and (vault / "Home.md").is_file()
