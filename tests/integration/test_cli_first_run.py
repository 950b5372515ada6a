"""What a newcomer meets first: --version and -h, `serve` refusing a bad path or port before loading anything,
a `serve` refused because `librarian mcp` holds the DATA_DIR saying what to do, and a quiet log by default."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from app.process.ownership import DataDirOwnership
from tests.conftest import ROOT, SETTINGS_ENV
from tests.scripted_llm import free_port

runner = CliRunner()
# What `serve` needs only once it serves: none of it may load before a refusal.
HEAVY_MODULES = ("app.http.main", "uvicorn", "fastapi", "fastembed", "onnxruntime", "langgraph")


def python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,  # the imports of this checkout; the settings come from `env` only (see clean_env)
    )


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS_ENV}
    return {**env, "XDG_DATA_HOME": str(tmp_path / "xdg"), "HF_HUB_OFFLINE": "1", "COLUMNS": "250", **extra}


def serve_refusal(tmp_path: Path, *args: str) -> tuple[int, str, list[str]]:
    """Run `librarian serve ARGS` in a fresh interpreter; return its exit code, stderr and the heavy modules loaded."""
    code = f"""
        import json, sys
        from app.cli.main import main
        sys.argv = ["librarian", "serve", *{list(args)!r}]
        try:
            main()
        except SystemExit as exc:
            code = exc.code
        else:
            code = 0
        heavy = [name for name in {HEAVY_MODULES!r} if name in sys.modules]
        print(json.dumps({{"code": code, "heavy": heavy}}))
    """
    result = python(code, clean_env(tmp_path, DATA_DIR=str(tmp_path / "data")))
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    return outcome["code"], " ".join(result.stderr.split()), outcome["heavy"]


def test_version_prints_the_package_version() -> None:
    from importlib.metadata import version

    result = runner.invoke(cli, ["--version"])

    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"librarian (vault-librarian) {version('vault-librarian')}"


@pytest.mark.parametrize("args", [["-h"], ["search", "-h"], ["serve", "-h"], ["crew", "run", "-h"]])
def test_dash_h_is_help_everywhere(args: list[str]) -> None:
    result = runner.invoke(cli, args, env={"COLUMNS": "200"})

    assert result.exit_code == 0, result.output
    assert "Usage: " in result.stdout and "--help" in result.stdout


def test_serve_refuses_a_missing_vault_before_loading_the_service(tmp_path: Path) -> None:
    code, errors, heavy = serve_refusal(tmp_path, "--vault", str(tmp_path / "missing"))

    assert code == 1
    assert f"the vault folder {tmp_path / 'missing'} does not exist" in errors
    assert heavy == []


def test_serve_refuses_a_port_out_of_range_with_a_message_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "vault").mkdir()
    code, errors, heavy = serve_refusal(tmp_path, "--vault", str(tmp_path / "vault"), "--port", "70000")

    assert code == 2
    assert "70000 is not in the range 1<=x<=65535" in errors and "Traceback" not in errors
    assert heavy == []


def test_serve_refuses_a_taken_port_before_loading_the_service(tmp_path: Path) -> None:
    (tmp_path / "vault").mkdir()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, errors, heavy = serve_refusal(tmp_path, "--vault", str(tmp_path / "vault"), "--port", str(port))

    assert code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in errors
    assert heavy == []


def test_serve_refused_because_librarian_mcp_holds_the_data_dir_says_what_to_do(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    data_dir = tmp_path / "data"
    held = DataDirOwnership.acquire(data_dir, "mcp", vault=vault, url="http://127.0.0.1:40123")
    try:
        result = runner.invoke(cli, ["serve", "--vault", str(vault)], env={"DATA_DIR": str(data_dir), "COLUMNS": "400"})
    finally:
        held.release()

    message = " ".join(result.output.split())
    assert result.exit_code == 1, result.output
    assert f"DATA_DIR {data_dir} is in use by `librarian mcp` (pid {os.getpid()})" in message
    assert "Quit that client" in message and "relays to this server" in message
    assert "Start `librarian serve` first" in message


def serve_log(tmp_path: Path, **env: str) -> str:
    """Run `librarian serve` on a one-note vault until its first index, make one request, stop it; return its log."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Note.md").write_text("# Note\n\nThe sourdough rests overnight.\n", encoding="utf-8")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    settings = {"DATA_DIR": str(tmp_path / "data"), "LLM_PROBE_LOCAL_PORTS": "false", **env}
    with log.open("w", encoding="utf-8") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--vault", str(vault), "--port", str(port)],
            env=clean_env(tmp_path, **settings),
            cwd=tmp_path,  # no .env of the checkout's
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 180
        while not _first_run_done(url):
            assert process.poll() is None, log.read_text(encoding="utf-8")
            assert time.monotonic() < deadline, "serve did not finish its first index"
            time.sleep(0.3)
        assert httpx.get(f"{url}/v1/models", timeout=10).status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    return log.read_text(encoding="utf-8")


def _first_run_done(url: str) -> bool:
    try:
        return bool(httpx.get(f"{url}/v1/index/status", timeout=5).json().get("runs_completed"))
    except httpx.HTTPError:
        return False


def test_serve_says_where_it_is_and_what_it_indexed_but_logs_no_line_per_request(tmp_path: Path) -> None:
    logged = serve_log(tmp_path)

    assert f"index in {tmp_path / 'data'}" in logged and "/v1, MCP on" in logged
    assert "indexed 1 notes" in logged and "retrieval-only mode" in logged
    assert "GET /v1/models HTTP" not in logged and "GET /v1/index/status HTTP" not in logged  # the access log
    assert "Started server process" not in logged and "Scheduler started" not in logged


def test_log_level_info_shows_every_library_line(tmp_path: Path) -> None:
    logged = serve_log(tmp_path, LOG_LEVEL="info")

    assert '"GET /v1/models HTTP/1.1" 200' in logged and "indexed 1 notes" in logged
