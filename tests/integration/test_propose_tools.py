"""The propose-only write tool over a copy of sample_vault: proposals are stored, the vault never changes."""

from __future__ import annotations

import asyncio
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.propose import WRITE_TOOLS, ProposalToolbox
from agent.tools.outcome import ToolOutcome
from core.errors import InvalidRequest, NotFound
from edits.diffs import content_hash, unified_diff
from edits.proposals import SqliteProposalStore
from rag.notes.kept_conventions import KEPT_TAG_MIN_TASKS, kept_task_tag
from tests.edit_fakes import write_settings, write_tools_reader
from tests.vault_state import vault_hashes

NOW = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
NOTE = "Projects/Garden.md"
NOTE_TEXT = "---\ntags:\n  - plants\n---\n# Garden\n## Ideas\n- one\n\n## Tasks\n- [ ] water\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(Path(__file__).resolve().parents[2] / "sample_vault", root)
    (root / NOTE).write_text(NOTE_TEXT, encoding="utf-8")
    (root / "Private").mkdir()
    (root / "Private" / "diary.md").write_text("secret\n", encoding="utf-8")
    return root


def make_toolbox(vault: Path, store: SqliteProposalStore, **overrides: object) -> ProposalToolbox:
    settings = write_settings(**{"private_folders": ("Private",), "max_note_bytes": 2_000, **overrides})
    return ProposalToolbox(write_tools_reader(vault, NOW), store, settings, conversation_id="c1", clock=lambda: NOW)


@pytest.fixture
def toolbox(vault: Path, store: SqliteProposalStore) -> ProposalToolbox:
    return make_toolbox(vault, store)


def run(toolbox: ProposalToolbox, name: str, arguments_json: str) -> ToolOutcome:
    return asyncio.run(toolbox.run(name, arguments_json))


CALLS = [
    {"command": "create", "path": "Inbox/New idea", "content": "# New idea\nbody"},
    {"command": "append", "path": NOTE, "content": "end"},
    {"command": "prepend", "path": NOTE, "content": "start"},
    {"command": "append_to_section", "path": NOTE, "heading": "Ideas", "content": "- two"},
    {"command": "prepend_to_section", "path": NOTE, "heading": "Ideas", "content": "- zero"},
    {"command": "replace_section", "path": NOTE, "heading": "Tasks", "content": "- [ ] dig"},
    {"command": "set_property", "path": NOTE, "property": "status", "value": "active"},
    {"command": "remove_property", "path": NOTE, "property": "tags"},
    {"command": "add_tag", "path": NOTE, "value": "#veg"},
    {"command": "remove_tag", "path": NOTE, "value": "plants"},
    {"command": "add_alias", "path": NOTE, "value": "Veg patch"},
    {"command": "add_task", "path": NOTE, "heading": "Tasks", "content": "weed"},
    {"command": "toggle_task", "path": NOTE, "content": "water"},
]


@pytest.mark.parametrize("arguments", CALLS, ids=[str(call["command"]) for call in CALLS])
def test_each_command_stores_a_proposal_and_leaves_the_vault_byte_identical(
    arguments: dict[str, object], vault: Path, store: SqliteProposalStore, toolbox: ProposalToolbox
) -> None:
    before = vault_hashes(vault)
    outcome = run(toolbox, "edit_note", json.dumps(arguments))
    assert vault_hashes(vault) == before
    [proposal] = store.pending("c1", NOW)
    assert outcome.text.startswith(f"Proposed change {proposal.id} (not applied yet) to {proposal.path}:\n```diff\n")
    assert proposal.diff in outcome.text
    assert "The user must reply yes to apply it." in outcome.text
    if arguments["command"] == "create":
        assert (proposal.path, proposal.base_hash, proposal.kind) == ("Inbox/New idea.md", None, "create")
        assert proposal.new_text == "# New idea\nbody\n"
    else:
        assert proposal.base_hash == content_hash(NOTE_TEXT)
        assert proposal.kind == "replace"
        assert proposal.new_text is not None and proposal.new_text != NOTE_TEXT
        assert proposal.diff == unified_diff(NOTE, NOTE_TEXT, proposal.new_text)
    assert proposal.operation == str(arguments["command"]).replace("_", " ")


def test_toggle_task_proposal_holds_the_checked_task(store: SqliteProposalStore, toolbox: ProposalToolbox) -> None:
    run(toolbox, "edit_note", json.dumps({"command": "toggle_task", "path": NOTE, "line": 10}))
    [proposal] = store.pending("c1", NOW)
    assert proposal.new_text == NOTE_TEXT.replace("- [ ] water", "- [x] water")
    assert "-- [ ] water\n+- [x] water\n" in proposal.diff


REFUSED = [
    ({"command": "append", "path": ".obsidian/app.json", "content": "x"}, InvalidRequest, "never written"),
    ({"command": "append", "path": ".obsidian/notes.md", "content": "x"}, InvalidRequest, "never written"),
    ({"command": "create", "path": "../x.md", "content": "x"}, InvalidRequest, "'..' is refused"),
    ({"command": "append", "path": "Private/diary.md", "content": "x"}, InvalidRequest, "private folder"),
    ({"command": "create", "path": "/etc/x.md", "content": "x"}, InvalidRequest, "absolute paths"),
    ({"command": "append", "path": NOTE, "content": "x" * 3_000}, InvalidRequest, "above the limit"),
    ({"command": "create", "path": NOTE, "content": "x"}, InvalidRequest, "already exists"),
    ({"command": "append", "path": "Inbox/Missing.md", "content": "x"}, NotFound, "does not exist"),
    ({"command": "add_tag", "path": NOTE, "value": "plants"}, InvalidRequest, "already has"),
    ({"command": "delete", "path": NOTE}, InvalidRequest, "invalid arguments for edit_note"),
    ({"command": "append", "path": NOTE, "content": "x", "force": True}, InvalidRequest, "unknown parameter"),
]


@pytest.mark.parametrize(("arguments", "error", "message"), REFUSED, ids=[str(r[0]["path"]) + r[2] for r in REFUSED])
def test_refused_calls_store_nothing_and_change_nothing(
    arguments: dict[str, object],
    error: type[Exception],
    message: str,
    vault: Path,
    store: SqliteProposalStore,
    toolbox: ProposalToolbox,
) -> None:
    before = vault_hashes(vault)
    with pytest.raises(error, match=message):
        run(toolbox, "edit_note", json.dumps(arguments))
    assert vault_hashes(vault) == before
    assert store.pending("c1", NOW) == []


def test_symlink_leading_outside_the_vault_is_refused(
    vault: Path, tmp_path: Path, store: SqliteProposalStore, toolbox: ProposalToolbox
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("outside\n", encoding="utf-8")
    (vault / "Inbox" / "link.md").symlink_to(outside)
    with pytest.raises(InvalidRequest, match="outside the vault"):
        run(toolbox, "edit_note", json.dumps({"command": "append", "path": "Inbox/link.md", "content": "x"}))
    assert outside.read_text(encoding="utf-8") == "outside\n"
    assert store.pending("c1", NOW) == []


def test_toolbox_offers_only_propose_tools_edit_note_first(toolbox: ProposalToolbox) -> None:
    specs = toolbox.specs()
    assert [spec.name for spec in specs] == [tool.name for tool in WRITE_TOOLS]
    names = ["edit_note", "edit_daily_note", "add_base_item", "move_note", "delete_note"]
    assert [spec.name for spec in specs] == names
    spec = specs[0]
    assert "Nothing is written" in spec.description
    properties = spec.parameters["properties"]
    assert isinstance(properties, dict) and {"command", "path", "content"} <= set(properties)
    for other in specs[1:]:
        assert "yes" in other.description  # every write tool tells the model that only the user's yes applies it


@pytest.mark.parametrize("target", [".obsidian/app.json", "Private/diary.md"])
@pytest.mark.parametrize("command", ["append", "delete"])
def test_a_symlink_inside_the_vault_cannot_reach_protected_notes(
    target: str, command: str, vault: Path, store: SqliteProposalStore, toolbox: ProposalToolbox
) -> None:
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian" / "app.json").write_text("{}\n", encoding="utf-8")
    (vault / "Inbox" / "harmless.md").symlink_to(vault / target)
    before = vault_hashes(vault)
    name, arguments = (
        ("edit_note", {"command": "append", "path": "Inbox/harmless.md", "content": "x"})
        if command == "append"
        else ("delete_note", {"path": "Inbox/harmless.md"})
    )
    with pytest.raises((InvalidRequest, NotFound)) as refused:
        run(toolbox, name, json.dumps(arguments))
    assert "secret" not in str(refused.value)
    assert vault_hashes(vault) == before
    assert store.pending("c1", NOW) == []


DEPLOY = "Projects/Deploy.md"
TOKEN = "ghx7Qm2Lp9Zr4Tv8Wn3Ks6Yd1Fb5Hc0J"


def test_the_diff_the_model_reads_masks_credentials_in_its_context_lines(vault: Path, toolbox: ProposalToolbox) -> None:
    (vault / DEPLOY).write_text(f"# Deploy\n## Keys\nAPI_TOKEN={TOKEN}\n", encoding="utf-8")

    outcome = run(toolbox, "edit_note", json.dumps({"command": "append", "path": DEPLOY, "content": "- rotate keys"}))

    assert TOKEN not in outcome.text and "API_TOKEN=[redacted secret]" in outcome.text
    assert toolbox.proposals[0].diff.count(TOKEN) == 1  # what the user approves is the real change


def test_an_edit_that_writes_back_a_masked_credential_is_refused(
    vault: Path, store: SqliteProposalStore, toolbox: ProposalToolbox
) -> None:
    (vault / DEPLOY).write_text(f"# Deploy\n## Keys\nAPI_TOKEN={TOKEN}\n", encoding="utf-8")
    rewrite = {
        "command": "replace_section",
        "path": DEPLOY,
        "heading": "Keys",
        "content": "API_TOKEN=[redacted secret]",
    }

    with pytest.raises(InvalidRequest, match="how credentials in notes are shown"):
        run(toolbox, "edit_note", json.dumps(rewrite))
    assert store.pending("c1", NOW) == []


def test_a_task_carries_the_tasks_plugins_global_filter_when_the_vault_sets_one(
    vault: Path, store: SqliteProposalStore, toolbox: ProposalToolbox
) -> None:
    plugin = vault / ".obsidian" / "plugins" / "obsidian-tasks-plugin"
    plugin.mkdir(parents=True)
    (plugin / "data.json").write_text(json.dumps({"globalFilter": "#task"}), encoding="utf-8")

    added = run(toolbox, "edit_note", json.dumps({"command": "add_task", "path": NOTE, "content": "weed"}))
    tagged = run(toolbox, "edit_note", json.dumps({"command": "add_task", "path": NOTE, "content": "dig #task"}))
    daily = run(toolbox, "edit_daily_note", json.dumps({"command": "add_task", "date": "today", "content": "sow"}))

    assert "+- [ ] #task weed" in added.text  # as the plugin writes it: without the filter it is no task to it
    assert "+- [ ] dig #task" in tagged.text  # holding it already: as written
    assert "+- [ ] #task sow" in daily.text


def test_in_a_vault_without_its_settings_a_task_carries_the_tag_nearly_all_its_tasks_hold(
    tmp_path: Path, store: SqliteProposalStore
) -> None:
    # obsidian-tasks-demo, exported without `.obsidian/`: 844 of its 896 checkboxes hold its lost global filter.
    vault = tmp_path / "exported"
    (vault / "Projects").mkdir(parents=True)
    (vault / NOTE).write_text(NOTE_TEXT.replace("- [ ] water", "- [ ] #task water"), encoding="utf-8")
    tasks = "".join(f"- [ ] #task chore {n}\n" for n in range(KEPT_TAG_MIN_TASKS))
    (vault / "Chores.md").write_text(f"# Chores\n{tasks}- [ ] a checklist item\n", encoding="utf-8")
    toolbox = make_toolbox(vault, store)

    added = run(toolbox, "edit_note", json.dumps({"command": "add_task", "path": NOTE, "content": "weed"}))
    daily = run(toolbox, "edit_daily_note", json.dumps({"command": "add_task", "date": "today", "content": "sow"}))

    assert "+- [ ] #task weed" in added.text and "+- [ ] #task sow" in daily.text
    # With its settings kept, they say: no global filter set, none added.
    (vault / ".obsidian").mkdir()
    kept = run(
        make_toolbox(vault, store), "edit_note", json.dumps({"command": "add_task", "path": NOTE, "content": "dig"})
    )
    assert "+- [ ] dig" in kept.text


def test_a_tag_some_tasks_hold_is_no_convention() -> None:
    assert kept_task_tag(["#task a"] * 30 + ["b"] * 30) == ""
    assert kept_task_tag(["#task a"] * (KEPT_TAG_MIN_TASKS - 1)) == ""  # too few to tell
    assert kept_task_tag(["#Task a #work"] * 19 + ["#work b"]) == "#work"
    assert kept_task_tag(["#Task a"] * 10 + ["#task b"] * 10) == "#Task"  # one tag, however cased
