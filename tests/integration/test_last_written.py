""" "When did I last write about X?": the notes about X by when their files last changed (agent/notes_list.py)."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from fastapi.testclient import TestClient

from agent.notes_list import files_changed_at
from agent.tools.reader import VaultReader
from app.http.main import create_app
from app.wiring import build_services
from core.settings import Settings
from tests.edit_fakes import NoSearch
from tests.fakes import HashingEmbedder
from tests.vault_state import write_notes

NOTES = {
    "Garden/Garlic.md": "# Garlic\n\nPlanted garlic cloves in bed 3; garlic wants sun.\n",
    "Daily/2025-03-02.md": "# 2025-03-02\n\nWeeded the garlic bed and mulched the garlic.\n",
    "Kitchen/Soup.md": "# Soup\n\nLentil soup, no garlic needed.\n",
}
TIMES = {"Garden/Garlic.md": datetime(2025, 1, 5, 10, 0), "Daily/2025-03-02.md": datetime(2025, 3, 2, 19, 45)}


def test_the_notes_about_the_topic_come_the_latest_changed_first_without_a_model(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    for path, at in TIMES.items():
        os.utime(vault / path, (at.timestamp(), at.timestamp()))
    settings = Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data", watch=False)
    services = build_services(settings, embedder=HashingEmbedder())
    try:
        services.reindexer.run_once()
        with TestClient(create_app(settings, services), base_url="http://127.0.0.1") as client:
            body = {
                "model": "vault-librarian",
                "messages": [{"role": "user", "content": "When did I last write about garlic?"}],
            }
            reply = client.post("/v1/chat/completions", json=body).json()["choices"][0]["message"]["content"]
    finally:
        services.close()

    lines = reply.splitlines()
    assert lines[0].endswith("about garlic, the latest changed first (by the files' modification times):")
    assert lines.index("- [[2025-03-02]] (2025-03-02 19:45)") < lines.index("- [[Garlic]] (2025-01-05 10:00)")


def test_the_times_are_the_files_of_the_vault_read_once_for_the_paths_asked(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    at = TIMES["Garden/Garlic.md"]
    os.utime(vault / "Garden/Garlic.md", (at.timestamp(), at.timestamp()))
    settings = Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data")

    changed = files_changed_at(VaultReader(settings.vault, NoSearch()))(["Garden/Garlic.md", "Gone.md"])

    assert changed == {"Garden/Garlic.md": at}  # a path not in the vault is left out
