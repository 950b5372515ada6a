"""Shared fixtures: isolated settings, a private copy of sample_vault, services wired with the hashing embedder.

sample_vault is indexed once per test session (per pytest-xdist worker: `sample_index`); the `services` of a test
marked `indexed` start from a copy of that index in the test's own DATA_DIR instead of an empty one.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from core.settings import Settings

if TYPE_CHECKING:
    from app.wiring import Services
    from core.ports import Embedder

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_VAULT = ROOT / "sample_vault"
# Every setting's variable, derived so that a new setting can never leak in from a developer's shell.
SETTINGS_ENV = tuple(name.upper() for name in Settings.model_fields)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Fail the run when pytest-xdist's --dist loadgroup did not group the tests that name an xdist_group.

    Grouping is what keeps tests sharing a process-wide resource on one worker, and what lets a session fixture
    (`real_model_index`) be built once; a pytest release once broke it silently (pyproject.toml).
    """
    if not getattr(config.option, "loadgroup", False):
        return
    lost = [item.nodeid for item in items if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
    if lost:
        raise pytest.UsageError(f"--dist loadgroup did not group {len(lost)} tests, e.g. {lost[0]}: see pyproject.toml")


def isolate_settings_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset every setting's variable and set the few every test runs with, so Settings sees only those."""
    for name in SETTINGS_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # No test may find a developer's local LM Studio or Ollama by accident.
    monkeypatch.setenv("LLM_PROBE_LOCAL_PORTS", "false")
    # A scripted model serves the replies a test lists; a warm-up request would take the first (tested apart).
    monkeypatch.setenv("LLM_WARM_UP", "false")
    # Scripts call tools on plain questions too; LLM_TOOLS=auto (plain questions without tools until the model
    # makes a structured call) is tested where a test asks for it (tests/integration/test_tool_modes.py).
    monkeypatch.setenv("LLM_TOOLS", "on")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Keep the developer's environment and .env out of every test."""
    isolate_settings_env(monkeypatch)
    # With DATA_DIR unset an index goes under the user's data directory (core/data_dirs.py): a test's own one.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
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
def services(settings: Settings, request: pytest.FixtureRequest) -> Iterator[Services]:
    """Return services wired like production but with the fast, deterministic HashingEmbedder.

    Under the `indexed` marker their DATA_DIR starts as a copy of sample_vault's index (`sample_index`), so the
    test's own runs (and a served app's run at start) find the notes it did not change already indexed.
    """
    from app.wiring import build_services
    from tests.fakes import HashingEmbedder

    if request.node.get_closest_marker("indexed"):
        copy_sparse(request.getfixturevalue("sample_index"), settings.data_dir)
    built = build_services(settings, embedder=HashingEmbedder())
    yield built
    built.close()


def copy_sparse(source: Path, target: Path) -> None:
    """Copy the folder `source` to `target`, keeping sparse files sparse.

    The Qdrant edge shard preallocates its WAL and segment files (about 190 MB, nearly all holes); shutil.copytree
    would write every zero.
    """
    subprocess.run(["cp", "-R", "--preserve=timestamps", "--sparse=always", str(source), str(target)], check=True)


def services_beyond_a_test(vault: Path, data_dir: Path, embedder: Embedder | None = None) -> Services:
    """Return services for a session- or module-scoped fixture, built under the isolated environment.

    `isolated_env` runs per test, after such fixtures are set up, so their settings are read inside its isolation
    here. `embedder`: None for the bundled model.
    """
    from app.wiring import build_services

    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate_settings_env(monkeypatch)
        settings = Settings(_env_file=None, vault_path=vault, data_dir=data_dir)
        return build_services(settings, embedder=embedder)


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a DATA_DIR holding sample_vault indexed with the HashingEmbedder, built once per session.

    Indexing sample_vault takes about a second; copying this folder takes milliseconds, and a run over the copy
    finds every note unchanged (same text: the hash decides when the copy's mtimes differ). Only read it: copy it.
    """
    from tests.fakes import HashingEmbedder

    root = tmp_path_factory.mktemp("sample-index")
    vault = root / "vault"
    shutil.copytree(SAMPLE_VAULT, vault, symlinks=True)
    built = services_beyond_a_test(vault, root / "data", HashingEmbedder())
    try:
        built.reindexer.run_once()
    finally:
        built.close()
    return root / "data"


@pytest.fixture(scope="session")
def real_model_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    """Return services over sample_vault indexed with the bundled MiniLM, built once per worker (~15 s). Only read it.

    For the `model` tests about the real model (retrieval quality, the relevance gate). Their modules share the
    xdist_group REAL_MODEL_GROUP, so one worker builds it once: a module-scoped index was built again each time the
    worker came back to a module after another's tests.
    """
    built = services_beyond_a_test(SAMPLE_VAULT, tmp_path_factory.mktemp("real-model-index") / "data")
    try:
        built.reindexer.run_once()
        yield built
    finally:
        built.close()


REAL_MODEL_GROUP = "real_model_index"


@pytest.fixture(scope="module")
def shared_services(tmp_path_factory: pytest.TempPathFactory, sample_index: Path) -> Iterator[Services]:
    """Return services over one copy of sample_vault and its index, shared by a module's tests.

    For tests that change neither the vault nor the index, so that one app started over them serves them all
    (`shared_services.settings` are their settings).
    """
    from tests.fakes import HashingEmbedder

    root = tmp_path_factory.mktemp("shared")
    shutil.copytree(SAMPLE_VAULT, root / "vault", symlinks=True)
    copy_sparse(sample_index, root / "data")
    built = services_beyond_a_test(root / "vault", root / "data", HashingEmbedder())
    yield built
    built.close()
