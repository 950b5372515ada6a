"""What a crew run shows as it goes and afterwards: live token counts, a dry run without a model, the runs base."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.console import Console
from typer.testing import CliRunner

from agent.tools import ToolRegistry, VaultReader
from app.cli.crew_console import LiveRun
from app.cli.main import cli
from app.http.main import create_app
from core.domain import SearchHit
from core.settings import Settings
from crews.collectors import COLLECTORS
from crews.install import base_text
from crews.teams.catalog import load_catalog
from tests.conftest import SETTINGS_ENV
from tests.crew_support import crew_world, schema_answer
from tests.integration.tool_calls import call
from tests.live_server import serve_in_thread
from tests.scripted_llm_turns import Turn
from tests.vault_state import vault_hashes

runner = CliRunner()
# The runs.base installed before it was fixed (never edited by its user, so the next run replaces it).
OUTDATED_BASE = """\
filters:
  and:
    - file.name == "run"
    - file.hasProperty("crew")
properties:
  crew:
    displayName: Crew
  status:
    displayName: Status
  started:
    displayName: Started
  writes:
    displayName: Writes
  llm_calls:
    displayName: LLM calls
  tokens:
    displayName: Tokens
views:
  - type: table
    name: All runs
    order:
      - file.name
      - crew
      - status
      - started
      - finished
      - writes
      - llm_calls
      - tokens
      - trigger
    sort:
      - property: started
        direction: DESC
  - type: table
    name: Failed or interrupted
    filters:
      or:
        - status == "failed"
        - status == "aborted"
        - status == "interrupted"
    order:
      - crew
      - status
      - started
      - error
    sort:
      - property: started
        direction: DESC
"""
LONG_BRIEFING = " ".join(f"- task {n} is due soon\n" for n in range(60))


class NoSearch:
    """The bases tool never searches; the reader wants a search all the same."""

    def search(self, query: str, *, k: int | None = None, filters: object = None) -> list[SearchHit]:
        return []


def table_rows(text: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.startswith("| ")][2:]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]


# The runs.base shipped before it had the "undone" column.
WITHOUT_UNDONE = base_text().replace("  undone:\n    displayName: Undone\n", "").replace("      - undone\n", "")


@pytest.mark.parametrize("outdated", [OUTDATED_BASE, WITHOUT_UNDONE], ids=["listing-no-run", "without-undone"])
def test_the_shipped_runs_base_lists_every_run_and_its_failed_view_the_failed_ones(
    settings: Settings, vault: Path, outdated: str
) -> None:
    replies = iter([Turn.text(json.dumps({"markdown": "- fine"})), Turn.text("not json"), Turn.text("still not")])
    with crew_world(settings, script=lambda _body: next(replies)) as world:
        (vault / "_crews" / "runs.base").write_text(outdated, encoding="utf-8")  # as an earlier version installed it
        good = world.run("Daily-Briefing")
        bad = world.run("Daily-Briefing")
    assert (good["status"], bad["status"]) == ("ok", "failed")
    assert outdated != base_text() == (vault / "_crews" / "runs.base").read_text(encoding="utf-8")
    assert "- undone" in base_text()
    # The crew root is no note folder for the chat tools; Obsidian, which the base is for, sees the whole vault.
    reader = VaultReader(settings.model_copy(update={"crews_root": "_none"}).vault, NoSearch())
    tools = ToolRegistry(reader, max_chars=6_000)

    every = call(tools, "bases", command="query", base="_crews/runs.base").text
    failed = call(tools, "bases", command="query", base="_crews/runs.base", view="Failed or interrupted").text

    assert "2 row(s)" in every, every
    assert sorted(row[2] for row in table_rows(every)) == ["failed", "ok"]
    assert {row[1] for row in table_rows(every)} == {"Daily-Briefing"}
    assert "1 row(s)" in failed, failed
    assert table_rows(failed)[0][1:3] == ["Daily-Briefing", "failed"]


def test_a_dry_run_without_a_model_shows_what_the_collector_gathered_writes_nothing_and_is_listed(
    settings: Settings, vault: Path
) -> None:
    env: dict[str, str | None] = dict.fromkeys(SETTINGS_ENV)
    env.update(
        VAULT_PATH=str(vault),
        DATA_DIR=str(settings.data_dir),
        WRITE_BACKEND="files",
        LLM_PROBE_LOCAL_PORTS="false",
        HF_HUB_OFFLINE="1",
        COLUMNS="250",
    )
    runner.invoke(cli, ["crew", "install-examples"], env=env)
    before = vault_hashes(vault)

    result = runner.invoke(cli, ["crew", "run", "Task-Triage", "--dry-run"], env=env)
    as_json = runner.invoke(cli, ["crew", "run", "Task-Triage", "--dry-run", "--json"], env=env)
    listed = runner.invoke(cli, ["crew", "runs"], env=env)  # each command a new service, as a new process
    shown = runner.invoke(cli, ["crew", "show", json.loads(as_json.stdout)["id"]], env=env)

    assert vault_hashes(vault) == before  # no run log, no runs.base, nothing: the logs are under DATA_DIR
    assert listed.stdout.count("Task-Triage  failed dry-run") == 2, listed.output
    assert shown.exit_code == 0 and "gathered TaskNotes/File the tax return.md" in shown.stdout, shown.output
    assert "a language model is needed for the rest" in result.stdout, result.output
    assert "gathered TaskNotes/File the tax return.md" in result.stdout and "4 note(s) in TaskNotes/" in result.stdout
    state = json.loads(as_json.stdout)
    backlog, triage, apply = state["tasks"]
    assert backlog["status"] == "ok" and any("TaskNotes/Book the car service.md" in line for line in backlog["lines"])
    assert (triage["status"], apply["status"]) == ("skipped", "skipped")
    assert state["writes"] == 0 and state["planned"] == []


def test_over_http_a_dry_run_without_a_model_is_readable_and_listed_but_not_in_the_vault(
    settings: Settings, vault: Path
) -> None:
    with crew_world(settings) as world:  # world.settings names no model: the server finds none
        before = vault_hashes(vault)
        with serve_in_thread(create_app(world.settings, world.services)) as url, httpx.Client(base_url=url) as client:
            started = client.post("/v1/crews/Task-Triage/runs", json={"dry_run": True}).json()
            with client.stream("GET", started["events"]) as stream:
                events = [json.loads(line[5:]) for line in stream.iter_lines() if line.startswith("data:")]
            run = client.get(f"/v1/crews/runs/{started['run']['id']}").json()
            listed = client.get("/v1/crews/runs").json()["runs"]

    assert events[-1]["status"] == "failed" and "a language model is needed" in events[-1]["error"]
    assert run["status"] == "failed" and any("gathered TaskNotes/" in line for line in run["tasks"][0]["lines"])
    assert [(r["id"], r["dry_run"]) for r in listed] == [(run["id"], True)] and vault_hashes(vault) == before


def test_token_counts_of_the_running_task_stream_at_a_modest_rate(settings: Settings, vault: Path) -> None:
    events: list[dict[str, Any]] = []
    reply = Turn.text(json.dumps({"markdown": LONG_BRIEFING}), usage=(700, 480))
    with crew_world(settings, script=[reply]) as world:
        state = asyncio.run(world.crews.run("Daily-Briefing", dry_run=True, trigger="cli", on_event=events.append))
    pieces = len(reply.pieces)

    ticks = [event for event in events if event["type"] == "tokens"]
    assert state.status == "ok" and ticks
    assert all(tick["task"] == "briefing" and tick["status"] == "running" for tick in ticks)
    counts = [tick["task_tokens"] for tick in ticks]
    assert counts[0] > 0 and counts[-1] == 480  # live estimates, then what the server reported
    assert len(ticks) < pieces / 4, (len(ticks), pieces)  # not one event per streamed token
    assert ticks[-1]["tokens"] == state.tokens == 1180


def test_the_live_display_shows_the_running_task_and_its_tokens() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=120)
    with LiveRun(console, enabled=True) as live:  # a terminal: one status line, updated in place
        live.on_event({"type": "task", "task": "briefing", "status": "running", "tokens": 0})
        live.on_event({"type": "tokens", "task": "briefing", "status": "running", "task_tokens": 37, "tokens": 737})
        shown = live.line
    piped = io.StringIO()
    plain = Console(file=piped, force_terminal=False, width=120)
    with LiveRun(plain, enabled=True) as live:  # a pipe or a log: a line per step, and every 200 tokens
        live.on_event({"type": "task", "task": "briefing", "status": "running", "tokens": 0})
        for count in (40, 120, 250, 260, 430):
            live.on_event({"type": "tokens", "task": "briefing", "status": "running", "task_tokens": count})

    assert shown == "briefing: running, 37 tokens"
    assert piped.getvalue().splitlines() == [
        "  briefing: running",
        "  briefing: running, 250 tokens",
        "  briefing: running, 430 tokens",
    ]


BRIEF_ACTION = 'section.replace\n    params: {note: "{daily}", heading: Briefing}'
TEAM = """---
crew-kind: team
name: {name}
write_scope: ["TaskNotes/**"]
tasks:
  - id: collect
    collector: tasknotes.query
    params: {{folder: TaskNotes}}
  - id: ask
    {kind}agent: Triage
    {output}
  - id: apply
    actions: {action}
---
"""


def test_the_output_schema_shorthands_of_vault_crews_load(settings: Settings, vault: Path) -> None:
    with crew_world(settings):
        root = vault / "_crews"
        variants = {
            "Triage-Short": ("", "output_schema: triage-v1", "frontmatter.set"),
            "Triage-Kind": ("kind: llm\n    ", "output_schema: triage-v1", "frontmatter.set"),
            "Triage-Keys": ("", "output_schema: triage-v1\n    allowed_keys: [priority]", "frontmatter.set"),
            "Brief-Short": ("kind: llm\n    ", "output_schema: briefing-v1", BRIEF_ACTION),
            "Brief-Output": ("", "output: briefing-v1", BRIEF_ACTION),
        }
        for name, (kind, output, action) in variants.items():
            text = TEAM.format(name=name, kind=kind, output=output, action=action)
            (root / f"{name}.md").write_text(text, encoding="utf-8")
        catalog = load_catalog(vault, "_crews", collectors=tuple(COLLECTORS))

    assert catalog.errors == ()
    outputs = {name: catalog.teams[name].spec.tasks[1].output for name in variants}  # type: ignore[union-attr]
    assert outputs["Triage-Short"].allowed_keys == ("priority", "contexts", "tags")
    assert outputs["Triage-Kind"].family == "frontmatter.set"
    assert outputs["Triage-Keys"].allowed_keys == ("priority",)
    assert outputs["Brief-Short"].family == outputs["Brief-Output"].family == "section.write"


def test_a_triage_v1_crew_runs_like_the_example(settings: Settings, vault: Path) -> None:
    with crew_world(settings, script=schema_answer) as world:
        team = vault / "_crews" / "Task-Triage.md"
        text = team.read_text(encoding="utf-8")
        start = text.index("    output:")
        end = text.index("  - id: apply")
        team.write_text(text[:start] + "    output_schema: triage-v1\n" + text[end:], encoding="utf-8")
        state = world.run("Task-Triage", dry_run=True)

    assert state["status"] == "ok", state
    assert state["planned"] and all(item["action"] == "frontmatter.set" for item in state["planned"])
