"""One vault per index: a DATA_DIR records its vault, refuses another without touching the index, and with DATA_DIR
unset every vault gets a DATA_DIR of its own that `serve`, `mcp` and the CLI agree on from any working directory."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters
from typer.testing import CliRunner, Result

from app.cli.main import cli
from app.process.data_dir_vault import VAULT_FILE
from app.process.ownership import DataDirOwnership
from core.data_dirs import default_data_dir
from core.settings import Settings
from sync.watermarks import WATERMARKS_FILE, SqliteWatermarkStore
from tests.conftest import SETTINGS_ENV
from tests.integration.mcp_support import text_of
from tests.scripted_llm import free_port

runner = CliRunner()


def make_vault(root: Path, notes: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for name, text in notes.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def vaults(tmp_path: Path) -> tuple[Path, Path]:
    first = make_vault(tmp_path / "Garden", {"Tomatoes.md": "# Tomatoes\n\nWater the tomato plants twice a week.\n"})
    second = make_vault(tmp_path / "Work", {"Standup.md": "# Standup\n\nThe standup is at nine every weekday.\n"})
    return first, second


def invoke(*args: str, data_dir: Path | None = None) -> Result:
    env: dict[str, str | None] = dict.fromkeys(SETTINGS_ENV)
    env.update(HF_HUB_OFFLINE="1", COLUMNS="400", DATA_DIR=str(data_dir) if data_dir else None)
    return runner.invoke(cli, list(args), env=env)


def one_line(result: Result) -> str:
    return " ".join(result.output.split())


def searched_paths(vault: Path, query: str, data_dir: Path | None = None) -> list[str]:
    result = invoke("search", query, "--json", "--vault", str(vault), data_dir=data_dir)
    assert result.exit_code == 0, result.output
    return [hit["path"] for hit in json.loads(result.stdout)]


def test_indexing_another_vault_into_a_data_dir_is_refused_and_leaves_its_index_alone(
    vaults: tuple[Path, Path], tmp_path: Path
) -> None:
    garden, work = vaults
    data_dir = tmp_path / "data"
    assert invoke("index", str(garden), data_dir=data_dir).exit_code == 0

    refused = invoke("index", str(work), data_dir=data_dir)

    message = one_line(refused)
    assert refused.exit_code == 1
    assert f"DATA_DIR {data_dir} holds the index of {garden}, not of the vault {work}" in message
    assert "nothing was changed" in message and f"librarian index {work} --switch-vault" in message
    assert str(default_data_dir(work)) in message  # the way out without any flag
    assert searched_paths(garden, "tomato watering", data_dir) == ["Tomatoes.md"]
    status = invoke("status", "--json", "--vault", str(garden), data_dir=data_dir)
    assert json.loads(status.stdout)["notes"] == 1


def test_switch_vault_replaces_the_index_when_asked_explicitly(vaults: tuple[Path, Path], tmp_path: Path) -> None:
    garden, work = vaults
    data_dir = tmp_path / "data"
    assert invoke("index", str(garden), data_dir=data_dir).exit_code == 0

    switched = invoke("index", str(work), "--switch-vault", "--json", data_dir=data_dir)

    assert switched.exit_code == 0, switched.output
    report = json.loads(switched.stdout)
    assert report["added"] == ["Standup.md"] and report["deleted"] == ["Tomatoes.md"]
    assert json.loads((data_dir / VAULT_FILE).read_text(encoding="utf-8"))["vault"] == str(work)
    assert searched_paths(work, "standup", data_dir) == ["Standup.md"]
    assert invoke("search", "tomato", "--vault", str(garden), data_dir=data_dir).exit_code == 1


def test_an_index_from_before_the_record_is_refused_to_a_vault_holding_none_of_its_notes(
    vaults: tuple[Path, Path], tmp_path: Path
) -> None:
    garden, work = vaults
    data_dir = tmp_path / "data"
    assert invoke("index", str(garden), data_dir=data_dir).exit_code == 0
    (data_dir / VAULT_FILE).unlink()  # as an earlier version left it

    refused = invoke("index", str(work), data_dir=data_dir)

    assert refused.exit_code == 1
    assert "holds the index of other notes (1 indexed, none of them in this vault)" in one_line(refused)
    assert searched_paths(garden, "tomato watering", data_dir) == ["Tomatoes.md"]  # adopted by its own vault


def test_another_vault_at_the_recorded_path_is_refused_like_a_docker_volume_given_a_new_vault_dir(
    vaults: tuple[Path, Path], tmp_path: Path
) -> None:
    garden, work = vaults
    data_dir = tmp_path / "data"
    assert invoke("index", str(garden), data_dir=data_dir).exit_code == 0
    garden.rename(tmp_path / "Garden before")
    work.rename(garden)  # another vault now mounted where the first one was

    refused = invoke("index", str(garden), data_dir=data_dir)

    assert refused.exit_code == 1
    assert "holds the index of other notes (1 indexed, none of them in this vault)" in one_line(refused)
    watermarks = SqliteWatermarkStore(data_dir / WATERMARKS_FILE)
    try:
        assert list(watermarks.all()) == ["Tomatoes.md"]  # the first vault's index, untouched
    finally:
        watermarks.close()


def test_a_server_process_is_refused_another_vault_too(vaults: tuple[Path, Path], tmp_path: Path) -> None:
    garden, work = vaults
    data_dir = tmp_path / "data"
    DataDirOwnership.acquire(data_dir, "serve", vault=garden).release()

    with pytest.raises(Exception, match="holds the index of") as refused:
        DataDirOwnership.acquire(data_dir, "serve", vault=work, url="http://127.0.0.1:9")

    assert type(refused.value).__name__ == "VaultMismatch"
    held = DataDirOwnership.acquire(data_dir, "serve", vault=garden)  # the refusal gave the lock back
    held.release()


def test_undo_refuses_the_change_log_of_another_vaults_data_dir(vaults: tuple[Path, Path], tmp_path: Path) -> None:
    garden, work = vaults
    data_dir = tmp_path / "data"
    DataDirOwnership.acquire(data_dir, "index", vault=garden).release()

    refused = invoke("undo", "--yes", "--vault", str(work), data_dir=data_dir)

    assert refused.exit_code == 1
    assert f"holds the index of {garden}, not of the vault {work}" in one_line(refused)


def test_without_data_dir_each_vault_gets_its_own_index_whatever_the_working_directory(
    vaults: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    garden, work = vaults
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    indexed = invoke("index", str(garden))
    monkeypatch.chdir(elsewhere)  # where an MCP client starts `librarian mcp`
    assert invoke("index", str(work)).exit_code == 0

    assert indexed.exit_code == 0, indexed.output
    expected = tmp_path / "xdg" / "vault-librarian"
    assert sorted(path.name.rsplit("-", 1)[0] for path in expected.iterdir()) == ["Garden", "Work"]
    assert f"index in {default_data_dir(garden)} (this vault's default)" in one_line(indexed)
    assert searched_paths(garden, "tomato watering") == ["Tomatoes.md"]
    assert searched_paths(work, "standup") == ["Standup.md"]
    assert not (tmp_path / "data").exists() and not (elsewhere / "data").exists()
    # `serve` and `mcp` read the same settings: relative or absolute, from any folder, one DATA_DIR per vault.
    monkeypatch.chdir(tmp_path)
    relative = Settings(_env_file=None, vault_path=Path("Garden"))
    assert relative.data_dir == Settings(_env_file=None).with_vault(garden).data_dir == default_data_dir(garden)


def test_mcp_without_data_dir_relays_to_the_serve_of_its_vault_started_elsewhere(
    vaults: tuple[Path, Path], tmp_path: Path
) -> None:
    garden, _ = vaults
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS_ENV}
    env.update(HF_HUB_OFFLINE="1", LLM_PROBE_LOCAL_PORTS="false")  # XDG_DATA_HOME: the test's own (conftest)
    port = free_port()
    server_dir, client_dir = tmp_path / "clone", tmp_path / "client"
    server_dir.mkdir()
    client_dir.mkdir()
    serve = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--vault", str(garden), "--port", str(port)],
        env=env,
        cwd=server_dir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    owner_file = default_data_dir(garden) / "owner.lock"
    try:
        wait_for_health(f"http://127.0.0.1:{port}", serve)
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "app.cli", "mcp", "--vault", str(garden)], env=env, cwd=str(client_dir)
        )

        async def session() -> str:
            async with Client(params, read_timeout_seconds=120) as client:
                return text_of(await client.call_tool("index_status", {}))

        status = json.loads(asyncio.run(session()))
        owner = json.loads(owner_file.read_text(encoding="utf-8"))
    finally:
        serve.terminate()
        serve.wait(timeout=60)

    assert owner["pid"] == serve.pid and owner["command"] == "serve"
    assert "runs_completed" in status  # the server's index status, reached through it
    assert list(client_dir.iterdir()) == [] and list(server_dir.iterdir()) == []


def wait_for_health(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 180
    while True:
        assert process.poll() is None, "serve exited early"
        try:
            if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "serve did not start"
        time.sleep(0.3)
