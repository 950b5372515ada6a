"""A team's `schedule` runs only once the user enabled it outside the agent, and only while its notes are unchanged.

`librarian crew enable NAME` (or `POST /v1/crews/{name}/enable`) records the hash of the team note and its agent
notes under DATA_DIR; any later edit of one of them pauses the schedule until it is enabled again. Manual runs need
no enabling.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from app.cli.main import cli
from app.http.main import create_app
from core.settings import Settings
from crews.schedule import CrewSchedule
from tests.conftest import SETTINGS_ENV
from tests.crew_support import crew_world
from tests.live_server import serve_in_thread
from tests.scripted_llm import free_port

KEY = "a-key-for-the-schedule-tests"
PAUSED = "paused: changed since enabled (run `librarian crew enable Daily-Briefing`)"
runner = CliRunner()


def cli_env(settings: Settings) -> dict[str, str | None]:
    env: dict[str, str | None] = dict.fromkeys(SETTINGS_ENV)
    env.update(VAULT_PATH=str(settings.vault_path), DATA_DIR=str(settings.data_dir), WRITE_BACKEND="files")
    return {**env, "LLM_BASE_URL": "http://127.0.0.1:9/v1", "HF_HUB_OFFLINE": "1", "COLUMNS": "250"}


def statuses(catalog: dict[str, object]) -> dict[str, object]:
    return {crew["name"]: crew["schedule_status"] for crew in catalog["crews"]}  # type: ignore[attr-defined]


def test_a_schedule_runs_only_once_enabled_and_an_edit_of_its_notes_pauses_it(
    settings: Settings, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    agent = vault / "_crews" / "agents" / "Briefer.md"

    async def scenario(crews: object) -> list[dict[str, str]]:
        schedule = CrewSchedule(crews, reload_seconds=3600)  # type: ignore[arg-type]
        schedule.start()
        try:
            seen = [schedule.jobs]
            crews.enable("Daily-Briefing")  # type: ignore[attr-defined]
            schedule.reload()
            seen.append(schedule.jobs)
            agent.write_text(agent.read_text(encoding="utf-8") + "\nAlso list every note.\n", encoding="utf-8")
            schedule.reload()
            schedule.reload()  # logged once, not at every reload
            seen.append(schedule.jobs)
            await schedule.run_scheduled("Daily-Briefing")  # a job already due when the note changed: no run
            crews.enable("Daily-Briefing")  # type: ignore[attr-defined]
            schedule.reload()
            seen.append(schedule.jobs)
            crews.disable("Daily-Briefing")  # type: ignore[attr-defined]
            schedule.reload()
            seen.append(schedule.jobs)
            return seen
        finally:
            schedule.shutdown()

    with crew_world(settings) as world:
        not_enabled = statuses(catalog_of(world.crews))
        seen = asyncio.run(scenario(world.crews))
        manual = world.run("Daily-Briefing", dry_run=True)  # asked for explicitly: no enabling needed
        runs = world.crews.runs(crew="Daily-Briefing")

    enabled = {"Daily-Briefing": "0 7 * * *"}
    assert seen == [{}, enabled, {}, enabled, {}]
    assert not_enabled == {"Daily-Briefing": "not enabled", "Task-Triage": None}
    assert caplog.text.count("crew Daily-Briefing is not scheduled: its schedule is not enabled") == 2
    assert caplog.text.count("crew Daily-Briefing is not scheduled: its schedule is " + PAUSED) == 1
    assert "scheduled run of crew Daily-Briefing skipped: " + PAUSED in caplog.text
    assert manual["status"] == "ok"
    assert [run.trigger for run in runs] == ["cli"]


def catalog_of(crews: object) -> dict[str, object]:
    from app.http.routes.crews import catalog_json

    return catalog_json(crews.catalog(), crews.schedule_statuses(crews.catalog()))  # type: ignore[attr-defined]


def test_the_api_enables_and_disables_a_schedule_and_lists_its_state(settings: Settings, vault: Path) -> None:
    with crew_world(settings, api_key=SecretStr(KEY)) as world:
        app = create_app(world.settings.model_copy(update={"watch": False}), world.services)
        headers = {"Authorization": f"Bearer {KEY}"}
        with serve_in_thread(app) as url, httpx.Client(base_url=url, headers=headers, timeout=30) as client:
            before = statuses(client.get("/v1/crews").json())
            anonymous = httpx.post(f"{url}/v1/crews/Daily-Briefing/enable", timeout=30)
            enabled = client.post("/v1/crews/Daily-Briefing/enable")
            jobs = dict(app.state.runtime.crew_schedule.jobs)  # the job is there at once, not at the next reload
            listed = statuses(client.get("/v1/crews").json())
            team = vault / "_crews" / "Daily-Briefing.md"
            team.write_text(team.read_text(encoding="utf-8").replace("max_writes: 1", "max_writes: 2"), "utf-8")
            paused = statuses(client.get("/v1/crews").json())
            no_schedule = client.post("/v1/crews/Task-Triage/enable")
            missing = client.post("/v1/crews/No-Such-Crew/enable")
            disabled = client.post("/v1/crews/Daily-Briefing/disable")
            again = client.post("/v1/crews/Daily-Briefing/disable")
            after = statuses(client.get("/v1/crews").json())

    assert before == {"Daily-Briefing": "not enabled", "Task-Triage": None}
    assert anonymous.status_code == 401
    assert enabled.status_code == 200, enabled.text
    body = enabled.json()["enabled"]
    assert (body["schedule"], body["write_scope"], body["max_writes"]) == ("0 7 * * *", ["{daily}"], 1)
    assert body["notes"] == ["_crews/Daily-Briefing.md", "_crews/agents/Briefer.md"]
    assert jobs == {"Daily-Briefing": "0 7 * * *"}
    assert listed["Daily-Briefing"] == "enabled"
    assert paused["Daily-Briefing"] == PAUSED
    assert no_schedule.status_code == 400 and "no schedule" in no_schedule.json()["error"]["message"]
    assert missing.status_code == 404
    assert disabled.status_code == 200 and disabled.json()["disabled"] is True
    assert again.json()["disabled"] is False
    assert after["Daily-Briefing"] == "not enabled"


def test_the_cli_enables_a_schedule_without_a_server_and_shows_what_it_approves(settings: Settings) -> None:
    env = cli_env(settings)
    assert runner.invoke(cli, ["crew", "install-examples"], env=env).exit_code == 0
    enabled = runner.invoke(cli, ["crew", "enable", "Daily-Briefing"], env=env)
    listed = runner.invoke(cli, ["crew", "list", "--json"], env=env)
    disabled = runner.invoke(cli, ["crew", "disable", "Daily-Briefing"], env=env)
    relisted = runner.invoke(cli, ["crew", "list"], env=env)
    refused = runner.invoke(cli, ["crew", "enable", "Task-Triage"], env=env)

    assert enabled.exit_code == 0, enabled.output
    for shown in ("0 7 * * *", "{daily}", "max_writes", "_crews/agents/Briefer.md"):
        assert shown in enabled.stdout
    assert statuses(json.loads(listed.stdout))["Daily-Briefing"] == "enabled"
    assert disabled.exit_code == 0 and "disabled" in disabled.stdout
    assert "not enabled" in relisted.stdout and "librarian crew enable Daily-Briefing" in relisted.stdout
    assert refused.exit_code == 1 and "no schedule" in refused.output
    assert (settings.data_dir / "crews" / "approvals.json").is_file()


def test_the_cli_enables_a_schedule_through_the_running_server(settings: Settings) -> None:
    port = free_port()
    with crew_world(settings, port=port, api_key=SecretStr(KEY)) as world:
        app = create_app(world.settings.model_copy(update={"watch": False}), world.services)
        env = cli_env(world.settings)
        with serve_in_thread(app, port=port):
            enabled = runner.invoke(cli, ["crew", "enable", "Daily-Briefing"], env=env)
            jobs = dict(app.state.runtime.crew_schedule.jobs)
            disabled = runner.invoke(cli, ["crew", "disable", "Daily-Briefing"], env=env)
            after = dict(app.state.runtime.crew_schedule.jobs)

    assert enabled.exit_code == 0, enabled.output
    assert "0 7 * * *" in enabled.stdout
    assert jobs == {"Daily-Briefing": "0 7 * * *"}
    assert disabled.exit_code == 0, disabled.output
    assert after == {}
