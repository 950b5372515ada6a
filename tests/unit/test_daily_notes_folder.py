"""Where daily notes go in a vault that has lost its `.obsidian/` settings: beside the daily notes it keeps."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from rag.notes.obsidian_config import daily_note_path, daily_notes_config


def _vault(root: Path, *paths: str) -> Path:
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("text\n", encoding="utf-8")
    return root


def test_a_vault_without_settings_puts_daily_notes_in_the_folder_that_holds_them(tmp_path: Path) -> None:
    # kepano's vault, exported without `.obsidian/`: "Daily/2023-09-12.md" and "Daily/2023-09-30.md".
    root = _vault(tmp_path, "Daily/2023-09-12.md", "Daily/2023-09-30.md", "Notes/2023 Japan Trip.md", "Readme.md")

    config = daily_notes_config(root)

    assert config.folder == "Daily" and config.is_set
    assert daily_note_path(config, date(2026, 12, 7)) == "Daily/2026-12-07.md"


def test_the_folder_must_hold_most_of_them_and_names_must_be_days(tmp_path: Path) -> None:
    split = _vault(tmp_path / "split", "A/2023-09-12.md", "B/2023-09-13.md")
    assert daily_notes_config(split).folder == "" and not daily_notes_config(split).is_set
    not_days = _vault(tmp_path / "not_days", "Specs/2023-99-12.md", "Specs/2023-13-01.md")
    assert daily_notes_config(not_days).folder == ""
    in_root = _vault(tmp_path / "root", "2023-09-12.md", "2023-09-13.md", "Old/2022-01-01.md")
    assert daily_notes_config(in_root).folder == "" and daily_notes_config(in_root).is_set
    hidden = _vault(tmp_path / "hidden", ".trash/2023-09-12.md", "Notes/a.md")
    assert daily_notes_config(hidden).folder == "" and not daily_notes_config(hidden).is_set


def test_obsidians_own_settings_win_and_without_them_its_defaults_hold(tmp_path: Path) -> None:
    configured = _vault(tmp_path / "configured", "Daily/2023-09-12.md", ".obsidian/app.json")
    (configured / ".obsidian" / "daily-notes.json").write_text(json.dumps({"folder": "Journal"}), encoding="utf-8")
    assert daily_notes_config(configured).folder == "Journal"
    # Opened in Obsidian with no Daily notes settings: Obsidian writes today's note to the root, and so do we.
    defaults = _vault(tmp_path / "defaults", "Daily/2023-09-12.md", ".obsidian/app.json")
    assert daily_notes_config(defaults).folder == "" and not daily_notes_config(defaults).is_set


def test_the_notes_listed_by_the_caller_are_read_in_place_of_the_folders(tmp_path: Path) -> None:
    root = _vault(tmp_path, "Notes/a.md")  # on disk no daily note; the listing the caller has says where they are
    listed = ["Journal/2023-09-12.md", "Journal/2023-09-13.md", "Notes/a.md"]

    assert daily_notes_config(root, listed).folder == "Journal"
    assert daily_notes_config(root).folder == ""
