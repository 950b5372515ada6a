"""toggle_task and complete_task, with and without the Tasks plugin: proposed, applied and undone on sample_vault."""

from __future__ import annotations

import asyncio
import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.propose import ProposalToolbox
from core.domain import Task
from core.edits import ProposedEdit
from core.errors import InvalidRequest
from edits.apply import apply_edits
from edits.changelog import SqliteChangeLog
from edits.messages.entries import proposal_entries
from edits.proposals import SqliteProposalStore
from edits.undo import undo_last
from edits.writers.files import FileVaultWriter
from rag.notes.kept_conventions import KEPT_DONE_MIN_TASKS, kept_tasks_plugin_settings
from rag.notes.obsidian_config import TasksPluginSettings, tasks_plugin_settings
from tests.edit_fakes import write_settings, write_tools_reader

NOW = datetime(2024, 3, 6, 9, 0, tzinfo=UTC)  # the user's today: Wednesday 2024-03-06
NOTE = "Areas/Chores.md"
CHORES = (
    "# Chores\n"
    "- [ ] Take out the trash 🔁 every week 📅 2024-03-04\n"
    "- [ ] Pay rent 🔁 every month on the last 📅 2024-02-29\n"
    "- [x] Water plants ✅ 2024-03-01\n"
    "- [ ] Call Bob\n"
)
PLUGIN_DATA = ".obsidian/plugins/obsidian-tasks-plugin/data.json"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(Path(__file__).resolve().parents[2] / "sample_vault", root)
    (root / NOTE).write_text(CHORES, encoding="utf-8")
    return root


def with_tasks_plugin(vault: Path, **settings: object) -> None:
    data = vault / PLUGIN_DATA
    data.parent.mkdir(parents=True)
    data.write_text(json.dumps({"globalFilter": "", "taskFormat": "tasksPluginEmoji", **settings}), encoding="utf-8")


def propose_toggle(vault: Path, store: SqliteProposalStore, line: int, command: str = "toggle_task") -> ProposedEdit:
    toolbox = ProposalToolbox(
        write_tools_reader(vault, NOW), store, write_settings(), conversation_id="c1", clock=lambda: NOW
    )
    reply = asyncio.run(toolbox.run("edit_note", json.dumps({"command": command, "path": NOTE, "line": line})))
    assert len(toolbox.proposals) == 1, reply
    return toolbox.proposals[0]


def changed_lines(diff: str) -> list[str]:
    return [line for line in diff.splitlines()[2:] if line[:1] in "+-"]


def apply_then_undo(vault: Path, proposal: ProposedEdit, log: SqliteChangeLog) -> tuple[str, str]:
    """Apply the proposal and undo it; return the note's text after each."""
    writer = FileVaultWriter(vault)
    report = asyncio.run(apply_edits([proposal], writer=writer, log=log, settings=write_settings(), now=NOW))
    assert [outcome.status for outcome in report.outcomes] == ["applied"]
    applied = (vault / NOTE).read_text(encoding="utf-8")
    undone = asyncio.run(undo_last(writer=writer, log=log, now=NOW + timedelta(minutes=1), confirm=True))
    assert undone.is_applied
    return applied, (vault / NOTE).read_text(encoding="utf-8")


def test_completing_a_recurring_task_adds_its_done_date_and_next_occurrence_and_undo_restores_the_note(
    vault: Path, store: SqliteProposalStore, log: SqliteChangeLog
) -> None:
    with_tasks_plugin(vault)
    proposal = propose_toggle(vault, store, 2)

    assert proposal.operation == "toggle task (next occurrence added)"
    assert changed_lines(proposal.diff) == [
        "-- [ ] Take out the trash 🔁 every week 📅 2024-03-04",
        "+- [ ] Take out the trash 🔁 every week 📅 2024-03-11",
        "+- [x] Take out the trash 🔁 every week 📅 2024-03-04 ✅ 2024-03-06",
    ]
    applied, undone = apply_then_undo(vault, proposal, log)
    assert applied == CHORES.replace(
        "- [ ] Take out the trash 🔁 every week 📅 2024-03-04\n",
        "- [ ] Take out the trash 🔁 every week 📅 2024-03-11\n"
        "- [x] Take out the trash 🔁 every week 📅 2024-03-04 ✅ 2024-03-06\n",
    )
    assert undone == CHORES


def test_reopening_a_task_drops_its_done_date_and_undo_puts_it_back(
    vault: Path, store: SqliteProposalStore, log: SqliteChangeLog
) -> None:
    with_tasks_plugin(vault)
    proposal = propose_toggle(vault, store, 4)

    assert changed_lines(proposal.diff) == ["-- [x] Water plants ✅ 2024-03-01", "+- [ ] Water plants"]
    applied, undone = apply_then_undo(vault, proposal, log)
    assert applied == CHORES.replace("- [x] Water plants ✅ 2024-03-01", "- [ ] Water plants")
    assert undone == CHORES


def test_the_plugins_settings_decide_the_format_and_the_done_date(vault: Path, store: SqliteProposalStore) -> None:
    (vault / NOTE).write_text("- [ ] Call Bob  [due:: 2024-03-06]\n- [ ] Call Ann\n", encoding="utf-8")
    with_tasks_plugin(vault, taskFormat="dataview")
    assert (
        changed_lines(propose_toggle(vault, store, 1).diff)[1]
        == "+- [x] Call Bob  [due:: 2024-03-06]  [completion:: 2024-03-06]"
    )
    (vault / PLUGIN_DATA).write_text(json.dumps({"setDoneDate": False}), encoding="utf-8")
    assert changed_lines(propose_toggle(vault, store, 2).diff) == ["-- [ ] Call Ann", "+- [x] Call Ann"]


def test_a_rule_not_computed_here_completes_the_task_and_the_proposal_says_no_next_occurrence_was_made(
    vault: Path, store: SqliteProposalStore
) -> None:
    with_tasks_plugin(vault)
    proposal = propose_toggle(vault, store, 3)

    assert changed_lines(proposal.diff) == [
        "-- [ ] Pay rent 🔁 every month on the last 📅 2024-02-29",
        "+- [x] Pay rent 🔁 every month on the last 📅 2024-02-29 ✅ 2024-03-06",
    ]
    [entry] = proposal_entries([proposal])
    assert "toggle task (next occurrence not created: its rule 'every month on the last' is not supported" in entry


def test_a_vault_without_the_tasks_plugin_gets_a_plain_flip(
    vault: Path, store: SqliteProposalStore, log: SqliteChangeLog
) -> None:
    assert not (vault / PLUGIN_DATA).exists()
    proposal = propose_toggle(vault, store, 2)

    assert proposal.operation == "toggle task"
    assert changed_lines(proposal.diff) == [
        "-- [ ] Take out the trash 🔁 every week 📅 2024-03-04",
        "+- [x] Take out the trash 🔁 every week 📅 2024-03-04",
    ]
    applied, undone = apply_then_undo(vault, proposal, log)
    assert applied == CHORES.replace("- [ ] Take out the trash", "- [x] Take out the trash")
    assert undone == CHORES


def test_a_vault_without_its_settings_whose_done_tasks_are_dated_gets_what_the_plugin_writes(
    vault: Path, store: SqliteProposalStore, log: SqliteChangeLog
) -> None:
    # obsidian-tasks-demo, exported without `.obsidian/`: 50 of its 79 done tasks carry the plugin's "✅" date.
    shutil.rmtree(vault / ".obsidian")
    # Enough to outnumber sample_vault's own 52 done tasks, 41 of them undated.
    done = "".join(f"- [x] Water plants {n} ✅ 2024-02-{n % 28 + 1:02d}\n" for n in range(KEPT_DONE_MIN_TASKS * 12))
    (vault / "Areas" / "Done.md").write_text(f"# Done\n{done}", encoding="utf-8")
    proposal = propose_toggle(vault, store, 2)

    assert proposal.operation == "toggle task (next occurrence added)"
    assert changed_lines(proposal.diff)[-1] == "+- [x] Take out the trash 🔁 every week 📅 2024-03-04 ✅ 2024-03-06"
    applied, undone = apply_then_undo(vault, proposal, log)
    assert "✅ 2024-03-06" in applied and undone == CHORES


def test_done_tasks_mostly_undated_show_no_plugin() -> None:
    dated = [Task("Water ✅ 2024-02-01", "x", n) for n in range(3)]
    undated = [Task("Water", "x", n) for n in range(4)]

    assert kept_tasks_plugin_settings([*dated, *undated]) is None
    assert kept_tasks_plugin_settings(dated) is None  # too few to tell
    assert kept_tasks_plugin_settings(dated * 2) == TasksPluginSettings()
    dataview = [Task("Water [completion:: 2024-02-01]", "x", n) for n in range(6)]
    assert kept_tasks_plugin_settings(dataview) == TasksPluginSettings(is_dataview_format=True)


def test_the_plugins_settings_are_read_from_its_data_json(tmp_path: Path) -> None:
    assert tasks_plugin_settings(tmp_path) is None  # no plugin: toggle_task only flips the checkbox
    data = tmp_path / PLUGIN_DATA
    data.parent.mkdir(parents=True)
    data.write_text("{not json", encoding="utf-8")
    assert tasks_plugin_settings(tmp_path) == TasksPluginSettings()  # the plugin's defaults
    settings = {
        "globalFilter": "#task", "taskFormat": "dataview", "setDoneDate": False, "setCreatedDate": True,
        "recurrenceOnNextLine": True, "removeScheduledDateOnRecurrence": True,
    }  # fmt: skip
    data.write_text(json.dumps(settings), encoding="utf-8")
    assert tasks_plugin_settings(tmp_path) == TasksPluginSettings("#task", True, False, True, True, True)


IN_PROGRESS = "# Chores\n- [/] Paint the fence 📅 2024-03-08\n- [x] Water plants ✅ 2024-03-01\n"


@pytest.mark.parametrize(
    ("has_plugin", "completed"),
    [
        (True, "+- [x] Paint the fence 📅 2024-03-08 ✅ 2024-03-06"),  # as the plugin completes `[/]`: done date
        (False, "+- [x] Paint the fence 📅 2024-03-08"),  # a toggle here would uncheck it to `[ ]`, as Obsidian does
    ],
)
def test_completing_a_task_in_progress_marks_it_done_never_reopens_it_and_undo_restores_it(
    vault: Path, store: SqliteProposalStore, log: SqliteChangeLog, has_plugin: bool, completed: str
) -> None:
    if has_plugin:
        with_tasks_plugin(vault)
    (vault / NOTE).write_text(IN_PROGRESS, encoding="utf-8")
    proposal = propose_toggle(vault, store, 2, command="complete_task")

    assert proposal.operation == "complete task"
    assert changed_lines(proposal.diff) == ["-- [/] Paint the fence 📅 2024-03-08", completed]
    applied, undone = apply_then_undo(vault, proposal, log)
    assert applied.splitlines()[1] == completed[1:]
    assert undone == IN_PROGRESS


def test_completing_a_done_task_is_refused_with_its_state(vault: Path, store: SqliteProposalStore) -> None:
    (vault / NOTE).write_text(IN_PROGRESS, encoding="utf-8")
    toolbox = ProposalToolbox(
        write_tools_reader(vault, NOW), store, write_settings(), conversation_id="c1", clock=lambda: NOW
    )
    with pytest.raises(InvalidRequest, match=r"the task on line 3 is done already \(- \[x\]\)"):
        asyncio.run(toolbox.run("edit_note", json.dumps({"command": "complete_task", "path": NOTE, "line": 3})))
    assert toolbox.proposals == []
