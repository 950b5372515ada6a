"""A test vault with a templates folder, and the lists code answers with over it (agent/tools/code_lists.py)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from agent.tools.code_lists import CodeLists
from agent.tools.reader import VaultReader
from core.settings import Settings
from tests.edit_fakes import NoSearch
from tests.vault_state import write_notes

TODAY = datetime(2026, 12, 6, 9, 0)


def templates_vault(root: Path, notes: Mapping[str, str]) -> Settings:
    """Return settings for a vault at `root`/vault holding `notes`, "Templates" its templates folder.

    A template's tasks are placeholders, never counted; the DATA_DIR is `root`/data.
    """
    vault = write_notes(root / "vault", notes)
    write_notes(vault, {".obsidian/templates.json": '{"folder": "Templates"}'})
    return Settings(_env_file=None, vault_path=vault, data_dir=root / "data")


def code_list_reader(root: Path, notes: Mapping[str, str], *, now: datetime = TODAY) -> VaultReader:
    """Return a reader of a `templates_vault` holding `notes`, `now` its clock."""
    return VaultReader(templates_vault(root, notes).vault, NoSearch(), clock=lambda: now)


def code_list_lines(reader: VaultReader, question: str, earlier: tuple[str, ...] = ()) -> list[str] | None:
    """Return the lines of the list code answers `question` with (after the questions `earlier`), None for none."""
    found = CodeLists(reader).reply_for(question, earlier)
    return None if found is None else found.text.splitlines()
