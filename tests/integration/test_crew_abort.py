"""Aborting a crew run as Vault Crews promises it: from another process, by Ctrl-C, and honestly when it is too late."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.console import Console
from typer.testing import CliRunner

from app.cli.crew_console import print_run
from app.cli.main import cli
from app.http.main import create_app
from app.process.ownership import Owner
from app.services.crew_access import RemoteCrews
from app.services.service_client import ServiceClient
from core.settings import Settings
from crews.install import install_examples
from crews.logs.runlog import RUN_NOTE
from llm_client import OpenAICompatibleChatModel
from tests.conftest import SETTINGS_ENV
from tests.crew_support import crew_world
from tests.live_server import serve_in_thread
from tests.scripted_llm import ScriptedLLMServer
from tests.scripted_llm_turns import Turn
from tests.vault_state import vault_hashes

runner = CliRunner()
LATE = "the run finished before the abort took effect; nothing was aborted"
# A reply that streams for a minute unless the run is stopped.
SLOW = Turn.text([json.dumps({"markdown": "- a"})[:5]] * 600, delay_per_token=0.1)


def outside_crews(vault: Path) -> dict[str, str]:
    return {path: digest for path, digest in vault_hashes(vault).items() if not path.startswith(("_crews/", ".trash/"))}


def cli_env(settings: Settings, llm_url: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS_ENV}
    env.update(
        VAULT_PATH=str(settings.vault_path),
        DATA_DIR=str(settings.data_dir),
        LLM_BASE_URL=llm_url,
        LLM_RETRIES="0",
        WRITE_BACKEND="files",
        HF_HUB_OFFLINE="1",
        COLUMNS="250",
    )
    return env


def wait_for_state(vault: Path, ready: Callable[[dict[str, Any]], bool], process: subprocess.Popen[str]) -> Path:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for state_file in (vault / "_crews" / "runs").glob("*/state.json"):
            try:
                state = json.loads(state_file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if ready(state):
                return state_file
        if process.poll() is not None:
            raise AssertionError(f"the crew run ended early with {process.returncode}: {process.communicate()}")
        time.sleep(0.1)
    raise AssertionError("the run never reached the state waited for")


def start_cli_run(settings: Settings, llm: ScriptedLLMServer, tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    """Start `librarian crew run Daily-Briefing` in its own process; return it once the model is being asked."""
    install_examples(settings.vault_path, "_crews")
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "crew", "run", "Daily-Briefing"],
        env=cli_env(settings, llm.base_url),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    state_file = wait_for_state(settings.vault_path, lambda s: s["tasks"][1]["status"] == "running", process)
    return process, state_file


def test_crew_abort_stops_a_run_that_another_cli_process_started(
    settings: Settings, vault: Path, tmp_path: Path
) -> None:
    before = outside_crews(vault)
    with ScriptedLLMServer([SLOW]) as llm:
        process, state_file = start_cli_run(settings, llm, tmp_path)
        try:
            run_id = state_file.parent.name
            env = {key: value for key, value in cli_env(settings, llm.base_url).items() if key in SETTINGS_ENV}
            aborted = runner.invoke(cli, ["crew", "abort", run_id], env={**dict.fromkeys(SETTINGS_ENV), **env})
            out, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()

    assert aborted.exit_code == 0, aborted.output
    assert "abort requested" in aborted.stdout
    assert process.returncode == 1, err
    state = json.loads(state_file.read_text(encoding="utf-8"))
    assert state["status"] == "aborted" and state["abort_requested"] is True
    assert [task["status"] for task in state["tasks"]] == ["ok", "failed", "skipped"]
    assert "Aborted" in (state_file.parent / RUN_NOTE).read_text(encoding="utf-8")
    assert "aborted" in out
    assert outside_crews(vault) == before
    assert not list((settings.data_dir / "crews" / "locks").glob("*.abort"))  # the request was taken away


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_aborts_a_cli_run_cleanly_and_writes_its_log(
    settings: Settings, vault: Path, tmp_path: Path, signum: signal.Signals
) -> None:
    before = outside_crews(vault)
    with ScriptedLLMServer([SLOW]) as llm:
        process, state_file = start_cli_run(settings, llm, tmp_path)
        try:
            process.send_signal(signum)
            out, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
        listed = subprocess.run(
            [sys.executable, "-m", "app.cli", "crew", "runs", "--json"],
            env=cli_env(settings, llm.base_url),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )

    assert process.returncode == 1, err
    state = json.loads(state_file.read_text(encoding="utf-8"))
    assert state["status"] == "aborted" and state["abort_requested"] is True, state
    assert "Aborted" in (state_file.parent / RUN_NOTE).read_text(encoding="utf-8")
    assert "aborted" in out
    assert outside_crews(vault) == before
    assert "interrupted" not in listed.stderr  # it ended properly: nothing for the next start to recover
    assert json.loads(listed.stdout)[0]["status"] == "aborted"


def test_an_abort_after_the_last_checkpoint_ends_ok_and_says_nothing_was_aborted(
    settings: Settings, vault: Path
) -> None:
    answers: list[str] = []

    async def scenario(world: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        crews = world.crews
        run_id = ""

        def on_event(event: dict[str, Any]) -> None:
            if event.get("type") == "task" and event["task"] == "write" and event["status"] == "running":
                answers.append(crews.abort(run_id))  # the actions task is the last: no checkpoint follows

        started = await crews.start("Daily-Briefing", dry_run=False, trigger="api", on_event=on_event)
        run_id = started.id
        events = [event async for event in crews.control(run_id).events()]
        final = await crews.wait(run_id)
        return final.to_json(), events

    with crew_world(settings) as world:
        state, events = asyncio.run(scenario(world))
        again = world.crews.abort(state["id"])

    assert answers and answers[0].startswith("abort requested")
    assert state["status"] == "ok" and state["writes"] == 1
    assert state["abort_requested"] is True and state["notice"] == LATE
    saved = json.loads((vault / "_crews/runs" / state["id"] / "state.json").read_text(encoding="utf-8"))
    assert saved["abort_requested"] is True and saved["notice"] == LATE
    assert LATE in (vault / "_crews/runs" / state["id"] / RUN_NOTE).read_text(encoding="utf-8")
    assert events[-1]["type"] == "run" and events[-1]["status"] == "ok" and events[-1]["notice"] == LATE
    assert "nothing was aborted" in again
    shown = Console(file=io.StringIO(), width=200)
    print_run(shown, state, with_diffs=False)
    assert LATE in shown.file.getvalue()  # type: ignore[attr-defined]


def test_ctrl_c_while_following_a_run_on_the_server_aborts_it_there(settings: Settings, vault: Path) -> None:
    seen: list[dict[str, Any]] = []

    def on_event(event: dict[str, Any]) -> None:
        seen.append(event)
        if event.get("type") == "tokens" and not any(e.get("type") == "abort_requested" for e in seen):
            raise KeyboardInterrupt  # what Ctrl-C raises in the main thread while the CLI reads the events

    with crew_world(settings, script=[SLOW]) as world:
        model = OpenAICompatibleChatModel(world.settings.llm.model_copy(update={"base_urls": (world.llm.base_url,)}))
        app = create_app(world.settings, world.services, chat_model=model)
        with serve_in_thread(app) as url:
            owner = Owner(pid=os.getpid(), command="serve", vault=str(vault), started_at="", url=url)
            client = ServiceClient(owner, settings.data_dir, api_key=None, on_wait=lambda: None)
            try:
                state = RemoteCrews(client).run("Daily-Briefing", dry_run=False, on_event=on_event)
            finally:
                client.close()
            after = httpx.get(f"{url}/v1/crews/runs/{state['id']}", timeout=10).json()

    assert state["status"] == "aborted" and after["status"] == "aborted"
    assert any(event.get("type") == "abort_requested" for event in seen)


def test_a_run_that_ended_after_an_abort_still_says_it_was_asked_to_whoever_follows_it(
    settings: Settings, vault: Path
) -> None:
    # The CLI that asked on Ctrl-C follows the run again; under load the run had stopped before it resubscribed,
    # and its events said only "aborted".
    with crew_world(settings, script=[SLOW]) as world:
        model = OpenAICompatibleChatModel(world.settings.llm.model_copy(update={"base_urls": (world.llm.base_url,)}))
        app = create_app(world.settings, world.services, chat_model=model)
        with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=30) as client:
            run_id = client.post("/v1/crews/Daily-Briefing/runs", json={}).json()["run"]["id"]
            client.post(f"/v1/crews/runs/{run_id}/abort")
            deadline = time.monotonic() + 30
            while client.get(f"/v1/crews/runs/{run_id}").json()["status"] == "running":
                assert time.monotonic() < deadline, "the aborted run did not end"
                time.sleep(0.05)
            with client.stream("GET", f"/v1/crews/runs/{run_id}/events") as stream:
                events = [json.loads(line[5:]) for line in stream.iter_lines() if line.startswith("data:")]

    assert [event["type"] for event in events] == ["abort_requested", "run"]
    assert events[-1]["status"] == "aborted"
