"""A vault for the lists code answers with (agent/tools/code_lists.py): its notes, a templates folder, a fixed day."""

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


def code_list_reader(root: Path, notes: Mapping[str, str], *, now: datetime = TODAY) -> VaultReader:
    """Return a reader of a vault at `root` holding `notes`, "Templates" its templates folder, `now` its clock."""
    vault = write_notes(root / "vault", notes)
    write_notes(vault, {".obsidian/templates.json": '{"folder": "Templates"}'})
    settings = Settings(_env_file=None, vault_path=vault, data_dir=root / "data")
    return VaultReader(settings.vault, NoSearch(), clock=lambda: now)


def code_list_lines(reader: VaultReader, question: str, earlier: tuple[str, ...] = ()) -> list[str] | None:
    """Return the lines of the list code answers `question` with (after the questions `earlier`), None for none."""
    found = CodeLists(reader).reply_for(question, earlier)
    return None if found is None else found.text.splitlines()
