"""Crew actions on a real vault: planned from the bound output, checked (stage 2), applied as the run's change set."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from core.edits import ApplyReport
from core.errors import InvalidRequest
from core.ports import NoteWriter
from core.settings import Settings
from crews.definitions import ActionsTask, TeamSpec
from crews.model import BoundOutput, FrontmatterChange, Material, MaterialItem, PlannedWrite, Rejection
from crews.writes.actions import ActionContext, count_actions, plan_writes, validate_action_params
from crews.writes.apply_run import apply_planned
from crews.writes.guard import check_writes, is_over_half
from edits.changelog import SqliteChangeLog, new_change_set_id
from edits.diffs import content_hash
from edits.lock import EditLock
from edits.undo import undo_change_set
from edits.writers.files import FileVaultWriter
from edits.writers.rest import LocalRestApiWriter
from tests.edit_fakes import write_settings
from tests.obsidian_standin import obsidian_standin

KEY = "k" * 64
TODAY = date(2026, 1, 5)
NOW = datetime(2026, 1, 5, 7, 30).astimezone()
DAILY = "Daily/2026-01-05.md"
TEMPLATE = "---\ntags: [daily]\n---\n# {{date:dddd, MMMM D}}\n\n## Briefing\n\n## Notes\n- {{time}}\n"
REPORT = (
    '---\r\ntitle: "Write report"  # the title\r\npriority: low\r\ntags:\r\n  - work\r\nstatus: open\r\n---\r\n'
    "# Write report\r\n\r\nDraft it, then send it.\r\n"
)
CALLS = "---\nPriority: low\ncontexts: [phone, home]\nestimate: 3\n---\nCall the plumber.\n"
FRONTMATTER = ActionsTask(id="apply", actions="frontmatter.set")
SECTION = ActionsTask(id="write", actions="section.replace", params={"note": "{daily}", "heading": "Briefing"})
BRIEFING = TeamSpec.model_validate(
    {
        "name": "Daily-Briefing",
        "write_scope": ["{daily}"],
        "tasks": [
            {"id": "open-tasks", "collector": "tasks.open"},
            {"id": "briefing", "agent": "Briefer", "output": {"family": "section.write"}},
            SECTION.model_dump(),
        ],
    }
)
TRIAGE = TeamSpec.model_validate(
    {
        "name": "Task-Triage",
        "write_scope": ["TaskNotes/**"],
        "tasks": [
            {"id": "backlog", "collector": "tasknotes.query", "params": {"folder": "TaskNotes"}},
            {"id": "triage", "agent": "Triage", "output": {"family": "frontmatter.set", "allowed_keys": ["priority"]}},
            FRONTMATTER.model_dump(),
        ],
    }
)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    files = {
        ".obsidian/daily-notes.json": json.dumps({"folder": "Daily", "template": "Templates/Daily"}),
        "Templates/Daily.md": TEMPLATE,
        "TaskNotes/Write report.md": REPORT,
        "TaskNotes/Call plumber.md": CALLS,
        "Inbox/Idea.md": "# Idea\n",
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(text.encode("utf-8"))
    return root


@pytest.fixture
def context(vault: Path) -> ActionContext:
    settings = Settings(_env_file=None, vault_path=vault, ignore_globs=("Templates/**",)).vault
    return ActionContext(settings, write_settings(max_writes_per_turn=2), "_crews", TODAY, NOW)


@pytest.fixture(params=["files", "rest"])
def writer(request: pytest.FixtureRequest, vault: Path) -> Iterator[NoteWriter]:
    if request.param == "files":
        yield FileVaultWriter(vault)
    else:
        with obsidian_standin(vault, api_key=KEY) as base_url:
            yield LocalRestApiWriter(base_url, KEY)


def collected(vault: Path, *paths: str) -> Material:
    items = []
    for path in paths:
        target = vault / path
        text = target.read_bytes().decode("utf-8") if target.is_file() else None
        items.append(MaterialItem(path, None if text is None else content_hash(text), Path(path).stem))
    return Material("tasknotes.query", tuple(items))


def triage(*changes: tuple[str, dict[str, object]], rejected: tuple[Rejection, ...] = ()) -> BoundOutput:
    bound = tuple(FrontmatterChange(path, values) for path, values in changes)  # type: ignore[arg-type]
    return BoundOutput("frontmatter.set", changes=bound, rejected=rejected)


def briefing(markdown: str) -> BoundOutput:
    return BoundOutput("section.write", markdown=markdown)


def apply(
    writes: list[PlannedWrite], writer: NoteWriter, log: SqliteChangeLog, change_set: str, tmp_path: Path
) -> ApplyReport:
    return asyncio.run(
        apply_planned(
            writes, run_id="r1", crew="T", change_set_id=change_set, writer=writer, log=log,
            lock=EditLock(tmp_path / "data" / "edit.lock"), settings=write_settings(), now=datetime.now(UTC),
        )
    )  # fmt: skip


def read(vault: Path, path: str) -> str:
    return (vault / path).read_bytes().decode("utf-8")


# -- frontmatter.set ------------------------------------------------------------------------------------------


def test_frontmatter_set_changes_only_the_proposed_values_and_keeps_every_other_byte(
    vault: Path, context: ActionContext
) -> None:
    output = triage(("TaskNotes/Write report.md", {"priority": "high", "tags": ["work", "urgent"]}))
    writes, rejected = plan_writes(FRONTMATTER, output, collected(vault, "TaskNotes/Write report.md"), context=context)
    assert rejected == []
    [write] = writes
    assert write.new_text == REPORT.replace("priority: low", "priority: high").replace(
        "  - work\r\n", "  - work\r\n  - urgent\r\n"
    )
    assert write.base_hash == content_hash(REPORT)
    assert write.summary == "set priority: high; tags: [work, urgent]"
    assert read(vault, "TaskNotes/Write report.md") == REPORT  # planning writes nothing


def test_values_already_in_place_are_no_write_and_no_rejection(vault: Path, context: ActionContext) -> None:
    output = triage(("TaskNotes/Call plumber.md", {"priority": "low", "contexts": ["home", "phone"], "estimate": "3"}))
    material = collected(vault, "TaskNotes/Call plumber.md")
    assert plan_writes(FRONTMATTER, output, material, context=context) == ([], [])
    assert count_actions(FRONTMATTER, output) == 1  # counted as done, for the over-half rule


def test_a_list_value_replaces_the_list_and_a_property_keeps_its_own_spelling(
    vault: Path, context: ActionContext
) -> None:
    output = triage(("TaskNotes/Call plumber.md", {"priority": "high", "contexts": ["errands"]}))
    material = collected(vault, "TaskNotes/Call plumber.md")
    [write], _ = plan_writes(FRONTMATTER, output, material, context=context)
    assert write.new_text.startswith("---\nPriority: high\ncontexts:\n  - errands\nestimate: 3\n---\n")
    assert write.new_text.endswith("---\nCall the plumber.\n")


def test_changes_of_one_note_make_one_write_and_unknown_notes_are_rejected(vault: Path, context: ActionContext) -> None:
    output = triage(
        ("TaskNotes/Write report.md", {"priority": "high"}),
        ("TaskNotes/Write report.md", {"tags": ["work"]}),
        ("TaskNotes/Invented.md", {"priority": "high"}),
    )
    writes, rejected = plan_writes(FRONTMATTER, output, collected(vault, "TaskNotes/Write report.md"), context=context)
    assert [write.path for write in writes] == ["TaskNotes/Write report.md"]
    assert rejected == [Rejection("TaskNotes/Invented.md", "not among the collected notes")]


def test_over_half_counts_stage_one_and_two_rejections_and_stale_against_all_actions(
    vault: Path, context: ActionContext, writer: NoteWriter
) -> None:
    stage_one = (Rejection("TaskNotes/Call plumber.md: priority", "'urgent' is not a value used in the folder"),)
    output = triage(("TaskNotes/Write report.md", {"priority": "high"}), ("Inbox/Idea.md", {"priority": "high"}),
                    rejected=stage_one)  # fmt: skip
    material = collected(vault, "TaskNotes/Write report.md", "Inbox/Idea.md")
    writes, rejected = plan_writes(FRONTMATTER, output, material, context=context)
    (vault / "TaskNotes" / "Write report.md").write_text("edited meanwhile\n", encoding="utf-8")
    guard = asyncio.run(check_writes(writes, team=TRIAGE, task=FRONTMATTER, context=context, writer=writer))
    total = count_actions(FRONTMATTER, output)
    bad = len(output.rejected) + len(rejected) + len(guard.rejected) + len(guard.stale)
    assert (total, len(guard.stale), len(guard.rejected), guard.accepted) == (3, 1, 1, ())
    assert is_over_half(total, bad)
    assert read(vault, "TaskNotes/Write report.md") == "edited meanwhile\n"


# -- section.replace ------------------------------------------------------------------------------------------


def test_a_missing_daily_note_is_created_from_its_template_with_the_section(
    vault: Path, context: ActionContext
) -> None:
    [write], rejected = plan_writes(SECTION, briefing("- [[Write report]] is overdue\n"), Material("x", ()),
                                    context=context)  # fmt: skip
    assert rejected == [] and write.path == DAILY and write.base_hash is None
    assert write.new_text == (
        "---\ntags: [daily]\n---\n# Monday, January 5\n\n## Briefing\n- [[Write report]] is overdue\n\n"
        "## Notes\n- 07:30\n"
    )
    assert "from the Daily notes template" in write.summary


def test_a_rerun_writes_nothing_with_the_same_text_and_replaces_with_new_text(
    vault: Path, context: ActionContext, writer: NoteWriter, log: SqliteChangeLog, tmp_path: Path
) -> None:
    writes, _ = plan_writes(SECTION, briefing("- one\n- two\n"), Material("x", ()), context=context)
    apply(writes, writer, log, "run1", tmp_path)
    first = read(vault, DAILY)
    assert plan_writes(SECTION, briefing("- one\n- two\n"), Material("x", ()), context=context) == ([], [])
    [write], _ = plan_writes(SECTION, briefing("- three\n"), Material("x", ()), context=context)
    apply([write], writer, log, "run2", tmp_path)
    text = read(vault, DAILY)
    assert text == first.replace("- one\n- two\n", "- three\n")
    assert text.count("## Briefing") == 1 and "## Notes\n" in text


def test_a_missing_heading_is_appended_at_the_end_after_a_blank_line(vault: Path, context: ActionContext) -> None:
    (vault / DAILY).parent.mkdir(parents=True)
    (vault / DAILY).write_text("# Monday\n\nRan 5 km.\n\n\n", encoding="utf-8")
    material = collected(vault, DAILY)
    [write], _ = plan_writes(SECTION, briefing("- a\n"), material, context=context)
    assert write.new_text == "# Monday\n\nRan 5 km.\n\n## Briefing\n- a\n"
    assert write.base_hash == content_hash("# Monday\n\nRan 5 km.\n\n\n")
    (vault / DAILY).write_text(write.new_text, encoding="utf-8")
    assert plan_writes(SECTION, briefing("- a"), material, context=context) == ([], [])


def test_without_a_template_the_daily_note_is_created_with_only_the_section(
    vault: Path, context: ActionContext
) -> None:
    (vault / ".obsidian" / "daily-notes.json").write_text('{"folder": "Daily"}', encoding="utf-8")
    [write], _ = plan_writes(SECTION, briefing("- a\n"), Material("x", ()), context=context)
    assert write.new_text == "## Briefing\n- a\n"


def test_a_broken_template_setting_is_a_rejection_saying_why(vault: Path, context: ActionContext) -> None:
    (vault / ".obsidian" / "daily-notes.json").write_text('{"template": "Templates/Gone"}', encoding="utf-8")
    writes, [rejection] = plan_writes(SECTION, briefing("- a\n"), Material("x", ()), context=context)
    assert writes == [] and "daily notes template 'Templates/Gone' cannot be used" in rejection.reason


def test_the_models_own_heading_is_dropped_and_its_headings_cannot_end_the_section(
    vault: Path, context: ActionContext
) -> None:
    markdown = "## Briefing\n\n- a\n\n## Overdue\n- b\n\nLater\n---\n- c\n"
    [write], _ = plan_writes(SECTION, briefing(markdown), Material("x", ()), context=context)
    assert "## Briefing\n- a\n\n### Overdue\n- b\n\n### Later\n- c\n\n## Notes" in write.new_text
    (vault / DAILY).parent.mkdir(parents=True)
    (vault / DAILY).write_text(write.new_text, encoding="utf-8")
    assert plan_writes(SECTION, briefing(markdown), Material("x", ()), context=context) == ([], [])


def test_an_empty_section_text_is_rejected(vault: Path, context: ActionContext) -> None:
    writes, [rejection] = plan_writes(SECTION, briefing("\n## Briefing\n\n"), Material("x", ()), context=context)
    assert writes == [] and "no text" in rejection.reason


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"heading": "Briefing"}, "needs `note`"),
        ({"note": "{daily}"}, "needs `heading`"),
        ({"note": "{daily}", "heading": "A#B"}, "may not hold '#'"),
        ({"note": "{daily}", "heading": "B", "level": 7}, "level"),
        ({"note": "{daily}", "heading": "B", "mode": "append"}, "not mode"),
    ],
)
def test_bad_section_params_are_refused_at_load_and_at_plan_time(
    vault: Path, context: ActionContext, params: dict[str, object], message: str
) -> None:
    task = ActionsTask(id="write", actions="section.replace", params=params)
    assert message in (validate_action_params(task) or "")
    with pytest.raises(InvalidRequest, match=message):
        plan_writes(task, briefing("- a"), Material("x", ()), context=context)


# -- note.create ----------------------------------------------------------------------------------------------


def test_note_create_makes_a_new_note_and_never_overwrites_one(vault: Path, context: ActionContext) -> None:
    task = ActionsTask(id="report", actions="note.create", params={"path": "Reports/{date} Briefing"})
    [write], _ = plan_writes(task, briefing("# Briefing\n- a"), Material("x", ()), context=context)
    assert (write.path, write.base_hash, write.new_text) == (
        "Reports/2026-01-05 Briefing.md",
        None,
        "# Briefing\n- a\n",
    )
    (vault / "Reports").mkdir()
    (vault / write.path).write_text(write.new_text, encoding="utf-8")
    assert plan_writes(task, briefing("# Briefing\n- a"), Material("x", ()), context=context) == ([], [])
    writes, [rejection] = plan_writes(task, briefing("# Other"), Material("x", ()), context=context)
    assert writes == [] and "never overwrites" in rejection.reason


# -- applied and undone as one change set ---------------------------------------------------------------------


def test_a_runs_writes_are_one_change_set_and_its_undo_restores_byte_for_byte(
    vault: Path, context: ActionContext, writer: NoteWriter, log: SqliteChangeLog, tmp_path: Path
) -> None:
    before = {path: (vault / path).read_bytes() for path in ("TaskNotes/Write report.md", "TaskNotes/Call plumber.md")}
    change_set = new_change_set_id()
    output = triage(
        ("TaskNotes/Write report.md", {"priority": "high"}), ("TaskNotes/Call plumber.md", {"priority": "high"})
    )
    material = collected(vault, "TaskNotes/Write report.md", "TaskNotes/Call plumber.md")
    writes, _ = plan_writes(FRONTMATTER, output, material, context=context)
    guard = asyncio.run(check_writes(writes, team=TRIAGE, task=FRONTMATTER, context=context, writer=writer))
    report = apply(list(guard.accepted), writer, log, change_set, tmp_path)  # 2 writes: within max_writes_per_turn
    [section], _ = plan_writes(SECTION, briefing("- a\n"), Material("x", ()), context=context)
    apply([section], writer, log, change_set, tmp_path)  # a second actions task of the same run
    assert [o.status for o in report.outcomes] == ["applied", "applied"]
    assert read(vault, "TaskNotes/Write report.md").count("priority: high") == 1
    assert {entry.change_set_id for entry in log.change_set(change_set)} == {change_set}
    assert [entry.conversation_id for entry in log.change_set(change_set)] == ["crew:T:r1"] * 3

    plan = asyncio.run(undo_change_set(change_set, writer=writer, log=log, now=datetime.now(UTC), confirm=True))

    assert plan.is_applied and sorted(step.action for step in plan.steps) == ["restore", "restore", "trash"]
    assert {path: (vault / path).read_bytes() for path in before} == before
    assert not (vault / DAILY).exists() and (vault / ".trash" / DAILY).is_file()


def test_apply_planned_refuses_more_writes_than_the_runs_limit(
    vault: Path, context: ActionContext, log: SqliteChangeLog, tmp_path: Path
) -> None:
    writes, _ = plan_writes(SECTION, briefing("- a\n"), Material("x", ()), context=context)
    with pytest.raises(InvalidRequest, match="limit of 0 writes"):
        asyncio.run(
            apply_planned(
                writes, run_id="r", crew="T", change_set_id="s", writer=FileVaultWriter(vault), log=log,
                lock=EditLock(tmp_path / "lock"), settings=write_settings(), now=datetime.now(UTC), max_writes=0,
            )
        )  # fmt: skip
    assert not (vault / DAILY).exists() and log.list() == []


def test_a_section_guarded_against_the_briefing_team_passes_stage_two(vault: Path, context: ActionContext) -> None:
    writes, _ = plan_writes(SECTION, briefing("- a\n"), Material("x", ()), context=context)
    guard = asyncio.run(check_writes(writes, team=BRIEFING, task=SECTION, context=context))
    assert guard.accepted == tuple(writes) and guard.rejected == ()


def test_the_template_setting_resolves_like_a_link_but_never_to_a_private_note(
    vault: Path, context: ActionContext
) -> None:
    for folder, text in (("Meta/Templates", "# Morning {{date}}\n"), ("Private", "# secret template\n")):
        (vault / folder).mkdir(parents=True)
        (vault / folder / "Morning.md").write_text(text, encoding="utf-8")
    (vault / ".obsidian" / "daily-notes.json").write_text('{"folder": "Daily", "template": "Morning"}', "utf-8")
    private = ActionContext(context.vault, write_settings(private_folders=("Private",)), "_crews", TODAY, NOW)
    [write], _ = plan_writes(SECTION, briefing("- a\n"), Material("x", ()), context=private)
    assert write.new_text == "# Morning 2026-01-05\n\n## Briefing\n- a\n"
