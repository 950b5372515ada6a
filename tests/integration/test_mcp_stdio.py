"""`librarian mcp` as MCP clients start it: a real subprocess on a temp vault, driven by the SDK's stdio client.

Alone it owns the DATA_DIR (it serves the vault itself and indexes in the background); next to a running
`librarian serve` it relays to that server and opens nothing on disk. Stdout carries only JSON-RPC either way.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.conftest import ROOT, SAMPLE_VAULT, SETTINGS_ENV
from tests.integration.mcp_support import READ_CALLS, User, propose_append, text_of, tool_names
from tests.scripted_llm import free_port

NOTE = "Inbox/Quick capture.md"
SERVER_KEY = "a-service-key-the-mcp-client-does-not-know"
START_S = 180.0


def base_env(vault: Path, data_dir: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS_ENV}
    return {
        **env,
        "VAULT_PATH": str(vault),
        "DATA_DIR": str(data_dir),
        "HF_HUB_OFFLINE": "1",
        "LLM_PROBE_LOCAL_PORTS": "false",
        "WATCH_DEBOUNCE_MS": "100",
        **extra,
    }


# A few notes of sample_vault, so the real model indexes them in seconds even on a busy machine.
SMALL_VAULT = (
    ".obsidian",
    "Templates",
    "Areas/Cooking/Sourdough.md",
    "Areas/Cooking/Fermentation Log.md",
    "MOCs/Kitchen MOC.md",
    "Daily/2026-11-13.md",
    "Inbox/Quick capture.md",
    "Projects/Projects.base",
    "Projects/Balcony Irrigation.md",
)


@pytest.fixture
def vault_copy(tmp_path: Path) -> Path:
    target = tmp_path / "vault"
    for name in SMALL_VAULT:
        source, copy = SAMPLE_VAULT / name, target / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, copy)
        else:
            shutil.copy2(source, copy)
    return target


def stdio(env: dict[str, str], *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "app.cli", "mcp", *args], env=env, cwd=str(ROOT))


async def wait_for_index(client: Client) -> dict[str, Any]:
    deadline = time.monotonic() + START_S
    while True:
        status: dict[str, Any] = json.loads(text_of(await client.call_tool("index_status", {})))
        if status.get("runs_completed", 0) >= 1 and not status.get("running"):
            return status
        if time.monotonic() > deadline:
            raise AssertionError(f"the first index did not finish: {status}")
        await asyncio.sleep(0.5)


def librarian(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        env=env,
        stdin=subprocess.DEVNULL,  # no terminal: what a model running commands has
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_alone_it_owns_the_data_dir_indexes_and_applies_only_what_the_user_accepts(
    vault_copy: Path, tmp_path: Path
) -> None:
    env = base_env(vault_copy, tmp_path / "data")
    user = User("accept")

    async def scenario() -> tuple[list[str], dict[str, Any], str, str, subprocess.CompletedProcess[str]]:
        async with Client(stdio(env), mode="legacy", elicitation_callback=user, read_timeout_seconds=120) as client:
            names = tool_names((await client.list_tools()).tools)
            status = await wait_for_index(client)
            for name, args in READ_CALLS.items():
                result = await client.call_tool(name, args)
                assert not result.is_error, (name, text_of(result))
            found = text_of(await client.call_tool("search_notes", {"query": "sourdough starter rye flour"}))
            note = (await client.read_resource("vault:///Areas/Cooking/Sourdough.md")).contents[0]
            ids = await propose_append(client, NOTE, "- written through stdio")
            applied = text_of(await client.call_tool("apply_proposals", {"ids": ids}))
            shared = librarian(env, "status", "--json")  # another process, while this session owns the DATA_DIR
            assert "# Sourdough" in getattr(note, "text", "")
            return names, status, found, applied, shared

    names, status, found, applied, shared = asyncio.run(scenario())
    assert {"search_notes", "apply_proposals", "index_status"} <= set(names)
    assert status["notes"] >= 8 and status["runs_failed"] == 0
    assert 'path="Areas/Cooking/Sourdough.md"' in found
    assert "Applied 1 change" in applied and len(user.shown) == 1
    assert (vault_copy / NOTE).read_text(encoding="utf-8").endswith("- written through stdio\n")
    assert shared.returncode == 0, shared.stderr
    service = json.loads(shared.stdout)["service"]
    assert service is not None and service["url"].startswith("http://127.0.0.1:")  # it went through the session


def test_stdout_carries_only_json_rpc_while_indexing_logs_warns_and_prints(vault_copy: Path, tmp_path: Path) -> None:
    (vault_copy / "Broken.md").write_text("---\ntags: [unclosed\n---\n# Broken\n", encoding="utf-8")
    noisy = tmp_path / "noisy_librarian.py"
    noisy.write_text(
        "import sys, warnings\n"
        "import sync.reindex as reindex\n"
        "original = reindex.Reindexer.run_once\n"
        "def run_once(self, *args, **kwargs):\n"
        "    print('a library printing to stdout while indexing')\n"
        "    warnings.warn('a library warning while indexing', UserWarning)\n"
        "    return original(self, *args, **kwargs)\n"
        "reindex.Reindexer.run_once = run_once\n"
        "from app.cli.main import main\n"
        "sys.argv = ['librarian', 'mcp']\n"
        "main()\n",
        encoding="utf-8",
    )
    env = base_env(vault_copy, tmp_path / "data", LOG_LEVEL="INFO", PYTHONPATH=str(ROOT))
    log = tmp_path / "stderr.log"
    with log.open("w", encoding="utf-8") as stderr:  # a file: a pipe nobody reads would fill and block the logs
        process = subprocess.Popen(
            [sys.executable, str(noisy)],
            env=env,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    assert process.stdin is not None and process.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()

    def receive() -> dict[str, Any]:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, "the server closed stdout"
        message: dict[str, Any] = json.loads(line)  # anything but one JSON-RPC message per line fails here
        assert message["jsonrpc"] == "2.0"
        return message

    capabilities = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": capabilities})
        assert receive()["result"]["serverInfo"]["name"] == "vault-librarian"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        deadline = time.monotonic() + START_S
        request_id = 1
        while True:  # until the first index (with its print and warning) is done
            request_id += 1
            send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "index_status"}})
            reply = receive()
            status = json.loads(reply["result"]["content"][0]["text"])
            if status.get("runs_completed", 0) >= 1 and not status.get("running"):
                break
            assert time.monotonic() < deadline, status
            time.sleep(0.5)
        process.stdin.close()  # the client goes away: the server shuts down and exits
        rest = process.stdout.read()
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    errors = log.read_text(encoding="utf-8")
    for line in rest.splitlines():
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert status["warnings"] and any(w["path"] == "Broken.md" for w in status["warnings"])
    assert "a library printing to stdout while indexing" in errors
    assert "a library warning while indexing" in errors
    assert "Application startup complete" in errors  # the service's own log lines went to stderr too
    assert process.returncode == 0, errors


@pytest.fixture
def served(vault_copy: Path, tmp_path: Path) -> Iterator[tuple[str, dict[str, str], subprocess.Popen[bytes]]]:
    port = free_port()
    env = base_env(vault_copy, tmp_path / "data")
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        env={**env, "API_KEY": SERVER_KEY},
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_S
    try:
        while True:
            assert process.poll() is None, "serve exited early"
            try:
                status = httpx.get(
                    f"{url}/v1/index/status", headers={"Authorization": f"Bearer {SERVER_KEY}"}, timeout=10
                ).json()
                if status["runs_completed"] >= 1:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "serve did not finish its first index"
            time.sleep(0.3)
        yield url, env, process
    finally:
        process.terminate()
        process.wait(timeout=60)


def test_next_to_a_running_serve_it_relays_there_in_both_eras(
    served: tuple[str, dict[str, str], subprocess.Popen[bytes]], vault_copy: Path, tmp_path: Path
) -> None:
    url, env, _ = served  # env has no API_KEY: the relay uses the server's own token from owner.lock
    owner_before = json.loads((tmp_path / "data" / "owner.lock").read_text(encoding="utf-8"))
    user = User("accept")

    async def session(mode: str, content: str, answering: User | None) -> tuple[str, str]:
        async with Client(stdio(env), mode=mode, elicitation_callback=answering, read_timeout_seconds=120) as client:
            found = text_of(await client.call_tool("search_notes", {"query": "sourdough starter rye flour"}))
            ids = await propose_append(client, NOTE, content)
            return found, text_of(await client.call_tool("apply_proposals", {"ids": ids}))

    found, legacy = asyncio.run(session("legacy", "- relayed, legacy", user))
    _, modern = asyncio.run(session("2026-07-28", "- relayed, 2026", user))
    _, unasked = asyncio.run(session("legacy", "- waits for the terminal", None))

    assert 'path="Areas/Cooking/Sourdough.md"' in found  # the server's index, already built
    assert "Applied 1 change" in legacy and "Applied 1 change" in modern and len(user.shown) == 2
    text = (vault_copy / NOTE).read_text(encoding="utf-8")
    assert "- relayed, legacy\n" in text and "- relayed, 2026\n" in text and "waits for the terminal" not in text
    assert "librarian proposals apply" in unasked
    assert json.loads((tmp_path / "data" / "owner.lock").read_text(encoding="utf-8"))["pid"] == owner_before["pid"]

    listed = librarian(env, "proposals")
    refused = librarian(env, "proposals", "apply", *[line.split()[0] for line in listed.stdout.splitlines()[:1]])
    pending = httpx.get(f"{url}/v1/proposals", headers={"Authorization": f"Bearer {SERVER_KEY}"}, timeout=10)
    assert listed.returncode == 0 and "+- waits for the terminal" in listed.stdout
    assert refused.returncode == 1 and "on a terminal" in refused.stderr  # a pipe is not the user
    assert [p["operation"] for p in pending.json()["proposals"]] == ["append"]
    assert "waits for the terminal" not in (vault_copy / NOTE).read_text(encoding="utf-8")


def test_when_the_server_stops_a_waiting_call_fails_and_the_session_ends(
    served: tuple[str, dict[str, str], subprocess.Popen[bytes]],
) -> None:
    _, env, server = served

    async def scenario() -> str:
        async with Client(stdio(env), mode="legacy", read_timeout_seconds=60) as client:
            assert "search_notes" in tool_names((await client.list_tools()).tools)
            server.terminate()
            server.wait(timeout=60)
            with pytest.raises(MCPError) as failed:
                await client.call_tool("tags", {"command": "list_with_counts"})
            return str(failed.value)

    message = asyncio.run(scenario())  # leaving the client waits for the relay process to end
    assert "stopped answering" in message and "restart this MCP server" in message
