"""`librarian changes` and `librarian undo` over a real vault folder and the file writer."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli
from app.wiring import open_change_log
from core.settings import Settings
from edits.apply import apply_edits
from edits.proposals import new_proposal
from edits.writers.files import FileVaultWriter
from tests.conftest import ROOT, SETTINGS_ENV

NOTE = "Areas/Garden/Garlic.md"


def apply_one_edit(settings: Settings, vault: Path) -> str:
    before = (vault / NOTE).read_text(encoding="utf-8")
    after = before + "\n- [ ] Water the garlic bed\n"
    now = datetime.now(UTC)
    proposal = new_proposal(
        conversation_id="c1", operation="add_task", path=NOTE, before=before, after=after, now=now, ttl_minutes=30
    )
    log = open_change_log(settings)
    try:
        report = asyncio.run(
            apply_edits([proposal], writer=FileVaultWriter(vault), log=log, settings=settings.writes, now=now)
        )
    finally:
        log.close()
    assert [outcome.status for outcome in report.outcomes] == ["applied"]
    return before


def env_for(settings: Settings) -> dict[str, str]:
    return {"VAULT_PATH": str(settings.vault_path), "DATA_DIR": str(settings.data_dir), "WRITE_BACKEND": "files"}


def test_changes_lists_applied_edits(settings: Settings, vault: Path) -> None:
    empty = CliRunner().invoke(cli, ["changes"], env=env_for(settings))
    assert "no changes" in empty.stdout

    apply_one_edit(settings, vault)
    result = CliRunner().invoke(cli, ["changes"], env=env_for(settings))

    assert result.exit_code == 0, result.output
    assert "add_task" in result.stdout and NOTE in result.stdout and "applied" in result.stdout


def test_undo_shows_the_plan_and_restores_only_after_confirmation(settings: Settings, vault: Path) -> None:
    before = apply_one_edit(settings, vault)

    declined = CliRunner().invoke(cli, ["undo"], env=env_for(settings), input="n\n")
    assert declined.exit_code == 0 and "Undo would revert" in declined.stdout and "nothing changed" in declined.stdout
    assert (vault / NOTE).read_text(encoding="utf-8") != before

    confirmed = CliRunner().invoke(cli, ["undo"], env=env_for(settings), input="y\n")
    assert confirmed.exit_code == 0, confirmed.output
    assert (vault / NOTE).read_text(encoding="utf-8") == before
    assert "Undone change set" in confirmed.stdout

    again = CliRunner().invoke(cli, ["undo", "--yes"], env=env_for(settings))
    assert "nothing to undo" in again.stdout


def test_undo_warns_instead_of_overwriting_a_later_edit(settings: Settings, vault: Path) -> None:
    apply_one_edit(settings, vault)
    (vault / NOTE).write_text("edited by hand afterwards\n", encoding="utf-8")

    result = CliRunner().invoke(cli, ["undo", "--yes"], env=env_for(settings))

    assert result.exit_code == 0, result.output
    assert "!" in result.stdout
    assert (vault / NOTE).read_text(encoding="utf-8") == "edited by hand afterwards\n"


def test_undo_refuses_when_writes_are_off(settings: Settings) -> None:
    result = CliRunner().invoke(cli, ["undo", "--yes"], env={**env_for(settings), "WRITE_BACKEND": "none"})

    assert result.exit_code == 1 and "read-only" in result.stdout


def test_undo_answered_through_a_pipe_ends_the_question_line(settings: Settings, vault: Path) -> None:
    apply_one_edit(settings, vault)
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS_ENV}

    # A real process: CliRunner echoes piped input, which hides what a terminal user sees after `echo n |`.
    declined = subprocess.run(
        [sys.executable, "-m", "app.cli", "undo"],
        env={**env, **env_for(settings)},
        cwd=ROOT,
        input="n\n",
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert declined.returncode == 0, declined.stderr
    assert "Apply this undo? [y/N]: \nnothing changed\n" in declined.stdout


def test_changes_prints_hashes_and_bracketed_names_as_text_not_markup(settings: Settings, vault: Path) -> None:
    path = "Inbox/[draft] plan.md"
    before, after = "# Plan 12\n", "# Plan 12\n- [ ] Water\n"  # hashes f00aa550… and aa749aad…: tag-like in Rich
    (vault / path).parent.mkdir(parents=True, exist_ok=True)
    (vault / path).write_text(before, encoding="utf-8")
    now = datetime.now(UTC)
    proposal = new_proposal(
        conversation_id="c1", operation="add_task", path=path, before=before, after=after, now=now, ttl_minutes=30
    )
    log = open_change_log(settings)
    try:
        asyncio.run(apply_edits([proposal], writer=FileVaultWriter(vault), log=log, settings=settings.writes, now=now))
    finally:
        log.close()

    result = CliRunner().invoke(cli, ["changes"], env=env_for(settings))

    assert result.exit_code == 0, result.output
    assert f"add_task {path} [f00aa550 → aa749aad] applied" in result.stdout
