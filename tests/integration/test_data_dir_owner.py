"""One owner per DATA_DIR, with real processes: CLI commands go through a running server and never touch its stores."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import SETTINGS_ENV
from tests.scripted_llm import free_port

NOTES = {
    "Sourdough.md": """
        # Sourdough

        ## Starter
        Feed the sourdough starter with rye flour and water every morning; it doubles in six hours.
        """,
    "Garden/Tomatoes.md": """
        # Tomatoes

        ## Watering
        Water the tomato plants deeply twice a week; straw mulch keeps the soil moist in July.
        """,
    "Garden/Garlic.md": """
        # Garlic

        ## Planting
        Plant forty garlic cloves in October, pointy end up, a hand apart.
        """,
}
START_S = 120.0
SERVER_KEY = "a-service-key-the-cli-does-not-know"


@dataclass
class Served:
    vault: Path
    data_dir: Path
    url: str
    process: subprocess.Popen[str]
    env: dict[str, str]


def base_env(vault: Path, data_dir: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS_ENV}
    return {
        **env,
        "VAULT_PATH": str(vault),
        "DATA_DIR": str(data_dir),
        "HF_HUB_OFFLINE": "1",
        "LLM_PROBE_LOCAL_PORTS": "false",
        "WATCH_DEBOUNCE_MS": "100",
    }


def librarian(env: dict[str, str], *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args], env=env, capture_output=True, text=True, timeout=timeout
    )


def wait_until(predicate: object, *, what: str, timeout: float = START_S) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def index_status(url: str) -> dict[str, object]:
    response = httpx.get(f"{url}/v1/index/status", headers={"Authorization": f"Bearer {SERVER_KEY}"}, timeout=10)
    response.raise_for_status()
    body: dict[str, object] = response.json()
    return body


def tree_state(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


def write_notes(vault: Path) -> Path:
    """Write NOTES into `vault`; return it."""
    for name, text in NOTES.items():
        (vault / name).parent.mkdir(parents=True, exist_ok=True)
        (vault / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return vault


@contextmanager
def serve_process(
    vault: Path, data_dir: Path, **settings: str
) -> Iterator[tuple[str, subprocess.Popen[str], dict[str, str]]]:
    """Run `librarian serve` (API_KEY=SERVER_KEY, INFO logs, `settings` on top) until its first index is done.

    Yield its URL, the process and the environment CLI commands share with it; kill it afterwards if still running.
    """
    port = free_port()
    env = base_env(vault, data_dir)
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        env={**env, "API_KEY": SERVER_KEY, "LOG_LEVEL": "INFO", **settings},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"

    def first_run_done() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"serve exited early: {process.stdout.read() if process.stdout else ''}")
        try:
            return index_status(url)["runs_completed"] == 1
        except httpx.HTTPError:
            return False

    try:
        wait_until(first_run_done, what="the first index")
        yield url, process, env
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    vault, data_dir = write_notes(tmp_path / "vault"), tmp_path / "data"
    with serve_process(vault, data_dir) as (url, process, env):
        yield Served(vault, data_dir, url, process, env)


def stop(served: Served) -> str:
    served.process.send_signal(signal.SIGTERM)
    output, _ = served.process.communicate(timeout=60)
    return output


def test_cli_commands_go_through_the_server_and_leave_its_index_working(served: Served) -> None:
    edge = served.data_dir / "qdrant-edge"
    before = tree_state(edge)

    status = librarian(served.env, "status", "--json")
    search = librarian(served.env, "search", "garlic cloves", "--json")
    index = librarian(served.env, "index", "--json")
    ask = librarian(served.env, "ask", "When do I plant garlic?")
    changes = librarian(served.env, "changes")
    undo = librarian(served.env, "undo", "--yes")

    for result in (status, search, index, ask, changes, undo):
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr and "WouldBlock" not in result.stderr
    body = json.loads(status.stdout)
    assert body["service"]["url"] == served.url and body["notes"] == len(NOTES)
    assert body["consistency"]["ok"] is True
    assert json.loads(search.stdout)[0]["path"] == "Garden/Garlic.md"
    assert json.loads(index.stdout)["unchanged"] == len(NOTES)
    assert "October" in ask.stdout
    assert "nothing to undo" in undo.stdout
    assert tree_state(edge) == before  # no CLI process opened, flushed or deleted a file of the shard

    note = served.vault / "Garden/Garlic.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nHarvest when half the leaves are brown.\n", "utf-8")
    wait_until(lambda: index_status(served.url)["runs_completed"] >= 3, what="the re-index of the edit")
    after = index_status(served.url)
    assert (after["runs_failed"], after["last_error"]) == (0, None)
    found = librarian(served.env, "search", "half the leaves are brown", "--json")
    assert json.loads(found.stdout)[0]["path"] == "Garden/Garlic.md"

    output = stop(served)
    # uvicorn re-raises the signal once its shutdown is complete, so the exit status is "ended by SIGTERM".
    assert served.process.returncode in (0, -signal.SIGTERM), output
    assert "Application shutdown complete" in output
    assert "Application shutdown failed" not in output and "Traceback" not in output


def test_search_refusals_through_the_server_say_what_they_say_without_one(served: Served) -> None:
    refusals = {
        ("   ",): "error: the search query is empty",
        ("garlic", "--tag", "nosuchtag"): "error: no note is tagged #nosuchtag in the vault",
        ("garlic", "--folder", "Nope"): "error: no folder 'Nope' in the vault",
    }

    for args, message in refusals.items():
        result = librarian(served.env, "search", *args)
        assert (result.returncode, " ".join(result.stderr.split())) == (1, message)


def test_a_second_serve_on_the_same_data_dir_is_refused_before_it_loads_anything(served: Served) -> None:
    second = librarian(served.env, "serve", "--port", str(free_port()), timeout=60)

    assert second.returncode == 1
    assert f"DATA_DIR {served.data_dir} is in use by `librarian serve`" in second.stderr
    assert f"on {served.url}" in second.stderr
    assert "Traceback" not in second.stderr
    assert index_status(served.url)["runs_failed"] == 0


def test_serve_on_a_taken_port_says_so_and_leaves_the_data_dir_free(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Note.md").write_text("# Note\n", encoding="utf-8")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = librarian(base_env(vault, tmp_path / "data"), "serve", "--port", str(port), timeout=60)

    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr and "--port" in result.stderr
    assert not (tmp_path / "data" / "qdrant-edge").exists()


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_serve_refuses_a_vault_that_is_missing_or_a_file(tmp_path: Path, kind: str) -> None:
    vault = tmp_path / "vault"
    if kind == "file":
        vault.write_text("not a folder", encoding="utf-8")

    result = librarian(base_env(vault, tmp_path / "data"), "serve", "--port", str(free_port()), timeout=60)

    assert result.returncode == 1
    expected = f"the vault folder {vault} does not exist" if kind == "missing" else f"{vault} is not a folder"
    assert expected in result.stderr
