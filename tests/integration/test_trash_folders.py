"""Bringing a note back out of `.trash/` leaves no emptied folder inside the trash (files writer), and no more."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest

from edits.apply import apply_edits
from edits.changelog import SqliteChangeLog
from edits.proposals import new_proposal
from edits.undo import undo_last
from edits.writers.files import FileVaultWriter
from edits.writers.rest import LocalRestApiWriter
from tests.edit_fakes import write_settings
from tests.obsidian_standin import obsidian_standin
from tests.vault_state import folders, write_notes

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
KEY = "a" * 64
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_notes(
        tmp_path / "vault", {"Projects/2025/Q1/Plan.md": "# Plan\n", "Projects/2025/Q1/Notes.md": "# Notes\n"}
    )


def test_moving_a_note_out_of_the_trash_removes_the_trash_folders_it_emptied(vault: Path) -> None:
    writer = FileVaultWriter(vault)
    trashed = run(writer.delete("Projects/2025/Q1/Plan.md"))

    run(writer.move(trashed, "Projects/2025/Q1/Plan.md"))

    assert (vault / "Projects" / "2025" / "Q1" / "Plan.md").read_text(encoding="utf-8") == "# Plan\n"
    assert (vault / ".trash").is_dir()  # the trash itself stays, as Obsidian keeps it
    assert folders(vault) == [".trash", "Projects", "Projects/2025", "Projects/2025/Q1"]


def test_trash_folders_still_holding_notes_are_kept(vault: Path) -> None:
    writer = FileVaultWriter(vault)
    run(writer.delete("Projects/2025/Q1/Notes.md"))
    (vault / ".trash" / "Projects" / "2025" / "Empty by the user").mkdir()
    trashed = run(writer.delete("Projects/2025/Q1/Plan.md"))

    run(writer.move(trashed, "Projects/2025/Q1/Plan.md"))

    assert (vault / ".trash" / "Projects" / "2025" / "Q1" / "Notes.md").read_text(encoding="utf-8") == "# Notes\n"
    assert (vault / ".trash" / "Projects" / "2025" / "Empty by the user").is_dir()  # not emptied by this move


def test_a_move_within_the_vault_keeps_the_folder_it_leaves(vault: Path) -> None:
    writer = FileVaultWriter(vault)
    run(writer.move("Projects/2025/Q1/Plan.md", "Archive/Plan.md"))
    run(writer.move("Projects/2025/Q1/Notes.md", "Archive/Notes.md"))
    # Outside the trash an empty folder may be the user's own structure (Obsidian keeps it too).
    assert (vault / "Projects" / "2025" / "Q1").is_dir()


def test_a_note_trashed_at_the_vault_root_comes_back_and_the_trash_stays(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Root.md").write_text("root\n", encoding="utf-8")
    writer = FileVaultWriter(vault)
    trashed = run(writer.delete("Root.md"))

    run(writer.move(trashed, "Root.md"))

    assert folders(vault) == [".trash"] and (vault / "Root.md").read_text(encoding="utf-8") == "root\n"


def test_undo_of_a_delete_leaves_no_empty_folder_in_the_trash(vault: Path, log: SqliteChangeLog) -> None:
    writer = FileVaultWriter(vault)
    path = "Projects/2025/Q1/Plan.md"
    proposal = new_proposal(
        conversation_id="conv", operation="delete", path=path, before="# Plan\n", after=None, now=NOW, ttl_minutes=30
    )
    run(apply_edits([proposal], writer=writer, log=log, settings=write_settings(), now=NOW))
    assert (vault / ".trash" / "Projects" / "2025" / "Q1" / "Plan.md").is_file()

    plan = run(undo_last(writer=writer, log=log, now=NOW + timedelta(minutes=1), confirm=True))

    assert [step.action for step in plan.steps] == ["bring_back"] and plan.is_applied
    assert (vault / path).read_text(encoding="utf-8") == "# Plan\n"
    assert folders(vault) == [".trash", "Projects", "Projects/2025", "Projects/2025/Q1"]


def test_rest_writer_brings_a_note_back_but_cannot_remove_trash_folders(vault: Path) -> None:
    # The plugin has no folder deletion (DELETE on `dir/` is 405/40510) and cannot see `.trash/` through its file
    # index, so an emptied `.trash/...` folder stays behind; Obsidian never shows `.trash/`, so nobody sees it.
    with obsidian_standin(vault, api_key=KEY) as base_url:
        writer = LocalRestApiWriter(base_url, KEY)
        trashed = run(writer.delete("Projects/2025/Q1/Plan.md"))
        run(writer.move(trashed, "Projects/2025/Q1/Plan.md"))
    assert (vault / "Projects" / "2025" / "Q1" / "Plan.md").read_text(encoding="utf-8") == "# Plan\n"
    assert not any((vault / ".trash").rglob("*.md"))
