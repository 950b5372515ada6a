"""The example crews through every front: the CLI, the HTTP API (with SSE progress), chat, the scheduler."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from app.http.main import create_app
from app.process.ownership import DataDirOwnership
from core.settings import Settings
from crews.schedule import JOB_PREFIX, CrewSchedule
from llm_client import OpenAICompatibleChatModel
from tests.conftest import SETTINGS_ENV
from tests.crew_support import BRIEFING, crew_world, daily_note_of, schema_answer
from tests.live_server import serve_in_thread
from tests.scripted_llm import ScriptedLLMServer
from tests.vault_state import vault_hashes

runner = CliRunner()


def briefing_by_cli(env: dict[str, str | None]) -> dict[str, Any]:
    """Install the example crews and run Daily-Briefing through the CLI; return the run's state."""
    runner.invoke(cli, ["crew", "install-examples"], env=env)
    state: dict[str, Any] = json.loads(runner.invoke(cli, ["crew", "run", "Daily-Briefing", "--json"], env=env).stdout)
    return state


def cli_env(settings: Settings, llm_url: str) -> dict[str, str | None]:
    env: dict[str, str | None] = dict.fromkeys(SETTINGS_ENV)
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


def outside_crews(hashes: Mapping[str, str]) -> dict[str, str]:
    return {path: digest for path, digest in hashes.items() if not path.startswith(("_crews/", ".trash/"))}


def test_the_cli_installs_lists_runs_shows_and_undoes_the_daily_briefing(settings: Settings, vault: Path) -> None:
    with ScriptedLLMServer(schema_answer) as llm:
        env = cli_env(settings, llm.base_url)
        installed = runner.invoke(cli, ["crew", "install-examples"], env=env)
        again = runner.invoke(cli, ["crew", "install-examples"], env=env)
        listed = runner.invoke(cli, ["crew", "list"], env=env)
        before = vault_hashes(vault)
        dry = runner.invoke(cli, ["crew", "run", "Daily-Briefing", "--dry-run"], env=env)
        assert outside_crews(vault_hashes(vault)) == outside_crews(before)
        ran = runner.invoke(cli, ["crew", "run", "Daily-Briefing", "--json"], env=env)
        state = json.loads(ran.stdout)
        runs = runner.invoke(cli, ["crew", "runs"], env=env)
        shown = runner.invoke(cli, ["crew", "show", state["id"]], env=env)
        undone = runner.invoke(cli, ["undo", "--yes"], env=env)  # the last change set is the run

    assert installed.exit_code == 0 and "5 file(s) written, 0 kept" in installed.stdout
    assert again.exit_code == 0 and "0 file(s) written, 5 kept" in again.stdout
    assert "Daily-Briefing" in listed.stdout and "Task-Triage" in listed.stdout
    assert dry.exit_code == 0, dry.output
    assert "+## Briefing" in dry.stdout and "dry run: nothing written" in dry.stdout
    assert ran.exit_code == 0, ran.output
    assert state["status"] == "ok" and state["files"] == [daily_note_of(vault).relative_to(vault).as_posix()]
    assert state["id"] in runs.stdout and "section.replace" in shown.stdout
    assert undone.exit_code == 0, undone.output
    assert outside_crews(vault_hashes(vault)) == outside_crews(before)


def test_crew_undo_of_a_run_shows_what_it_restores_and_asks(settings: Settings, vault: Path) -> None:
    with ScriptedLLMServer(schema_answer) as llm:
        env = cli_env(settings, llm.base_url)
        runner.invoke(cli, ["crew", "install-examples"], env=env)
        before = outside_crews(vault_hashes(vault))
        state = json.loads(runner.invoke(cli, ["crew", "run", "Daily-Briefing", "--json"], env=env).stdout)
        declined = runner.invoke(cli, ["crew", "undo", state["id"]], env=env, input="n\n")
        assert outside_crews(vault_hashes(vault)) != before
        confirmed = runner.invoke(cli, ["crew", "undo", state["id"]], env=env, input="y\n")

    assert declined.exit_code == 0, declined.output
    assert "nothing changed" in declined.stdout
    assert f"Daily-Briefing ({state['started']})" in declined.stdout
    assert confirmed.exit_code == 0, confirmed.output
    assert outside_crews(vault_hashes(vault)) == before


def test_the_api_lists_starts_follows_and_undoes_a_run(settings: Settings, vault: Path) -> None:
    with crew_world(settings) as world:
        (vault / "_crews" / "Broken.md").write_text("---\ncrew-kind: team\ntasks: []\n---\n", encoding="utf-8")
        triage = vault / "_crews" / "Task-Triage.md"
        triage.write_text(
            triage.read_text("utf-8").replace("crew-kind: team\n", "crew-kind: team\nowner: me\n"), "utf-8"
        )
        model = OpenAICompatibleChatModel(world.settings.llm.model_copy(update={"base_urls": (world.llm.base_url,)}))
        app = create_app(world.settings, world.services, chat_model=model)
        with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=30) as client:
            catalog = client.get("/v1/crews").json()
            page = client.get("/crews").text
            started = client.post("/v1/crews/Daily-Briefing/runs", json={})
            run_id = started.json()["run"]["id"]
            with client.stream("GET", f"/v1/crews/runs/{run_id}/events") as stream:
                events = [json.loads(line[5:]) for line in stream.iter_lines() if line.startswith("data:")]
            final = client.get(f"/v1/crews/runs/{run_id}").json()
            busy_free = client.post(f"/v1/crews/runs/{run_id}/abort").json()
            plan = client.get(f"/v1/crews/runs/{run_id}/undo").json()
            wrong = client.post(f"/v1/crews/runs/{run_id}/undo", json={"change_set_id": "nope"})
            undone = client.post(f"/v1/crews/runs/{run_id}/undo", json={"change_set_id": plan["change_set_id"]})
            missing = client.post("/v1/crews/No-Such-Crew/runs", json={})

    warnings = {crew["name"]: crew["warnings"] for crew in catalog["crews"]}
    assert warnings == {"Daily-Briefing": [], "Task-Triage": ["ignored owner: no team setting"]}
    assert page.count('class="warn crew-warning"') == 1 and "⚠ ignored owner: no team setting" in page
    assert [error["path"] for error in catalog["errors"]] == ["_crews/Broken.md"]
    assert started.status_code == 202
    assert events[-1]["type"] == "run" and events[-1]["status"] == "ok"
    # Each task's status is sent first to a watcher however late it comes; the `tokens` ticker only to one that was
    # watching while the model replied (a busy machine runs this quick run before the stream opens), which
    # test_web_actions checks with a model that waits for it.
    assert "task" in {event["type"] for event in events}
    assert final["status"] == "ok" and final["writes"] == 1
    assert "nothing was aborted" in busy_free["message"]
    assert plan["has_writes"] and plan["crew"] == "Daily-Briefing"
    assert wrong.status_code == 409
    assert undone.status_code == 200 and undone.json()["applied"]
    assert missing.status_code == 404 and "Daily-Briefing" in missing.json()["error"]["message"]
    assert not daily_note_of(vault).exists()


def test_chat_runs_a_crew_dry_and_applies_its_writes_only_on_yes(settings: Settings, vault: Path) -> None:
    with crew_world(settings) as world:
        model = OpenAICompatibleChatModel(world.settings.llm.model_copy(update={"base_urls": (world.llm.base_url,)}))
        app = create_app(world.settings, world.services, chat_model=model)
        with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=60) as client:
            headers = {"X-Conversation-Id": "crew-chat"}
            first = [{"role": "user", "content": "Run the Daily-Briefing crew"}]
            proposed = client.post("/v1/chat/completions", json={"model": "x", "messages": first}, headers=headers)
            reply = proposed.json()["choices"][0]["message"]["content"]
            assert not daily_note_of(vault).exists()
            history = [*first, {"role": "assistant", "content": reply}, {"role": "user", "content": "yes"}]
            applied = client.post("/v1/chat/completions", json={"model": "x", "messages": history}, headers=headers)

    assert "dry run" in reply and "+## Briefing" in reply
    assert "You did not ask" not in reply
    assert applied.status_code == 200, applied.text
    assert BRIEFING in daily_note_of(vault).read_text(encoding="utf-8")


def test_the_schedule_follows_the_crew_notes_and_skips_a_run_whose_previous_one_still_goes(
    settings: Settings, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario(world: object) -> dict[str, str]:
        crews = world.crews  # type: ignore[attr-defined]
        crews.enable("Daily-Briefing")  # only enabled schedules run (tests/integration/test_crew_schedule_enable.py)
        schedule = CrewSchedule(crews, reload_seconds=3600)
        schedule.start()
        try:
            first = dict(schedule.jobs)
            team = vault / "_crews" / "Task-Triage.md"
            team.write_text(team.read_text("utf-8").replace("timeout_minutes: 10", 'schedule: "30 6 * * 1"'), "utf-8")
            brief = vault / "_crews" / "Daily-Briefing.md"
            brief.write_text(brief.read_text("utf-8").replace('schedule: "0 7 * * *"\n', ""), "utf-8")
            crews.enable("Task-Triage")
            schedule.reload()
            assert schedule._scheduler.get_job(JOB_PREFIX + "Task-Triage") is not None
            going = await crews.start("Task-Triage", dry_run=True, trigger="api")
            await schedule.run_scheduled("Task-Triage")
            await crews.wait(going.id)
            await schedule.run_scheduled("Task-Triage")
            return {**{f"before:{k}": v for k, v in first.items()}, **schedule.jobs}
        finally:
            schedule.shutdown()

    caplog.set_level(logging.INFO)
    with crew_world(settings) as world:
        jobs = asyncio.run(scenario(world))
        runs = world.crews.runs(crew="Task-Triage")

    assert jobs == {"before:Daily-Briefing": "0 7 * * *", "Task-Triage": "30 6 * * 1"}
    assert "scheduled run of crew Task-Triage skipped: its previous run is still going" in caplog.text
    assert sorted(run.trigger for run in runs) == ["api", "schedule"]


def test_a_vault_without_crews_lists_none_and_says_how_to_get_the_examples(settings: Settings) -> None:
    env = cli_env(settings, "http://127.0.0.1:9/v1")
    result = runner.invoke(cli, ["crew", "list"], env=env)

    assert result.exit_code == 0
    assert "librarian crew install-examples" in result.stdout


@pytest.mark.parametrize("name", ["Daily-Briefing", "Task-Triage"])
def test_installed_examples_load_without_errors(settings: Settings, name: str) -> None:
    with crew_world(settings) as world:
        catalog = world.crews.catalog()

    assert catalog.errors == ()
    assert catalog.team(name) is not None


def test_crew_runs_show_and_list_read_the_crew_files_while_another_command_holds_the_data_dir(
    settings: Settings, vault: Path
) -> None:
    with ScriptedLLMServer(schema_answer) as llm:
        env = cli_env(settings, llm.base_url)
        state = briefing_by_cli(env)
        index = DataDirOwnership.acquire(settings.data_dir, "index", vault=vault)  # as `librarian index` holds it
        try:
            runs = runner.invoke(cli, ["crew", "runs", "--json"], env=env)
            shown = runner.invoke(cli, ["crew", "show", state["id"]], env=env)
            listed = runner.invoke(cli, ["crew", "list"], env=env)
            ran = runner.invoke(cli, ["crew", "run", "Daily-Briefing"], env=env)
            mistyped = runner.invoke(cli, ["crew", "runs"], env={**env, "VAULT_PATH": str(vault) + "-typo"})
        finally:
            index.release()

    assert runs.exit_code == 0, runs.output
    assert [run["id"] for run in json.loads(runs.stdout)] == [state["id"]]
    assert "`librarian index`" in runs.stderr
    assert shown.exit_code == 0 and "section.replace" in shown.stdout
    assert listed.exit_code == 0 and "Daily-Briefing" in listed.stdout
    assert ran.exit_code == 1 and "in use by `librarian index`" in ran.output  # a run needs the index: refused
    assert mistyped.exit_code == 1 and "does not exist" in mistyped.output  # not "no runs"
