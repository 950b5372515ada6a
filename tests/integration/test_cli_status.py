"""`librarian status` beside a running index command, and the vault changes the index does not hold yet."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from app.process.ownership import DataDirOwnership
from core.settings import Settings, VaultSettings
from sync.reindex import RUN_FLAG
from sync.vault_changes import changes_since_last_run
from sync.watermarks import WATERMARKS_FILE, SqliteWatermarkStore
from tests.integration.test_cli import INDEXED, assert_exit, cli_env, invoke, one_line, write_vault


def raise_run_flag(data_dir: Path) -> None:
    """Leave the index as a run that has started writing leaves it (sync/reindex.py raises the flag first)."""
    watermarks = SqliteWatermarkStore(data_dir / WATERMARKS_FILE)
    try:
        watermarks.set_meta(RUN_FLAG, "1")
    finally:
        watermarks.close()


def status_while_held(tmp_path: Path, command: str) -> tuple[dict[str, object], str]:
    vault = write_vault(tmp_path / "vault")
    data_dir = tmp_path / "data"
    env = cli_env(vault, data_dir)
    assert_exit(invoke(env, "index"), 0)
    # flock is per open file, so this process's own hold conflicts with the command's as another process's would.
    held = DataDirOwnership.acquire(data_dir, command, vault=vault)
    try:
        raise_run_flag(data_dir)
        as_json, as_text = invoke(env, "status", "--json"), invoke(env, "status")
    finally:
        held.release()
    assert_exit(as_json, 0)
    assert_exit(as_text, 0)
    return json.loads(as_json.stdout), as_text.stdout


def test_status_says_a_live_index_run_is_under_way_not_interrupted(tmp_path: Path) -> None:
    data, text = status_while_held(tmp_path, "index")

    assert (data["running"], data["interrupted"]) == (True, False)
    assert f"running    an index run is under way (`librarian index` (pid {os.getpid()}))" in text
    assert "interrupted" not in text


def test_status_still_reports_an_interrupted_run_when_the_holder_is_no_index_run(tmp_path: Path) -> None:
    data, text = status_while_held(tmp_path, "search")

    assert data["interrupted"] is True and not data.get("running")
    assert "the last run was interrupted; the next run repairs the index" in text


def test_status_counts_notes_changed_since_the_last_run_and_says_to_index(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault")
    env = cli_env(vault, tmp_path / "data")
    assert_exit(invoke(env, "index"), 0)
    fresh = invoke(env, "status")
    with (vault / "Sourdough.md").open("a", encoding="utf-8") as note:
        note.write("\nScore the loaf before baking.\n")
    (vault / "Recipes/Chili Oil.md").unlink()
    (vault / "Garden/Garlic.md").write_text("# Garlic\n\nPlant cloves in October.\n", encoding="utf-8")

    as_json, as_text = invoke(env, "status", "--json"), invoke(env, "status")
    assert_exit(invoke(env, "index"), 0)
    caught_up = invoke(env, "status", "--json")

    assert_exit(fresh, 0)
    assert "changes    none since the last run" in fresh.stdout
    assert_exit(as_json, 0)
    assert json.loads(as_json.stdout)["changed_since_last_run"] == {"added": 1, "modified": 1, "deleted": 1}
    assert_exit(as_text, 0)
    line = one_line(as_text.stdout)
    assert "changes notes since the last run: 1 modified, 1 added, 1 deleted" in line
    assert "run `librarian index`" in line
    assert_exit(caught_up, 0)
    assert json.loads(caught_up.stdout)["changed_since_last_run"] == {"added": 0, "modified": 0, "deleted": 0}


def vault_settings(vault: Path, data_dir: Path) -> VaultSettings:
    return Settings(_env_file=None, vault_path=vault, data_dir=data_dir).vault


def test_a_touched_note_counts_as_changed_and_nothing_is_written(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault")
    data_dir = tmp_path / "data"
    assert_exit(invoke(cli_env(vault, data_dir), "index"), 0)
    later = time.time() + 60
    os.utime(vault / "Garden/Tomatoes.md", (later, later))  # by stat alone a touch is a change, until the next run
    watermarks = SqliteWatermarkStore(data_dir / WATERMARKS_FILE)
    try:
        before = watermarks.all()
        changes = changes_since_last_run(vault_settings(vault, data_dir), watermarks)
        after = watermarks.all()
    finally:
        watermarks.close()

    assert changes is not None
    assert (changes.added, changes.modified, changes.deleted) == (0, 1, 0)
    assert before == after and len(after) == INDEXED + 1  # read-only: the re-indexer alone records stats


@pytest.mark.parametrize("empty", ["no index yet", "no notes"])
def test_changes_are_unknown_before_a_first_run_or_in_an_empty_vault(tmp_path: Path, empty: str) -> None:
    vault = write_vault(tmp_path / "vault")
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    if empty == "no notes":
        assert_exit(invoke(cli_env(vault, data_dir), "index"), 0)
        for note in vault.rglob("*.md"):
            note.unlink()
    watermarks = SqliteWatermarkStore(data_dir / WATERMARKS_FILE)
    try:
        assert changes_since_last_run(vault_settings(vault, data_dir), watermarks) is None
    finally:
        watermarks.close()
