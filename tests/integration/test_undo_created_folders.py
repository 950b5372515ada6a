"""Undo removes the folders a change created for its note (files writer), once empty, and no other folder."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest

from core.edits import ApplyReport, ProposedEdit, UndoPlan
from core.ports import NoteWriter
from edits.apply import apply_edits
from edits.changelog import MIGRATIONS, SqliteChangeLog
from edits.diffs import content_hash
from edits.proposals import new_proposal
from edits.undo import undo_last
from edits.writers import build_writer
from edits.writers.rest import LocalRestApiWriter
from rag.sqlite_migrations import apply_migrations
from tests.edit_fakes import open_change_log, write_settings
from tests.obsidian_standin import obsidian_standin
from tests.vault_state import folders, write_notes

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
KEY = "a" * 64
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_notes(tmp_path / "vault", {"Projects/Plan.md": "# Plan\n"})


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"  # where the shared `log` fixture keeps the change log


@pytest.fixture
def writer(vault: Path) -> NoteWriter:
    writer = build_writer(write_settings(backend="files"), vault)  # the DenylistGuard around the files writer
    if writer is None:
        raise RuntimeError("WRITE_BACKEND=files gave no writer")
    return writer


def creation(path: str, text: str = "idea\n") -> ProposedEdit:
    return new_proposal(
        conversation_id="conv", operation="create", path=path, before=None, after=text, now=NOW, ttl_minutes=30
    )


def create(writer: NoteWriter, log: SqliteChangeLog, path: str, text: str = "idea\n") -> ApplyReport:
    report = run(apply_edits([creation(path, text)], writer=writer, log=log, settings=write_settings(), now=NOW))
    assert [outcome.status for outcome in report.outcomes] == ["applied"]
    return report


def undo(writer: NoteWriter, log: SqliteChangeLog, *, confirm: bool = True) -> UndoPlan:
    return run(undo_last(writer=writer, log=log, now=NOW + timedelta(minutes=1), confirm=confirm))


def test_undo_of_a_note_created_in_a_new_folder_removes_that_folder(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    create(writer, log, "Projects/New/Idea.md")
    assert (vault / "Projects" / "New" / "Idea.md").is_file()

    plan = undo(writer, log)

    assert [step.action for step in plan.steps] == ["trash"] and plan.is_applied
    assert (vault / ".trash" / "Projects" / "New" / "Idea.md").read_text(encoding="utf-8") == "idea\n"
    assert folders(vault) == [".trash", ".trash/Projects", ".trash/Projects/New", "Projects"]
    assert plan.steps[0].message == (
        "Projects/New/Idea.md was created by the change; moved it to .trash/Projects/New/Idea.md and removed the "
        "folder it created (Projects/New)"
    )


def test_the_change_log_remembers_the_folders_a_change_created(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    create(writer, log, "Areas/2025/Q1/Idea.md")
    create(writer, log, "Projects/Other.md")

    newest, oldest = log.list()

    assert log.created_folders(oldest) == ("Areas", "Areas/2025", "Areas/2025/Q1")
    assert log.created_folders(newest) == ()  # Projects/ was there already


def test_undo_removes_every_nested_folder_the_change_created(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    create(writer, log, "Areas/2025/Q1/Idea.md")

    planned = undo(writer, log, confirm=False)
    plan = undo(writer, log)

    assert "the folders it created (Areas/2025/Q1, Areas/2025, Areas) go too when empty" in planned.steps[0].message
    assert plan.is_applied and not (vault / "Areas").exists()
    assert folders(vault) == [".trash", ".trash/Areas", ".trash/Areas/2025", ".trash/Areas/2025/Q1", "Projects"]


def test_a_folder_that_existed_before_the_change_stays_even_when_empty(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    (vault / "Projects" / "Empty").mkdir()
    create(writer, log, "Projects/Empty/Sub/Idea.md")

    undo(writer, log)

    assert (vault / "Projects" / "Empty").is_dir()  # the user's own empty folder
    assert not (vault / "Projects" / "Empty" / "Sub").exists()  # the one the change made


def test_a_created_folder_that_got_another_file_since_the_change_stays(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    create(writer, log, "Areas/Inbox/Idea.md")
    write_notes(vault, {"Areas/Mine.md": "the user's note\n"})

    plan = undo(writer, log)

    assert plan.is_applied and not (vault / "Areas" / "Inbox").exists()
    assert (vault / "Areas" / "Mine.md").read_text(encoding="utf-8") == "the user's note\n"
    assert plan.steps[0].message.endswith("removed the folder it created (Areas/Inbox)")


def test_a_created_folder_holding_a_note_of_the_user_keeps_it_and_the_undo_still_succeeds(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    create(writer, log, "Projects/New/Idea.md")
    write_notes(vault, {"Projects/New/Mine.md": "mine\n"})

    plan = undo(writer, log)

    assert [step.action for step in plan.steps] == ["trash"] and plan.is_applied
    assert (vault / "Projects" / "New" / "Mine.md").read_text(encoding="utf-8") == "mine\n"
    assert not (vault / "Projects" / "New" / "Idea.md").exists()
    moved = "Projects/New/Idea.md was created by the change; moved it to .trash/Projects/New/Idea.md"
    assert plan.steps[0].message == moved  # no folder was removed, so none is mentioned


def test_two_notes_created_in_one_new_folder_leave_nothing_behind(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    proposals = [creation(path, "x\n") for path in ("Areas/New/One.md", "Areas/New/Two.md")]
    run(apply_edits(proposals, writer=writer, log=log, settings=write_settings(), now=NOW))

    plan = undo(writer, log)

    assert plan.is_applied and not (vault / "Areas").exists()


def test_undo_of_a_move_into_a_new_folder_removes_that_folder(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    proposal = new_proposal(
        conversation_id="conv", operation="move", path="Projects/Plan.md", before="# Plan\n", after="# Plan\n",
        now=NOW, ttl_minutes=30, new_path="Archive/2025/Plan.md",
    )  # fmt: skip
    run(apply_edits([proposal], writer=writer, log=log, settings=write_settings(), now=NOW))
    assert (vault / "Archive" / "2025" / "Plan.md").is_file()

    plan = undo(writer, log)

    assert [step.action for step in plan.steps] == ["move_back"] and plan.is_applied
    assert (vault / "Projects" / "Plan.md").read_text(encoding="utf-8") == "# Plan\n"
    assert folders(vault) == ["Projects"]


def test_undo_removes_only_recorded_folders_that_hold_the_note(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog, data_dir: Path
) -> None:
    create(writer, log, "Projects/New/Idea.md")
    (vault / "Elsewhere").mkdir()
    (vault / ".obsidian").mkdir()
    outside = vault.parent / "outside"
    outside.mkdir()
    # A change log edited by hand (or by a bug) must not make undo remove folders the change never held its note in.
    recorded = ["Projects", "Projects/New", "Elsewhere", ".obsidian", "../outside", str(outside)]
    with sqlite3.connect(data_dir / "changes.sqlite") as conn:
        conn.execute("UPDATE changes SET created_folders = ?", (json.dumps(recorded),))
    conn.close()

    undo(writer, log)

    assert not (vault / "Projects" / "New").exists()
    assert (vault / "Projects").is_dir()  # an ancestor of the note, but not empty (Plan.md)
    assert (vault / "Elsewhere").is_dir() and (vault / ".obsidian").is_dir() and outside.is_dir()


def test_a_change_log_from_before_the_folders_column_stays_readable_and_undoable(
    vault: Path, writer: NoteWriter, data_dir: Path
) -> None:
    data_dir.mkdir()
    write_notes(vault, {"Projects/Old/Idea.md": "old\n"})
    with sqlite3.connect(data_dir / "changes.sqlite") as conn:
        apply_migrations(conn, MIGRATIONS[:1])
        conn.execute(
            "INSERT INTO changes (change_set_id, at, conversation_id, proposal_id, operation, kind, path, new_path, "
            "hash_before, hash_after, snapshot, status, undoes) "
            "VALUES ('set1', ?, 'conv', 'p1', 'create', 'create', 'Projects/Old/Idea.md', NULL, NULL, ?, NULL, "
            "'applied', NULL)",
            (NOW.isoformat(), content_hash("old\n")),
        )
    conn.close()
    log = open_change_log(data_dir)
    try:
        [entry] = log.list()
        assert (entry.path, entry.status, log.created_folders(entry)) == ("Projects/Old/Idea.md", "applied", ())

        plan = undo(writer, log)
    finally:
        log.close()

    assert [step.action for step in plan.steps] == ["trash"] and plan.is_applied
    assert (vault / "Projects" / "Old").is_dir()  # nobody knows who made it, so it stays


def test_rest_writer_leaves_the_folders_it_cannot_remove(vault: Path, log: SqliteChangeLog) -> None:
    # The plugin has no folder deletion (DELETE on `dir/` is 405/40510), so nothing is recorded or removed.
    with obsidian_standin(vault, api_key=KEY) as base_url:
        writer = LocalRestApiWriter(base_url, KEY)
        create(writer, log, "Projects/New/Idea.md")
        plan = undo(writer, log)
    [_, created] = log.list()

    assert log.created_folders(created) == ()
    assert plan.is_applied and not (vault / "Projects" / "New" / "Idea.md").exists()
    assert (vault / "Projects" / "New").is_dir()
