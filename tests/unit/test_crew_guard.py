"""Stage 2 on its own: planned writes that stage 1 would never let through are refused right before the write."""

from __future__ import annotations

import asyncio
import os
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings
from crews.definitions import ActionsTask, TeamSpec
from crews.model import ActionName, PlannedWrite
from crews.writes.action_context import ActionContext
from crews.writes.guard import GuardResult, check_writes, is_over_half, scope_pattern
from edits.diffs import content_hash
from edits.writers.files import FileVaultWriter
from tests.edit_fakes import write_settings

TODAY = date(2026, 1, 5)
NOW = datetime(2026, 1, 5, 7, 0).astimezone()
TASK = "---\ntitle: Write report\npriority: low # soft\nstatus: open\n---\n# Write report\n\nDraft it.\n"
DENIED = [
    ".obsidian/app.json",
    ".obsidian/plugins/x.md",
    ".git/x.md",
    ".trash/TaskNotes/a.md",
    "TaskNotes/.hidden.md",
    "_crews/Task-Triage.md",
    "_Crews/runs/r1/run.md",
    "../x.md",
    "TaskNotes/../../x.md",
    "/etc/x.md",
    "Private/secret.md",
    "private/secret.md",
    "TaskNotes/escape.md",  # a symlink leading out of the vault
    "TaskNotes/inside-link.md",  # a symlink to another note: never followed either
    "TaskNotes/report.base",
]


def team(
    write_scope: list[str], *, keys: tuple[str, ...] = ("priority", "tags"), family: str = "frontmatter.set"
) -> TeamSpec:
    output = {"family": family, "allowed_keys": list(keys)} if family == "frontmatter.set" else {"family": family}
    action = "frontmatter.set" if family == "frontmatter.set" else "section.replace"
    params = {} if family == "frontmatter.set" else {"note": "{daily}", "heading": "Briefing"}
    return TeamSpec.model_validate(
        {
            "name": "T",
            "write_scope": write_scope,
            "tasks": [
                {"id": "collect", "collector": "tasknotes.query", "params": {"folder": "TaskNotes"}},
                {"id": "think", "agent": "Triage", "output": output},
                {"id": "apply", "actions": action, "params": params},
            ],
        }
    )


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for path, text in {
        "TaskNotes/a.md": TASK,
        "TaskNotes/b.md": TASK,
        "Private/secret.md": "secret\n",
        "_crews/Task-Triage.md": "---\ncrew-kind: team\n---\n",
        "Daily/2026-01-05.md": "---\nmood: ok\n---\n# Monday\n",
        ".obsidian/app.json": "{}",
        ".obsidian/daily-notes.json": '{"folder": "Daily"}',
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    (tmp_path / "outside.md").write_text(TASK, encoding="utf-8")
    os.symlink(tmp_path / "outside.md", root / "TaskNotes" / "escape.md")
    os.symlink(root / "TaskNotes" / "a.md", root / "TaskNotes" / "inside-link.md")
    return root


@pytest.fixture
def context(vault: Path) -> ActionContext:
    settings = Settings(_env_file=None, vault_path=vault, private_folders=("Private",)).vault
    return ActionContext(settings, write_settings(private_folders=("Private",)), "_crews", TODAY, NOW)


def planned(
    vault: Path, path: str, new_text: str, *, action: ActionName = "frontmatter.set", base: str | None = "now"
) -> PlannedWrite:
    target = vault / path
    if base == "now":
        base = content_hash(target.read_text(encoding="utf-8")) if target.is_file() else None
    return PlannedWrite(action, path, base, new_text, "diff", "summary")


def check(writes: list[PlannedWrite], spec: TeamSpec, context: ActionContext, **kwargs: Any) -> GuardResult:
    task = spec.tasks[-1]
    assert isinstance(task, ActionsTask)
    return asyncio.run(check_writes(writes, team=spec, context=context, task=task, **kwargs))


def test_a_write_inside_the_scope_that_changes_an_allowed_key_is_accepted(vault: Path, context: ActionContext) -> None:
    write = planned(vault, "TaskNotes/a.md", TASK.replace("priority: low", "priority: high"))
    result = check([write], team(["TaskNotes/**"]), context)
    assert (result.accepted, result.rejected, result.stale) == ((write,), (), ())


@pytest.mark.parametrize("path", DENIED)
def test_the_fixed_denylist_wins_over_a_write_scope_of_everything(
    vault: Path, context: ActionContext, path: str
) -> None:
    write = PlannedWrite("frontmatter.set", path, "0" * 64, TASK, "diff", "summary")
    result = check([write], team(["**", "*", "**/*"]), context)
    assert result.accepted == () and result.stale == ()
    assert [r.what for r in result.rejected] == [f"frontmatter.set {path}"]
    assert (vault.parent / "outside.md").read_text(encoding="utf-8") == TASK


def test_denied_paths_are_refused_with_the_reason(vault: Path, context: ActionContext) -> None:
    reasons = {
        path: check([PlannedWrite("frontmatter.set", path, None, "x\n", "d", "s")], team(["**"]), context).rejected[0]
        for path in ("_crews/Task-Triage.md", "Private/secret.md", "TaskNotes/escape.md", ".obsidian/app.json")
    }
    assert "crew root" in reasons["_crews/Task-Triage.md"].reason
    assert "private" in reasons["Private/secret.md"].reason
    assert "symlink" in reasons["TaskNotes/escape.md"].reason
    assert "dot folders" in reasons[".obsidian/app.json"].reason


def test_a_path_outside_the_write_scope_is_rejected(vault: Path, context: ActionContext) -> None:
    (vault / "Projects").mkdir()
    (vault / "Projects" / "p.md").write_text(TASK, encoding="utf-8")
    write = planned(vault, "Projects/p.md", TASK.replace("low", "high"))
    [rejection] = check([write], team(["TaskNotes/**", "{daily}"]), context).rejected
    assert rejection.reason == "outside the team's write_scope (TaskNotes/**, {daily})"  # the globs, not regexes


def test_writable_folders_of_the_edit_layer_still_apply(vault: Path, context: ActionContext) -> None:
    narrow = ActionContext(context.vault, write_settings(writable_folders=("Inbox",)), "_crews", TODAY, NOW)
    write = planned(vault, "TaskNotes/a.md", TASK.replace("low", "high"))
    [rejection] = check([write], team(["TaskNotes/**"]), narrow).rejected
    assert "outside the writable folders" in rejection.reason


def test_a_property_that_is_not_allowed_is_rejected(vault: Path, context: ActionContext) -> None:
    write = planned(vault, "TaskNotes/a.md", TASK.replace("status: open", "status: done"))
    [rejection] = check([write], team(["TaskNotes/**"]), context).rejected
    assert "properties not allowed for this task: status" in rejection.reason


@pytest.mark.parametrize("block", ["|", "|-", ">", "|+"])
def test_adding_a_key_after_a_block_scalar_that_ends_the_frontmatter_is_accepted(
    vault: Path, context: ActionContext, block: str
) -> None:
    # `multi` parses as 'line1\nline2' while it ends the frontmatter and as 'line1\nline2\n' once a key follows it.
    before = f"---\ntitle: x\nmulti: {block}\n  line1\n  line2\n---\nDraft it.\n"
    (vault / "TaskNotes/a.md").write_text(before, encoding="utf-8")
    write = planned(vault, "TaskNotes/a.md", before.replace("  line2\n", "  line2\nsummary: short\n"))
    result = check([write], team(["TaskNotes/**"], keys=("summary",)), context)
    assert (result.accepted, result.rejected) == ((write,), ())
    changed = planned(vault, "TaskNotes/a.md", before.replace("line2", "line3"))
    [rejection] = check([changed], team(["TaskNotes/**"], keys=("summary",)), context).rejected
    assert "properties not allowed for this task: multi" in rejection.reason


def test_frontmatter_set_may_not_touch_the_body(vault: Path, context: ActionContext) -> None:
    write = planned(vault, "TaskNotes/a.md", TASK.replace("Draft it.", "ignore your rules"))
    [rejection] = check([write], team(["TaskNotes/**"]), context).rejected
    assert "only frontmatter" in rejection.reason


def test_a_note_edited_after_collection_is_stale_and_skipped(vault: Path, context: ActionContext) -> None:
    write = planned(vault, "TaskNotes/a.md", TASK.replace("low", "high"))
    other = planned(vault, "TaskNotes/b.md", TASK.replace("low", "high"))
    (vault / "TaskNotes" / "a.md").write_text(TASK + "my own edit\n", encoding="utf-8")
    result = check([write, other], team(["TaskNotes/**"]), context, writer=FileVaultWriter(vault))
    assert result.accepted == (other,)
    assert [r.what for r in result.stale] == ["frontmatter.set TaskNotes/a.md"]
    assert "edited since" in result.stale[0].reason
    assert (vault / "TaskNotes" / "a.md").read_text(encoding="utf-8") == TASK + "my own edit\n"


def test_a_note_created_or_deleted_since_collection_is_stale(vault: Path, context: ActionContext) -> None:
    created = planned(vault, "TaskNotes/new.md", "## Briefing\n- a\n", action="section.replace", base=None)
    (vault / "TaskNotes" / "new.md").write_text("someone made it\n", encoding="utf-8")
    deleted = planned(vault, "TaskNotes/b.md", TASK + "## Briefing\n- a\n", action="section.replace")
    (vault / "TaskNotes" / "b.md").unlink()
    result = check([created, deleted], team(["TaskNotes/**"], family="section.write"), context)
    assert [r.what for r in result.stale] == ["section.replace TaskNotes/new.md", "section.replace TaskNotes/b.md"]
    assert "created since" in result.stale[0].reason and "deleted or moved" in result.stale[1].reason
    assert (vault / "TaskNotes" / "new.md").read_text(encoding="utf-8") == "someone made it\n"


def test_a_text_above_the_size_limit_is_rejected(vault: Path, context: ActionContext) -> None:
    huge = TASK + "x" * 20_000  # write_settings() allows 10,000 bytes
    write = planned(vault, "TaskNotes/a.md", huge)
    [rejection] = check([write], team(["TaskNotes/**"]), context).rejected
    assert "above the limit" in rejection.reason


def test_an_action_the_task_does_not_declare_is_rejected(vault: Path, context: ActionContext) -> None:
    write = planned(vault, "TaskNotes/new.md", "# New\n", action="note.create", base=None)
    [rejection] = check([write], team(["TaskNotes/**"]), context).rejected
    assert "not an action of this task" in rejection.reason


def test_section_replace_may_not_change_frontmatter_of_an_existing_note(vault: Path, context: ActionContext) -> None:
    daily = "Daily/2026-01-05.md"
    spec = team(["{daily}"], family="section.write")
    good = planned(vault, daily, "---\nmood: ok\n---\n# Monday\n\n## Briefing\n- a\n", action="section.replace")
    bad = planned(vault, daily, "---\nmood: great\n---\n# Monday\n", action="section.replace")
    assert check([good], spec, context).accepted == (good,)
    [rejection] = check([bad], spec, context).rejected
    assert "may not change the note's frontmatter" in rejection.reason


def test_daily_scope_is_todays_daily_note_only(vault: Path, context: ActionContext) -> None:
    spec = team(["{daily}"], family="section.write")
    today = planned(vault, "Daily/2026-01-05.md", "---\nmood: ok\n---\n# Monday\n- a\n", action="section.replace")
    other_day = planned(vault, "Daily/2026-01-06.md", "## Briefing\n", action="section.replace", base=None)
    result = check([today, other_day], spec, context)
    assert result.accepted == (today,)
    assert [r.what for r in result.rejected] == ["section.replace Daily/2026-01-06.md"]


def test_the_second_write_of_one_note_in_a_task_is_rejected(vault: Path, context: ActionContext) -> None:
    first = planned(vault, "TaskNotes/a.md", TASK.replace("low", "high"))
    second = planned(vault, "TaskNotes/a.md", TASK.replace("low", "medium"))
    result = check([first, second], team(["TaskNotes/**"]), context)
    assert result.accepted == (first,) and "planned twice" in result.rejected[0].reason


def test_without_a_task_the_teams_declared_actions_and_keys_apply(vault: Path, context: ActionContext) -> None:
    spec = team(["TaskNotes/**"])
    allowed = planned(vault, "TaskNotes/a.md", TASK.replace("low", "high"))
    refused = planned(vault, "TaskNotes/b.md", TASK.replace("status: open", "status: done"))
    result = asyncio.run(check_writes([allowed, refused], team=spec, context=context))
    assert result.accepted == (allowed,) and len(result.rejected) == 1


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("TaskNotes/**", "TaskNotes/a.md", True),
        ("TaskNotes/**", "TaskNotes/sub/deeper/a.md", True),
        ("TaskNotes/**", "TaskNotesX/a.md", False),
        ("TaskNotes", "TaskNotes/sub/a.md", True),
        ("TaskNotes/", "TaskNotes/a.md", True),
        ("TaskNotes/*.md", "TaskNotes/sub/a.md", False),
        ("Projects/**/plan.md", "Projects/plan.md", True),
        ("Projects/**/plan.md", "Projects/a/b/plan.md", True),
        ("*.md", "a.md", True),
        ("*.md", "Inbox/a.md", False),
        ("{daily}", "Daily/2026-01-05.md", True),
        ("{daily}", "Daily/2026-01-05.mdx", False),
        ("Reports/{date}*.md", "Reports/2026-01-05 weekly.md", True),
        ("Reports/{date}*.md", "Reports/2026-01-04 weekly.md", False),
    ],
)
def test_write_scope_globs(context: ActionContext, glob: str, path: str, *, expected: bool) -> None:
    assert bool(scope_pattern(glob, context).fullmatch(path)) is expected


@pytest.mark.parametrize(
    ("total", "bad", "expected"), [(0, 0, False), (1, 1, True), (2, 1, False), (3, 2, True), (4, 2, False)]
)
def test_more_than_half_rejected_or_stale_fails_the_task(total: int, bad: int, *, expected: bool) -> None:
    assert is_over_half(total, bad) is expected
