"""`librarian crew undo` says what came of it: a summary, exit 1 when nothing was undone, and the run records it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli
from core.settings import Settings
from tests.crew_support import daily_note_of, schema_answer
from tests.integration.test_crew_fronts import briefing_by_cli, cli_env
from tests.scripted_llm import ScriptedLLMServer

runner = CliRunner()


def test_undo_of_a_run_whose_only_note_was_edited_since_undoes_nothing_and_says_so(
    settings: Settings, vault: Path
) -> None:
    with ScriptedLLMServer(schema_answer) as llm:
        env = cli_env(settings, llm.base_url)
        state = briefing_by_cli(env)
        note = daily_note_of(vault)
        edited = note.read_text(encoding="utf-8") + "\nMy own line.\n"
        note.write_text(edited, encoding="utf-8")
        first = runner.invoke(cli, ["crew", "undo", state["id"], "-y"], env=env)
        second = runner.invoke(cli, ["crew", "undo", state["id"], "-y"], env=env)
        runs = runner.invoke(cli, ["crew", "runs"], env=env)

    assert state["status"] == "ok" and state["writes"] == 1
    for result in (first, second):
        assert result.exit_code == 1, result.output
        assert "was edited since the change; it is left as is" in result.stdout
        assert "nothing was undone: 1 file(s) it wrote were edited since the run" in result.stdout
    assert note.read_text(encoding="utf-8") == edited
    assert "undone" not in runs.stdout


def test_an_undone_run_shows_as_undone_and_a_second_undo_says_it_was_already_undone(
    settings: Settings, vault: Path
) -> None:
    with ScriptedLLMServer(schema_answer) as llm:
        env = cli_env(settings, llm.base_url)
        state = briefing_by_cli(env)
        undone = runner.invoke(cli, ["crew", "undo", state["id"], "-y"], env=env)
        again = runner.invoke(cli, ["crew", "undo", state["id"], "-y"], env=env)
        runs = runner.invoke(cli, ["crew", "runs"], env=env)
        shown = runner.invoke(cli, ["crew", "show", state["id"], "--json"], env=env)
    run_note = (vault / "_crews" / "runs" / state["id"] / "run.md").read_text(encoding="utf-8")

    assert undone.exit_code == 0, undone.output
    assert "undone: 1 file(s) reverted" in undone.stdout
    assert not daily_note_of(vault).exists()
    assert again.exit_code == 1
    assert f"run {state['id']} was already undone at " in again.output
    (line,) = [line for line in runs.stdout.splitlines() if state["id"] in line]
    assert "ok, undone" in line
    assert json.loads(shown.stdout)["undone"]
    assert f'undone: "{json.loads(shown.stdout)["undone"]}"' in run_note
    assert "Undone at " in run_note and "Undo this run" not in run_note


def test_a_run_undone_by_librarian_undo_is_recorded_undone_at_its_next_crew_undo(
    settings: Settings, vault: Path
) -> None:
    with ScriptedLLMServer(schema_answer) as llm:
        env = cli_env(settings, llm.base_url)
        state = briefing_by_cli(env)
        assert runner.invoke(cli, ["undo", "--yes"], env=env).exit_code == 0  # the last change set: the run's
        again = runner.invoke(cli, ["crew", "undo", state["id"], "-y"], env=env)
        runs = runner.invoke(cli, ["crew", "runs", "--json"], env=env)

    assert again.exit_code == 1
    assert f"run {state['id']} was already undone (its change set {state['change_set_id']})" in again.output
    assert json.loads(runs.stdout)[0]["undone"]
