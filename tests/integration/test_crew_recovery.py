"""A crew run whose process is killed mid-run: found at the next start, marked interrupted, undone byte for byte."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from app.wiring import build_crew_service
from core.settings import Settings
from crews.install import install_examples
from crews.logs.run_state import new_run
from tests.conftest import SETTINGS_ENV
from tests.crew_support import schema_answer
from tests.scripted_llm import ScriptedLLMServer
from tests.scripted_llm_turns import Turn
from tests.vault_state import vault_hashes

# Two rounds: triage writes the task notes, then a second llm task hangs until the process is killed.
TWO_ROUNDS = """---
crew-kind: team
name: Two-Rounds
write_scope: ["TaskNotes/**"]
max_llm_calls: 4
tasks:
  - id: backlog
    collector: tasknotes.query
    params: {folder: TaskNotes, where_missing: [priority]}
  - id: triage
    agent: Triage
    output: {family: frontmatter.set, allowed_keys: [priority]}
  - id: apply
    actions: frontmatter.set
  - id: again
    agent: Triage
    output: {family: frontmatter.set, allowed_keys: [contexts]}
  - id: apply-again
    actions: frontmatter.set
---
"""


def outside_crews(vault: Path) -> dict[str, str]:
    return {path: digest for path, digest in vault_hashes(vault).items() if not path.startswith(("_crews/", ".trash/"))}


def test_a_killed_run_is_marked_interrupted_at_the_next_start_and_its_writes_undo_byte_for_byte(
    settings: Settings, vault: Path, tmp_path: Path
) -> None:
    install_examples(vault, "_crews")
    (vault / "_crews" / "Two-Rounds.md").write_text(TWO_ROUNDS, encoding="utf-8")
    before = outside_crews(vault)
    calls = {"n": 0}

    def answer(body: dict[str, object]) -> Turn:
        calls["n"] += 1
        return schema_answer(body) if calls["n"] == 1 else Turn.text("{}", delay=600)  # type: ignore[arg-type]

    env = {key: value for key, value in os.environ.items() if key not in SETTINGS_ENV}
    with ScriptedLLMServer(answer) as llm:
        env.update(
            VAULT_PATH=str(vault),
            DATA_DIR=str(settings.data_dir),
            LLM_BASE_URL=llm.base_url,
            LLM_RETRIES="0",
            WRITE_BACKEND="files",
            HF_HUB_OFFLINE="1",
        )
        process = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "crew", "run", "Two-Rounds"],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            state_file = wait_for_state(vault, lambda state: state["tasks"][2]["status"] == "ok", process)
            process.send_signal(signal.SIGKILL)
            assert process.wait(timeout=30) == -signal.SIGKILL
        finally:
            if process.poll() is None:
                process.kill()
        written = json.loads(state_file.read_text(encoding="utf-8"))
        assert written["status"] == "running" and written["writes"] > 0
        assert outside_crews(vault) != before

        listed = subprocess.run(
            [sys.executable, "-m", "app.cli", "crew", "runs", "--json"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        undone = subprocess.run(
            [sys.executable, "-m", "app.cli", "crew", "undo", written["id"], "--yes"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )

    assert listed.returncode == 0, listed.stderr
    assert f"run {written['id']} of Two-Rounds was interrupted" in listed.stderr
    run = next(item for item in json.loads(listed.stdout) if item["id"] == written["id"])
    assert run["status"] == "interrupted" and "undoable" in run["error"]
    assert "interrupted" in (state_file.parent / "run.md").read_text(encoding="utf-8").lower()
    assert undone.returncode == 0, undone.stderr
    assert outside_crews(vault) == before


def wait_for_state(vault: Path, ready: object, process: subprocess.Popen[bytes]) -> Path:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for state_file in (vault / "_crews" / "runs").glob("*/state.json"):
            try:
                state = json.loads(state_file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if ready(state):  # type: ignore[operator]
                return state_file
        if process.poll() is not None:
            raise AssertionError(f"the crew run ended early with {process.returncode}")
        time.sleep(0.1)
    raise AssertionError("the run never reached the state waited for")


def test_an_interrupted_run_says_it_wrote_nothing_or_how_many_writes_stay_undoable(
    settings: Settings, vault: Path
) -> None:
    install_examples(vault, "_crews")
    crews = build_crew_service(
        settings.model_copy(update={"write_backend": "files"}), None, None, None, after_write=None
    )
    team = crews.catalog().team("Daily-Briefing")
    assert team is not None
    for writes in (0, 2):
        state = new_run(team, trigger="cli", dry_run=False, now=datetime(2026, 12, 1, 7, writes, tzinfo=UTC))
        state.writes = writes
        crews.deps.store.save(state)  # left `running` by a process that is gone: no team lock is held

    recovered = {state.writes: state for state in crews.recover()}

    assert {state.status for state in recovered.values()} == {"interrupted"}
    assert "it had written nothing, so there is nothing to undo" in (recovered[0].error or "")
    assert "undoable" not in (recovered[0].error or "")
    assert "the 2 write(s) it made are in its change set and undoable" in (recovered[2].error or "")
    run_note = crews.deps.store.folder / recovered[0].id / "run.md"
    assert "it had written nothing" in run_note.read_text(encoding="utf-8")
