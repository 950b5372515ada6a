"""Shared fixtures: isolated settings, a private copy of sample_vault, services wired with the hashing embedder."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_VAULT = ROOT / "sample_vault"
# Every setting's variable, derived so that a new setting can never leak in from a developer's shell.
SETTINGS_ENV = tuple(name.upper() for name in Settings.model_fields)


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Keep the developer's environment and .env out of every test."""
    for name in SETTINGS_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # With DATA_DIR unset an index goes under the user's data directory (core/data_dirs.py): a test's own one.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    # No test may find a developer's local LM Studio or Ollama by accident.
    monkeypatch.setenv("LLM_PROBE_LOCAL_PORTS", "false")
    # A scripted model serves the replies a test lists; a warm-up request would take the first (tested apart).
    monkeypatch.setenv("LLM_WARM_UP", "false")
    # Scripts call tools on plain questions too; LLM_TOOLS=auto (plain questions without tools until the model
    # makes a structured call) is tested where a test asks for it (tests/integration/test_tool_modes.py).
    monkeypatch.setenv("LLM_TOOLS", "on")
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """Return a private copy of sample_vault that a test may change."""
    target = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, target, symlinks=True)
    return target


@pytest.fixture
def settings(vault: Path, tmp_path: Path) -> Settings:
    """Return settings for the copied vault with the embedded defaults and a private DATA_DIR."""
    return Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data")


@pytest.fixture
def services(settings: Settings) -> Iterator[object]:
    """Return services wired like production but with the fast, deterministic HashingEmbedder."""
    from app.wiring import build_services
    from tests.fakes import HashingEmbedder

    built = build_services(settings, embedder=HashingEmbedder())
    yield built
    built.close()
