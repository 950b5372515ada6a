"""Crew notes that cannot run are listed with their error, never dropped: broken YAML, an unknown crew-kind, a
write_scope or action note the denylist refuses; and their names are known."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from core.settings import Settings
from crews.collectors import COLLECTORS
from crews.install import install_examples
from crews.teams.catalog import load_catalog
from tests.conftest import SETTINGS_ENV

runner = CliRunner()

BRIEFING_TEAM = """---
crew-kind: team
name: {name}
write_scope: {scope}
max_writes: {max_writes}
tasks:
  - id: open-tasks
    collector: tasks.open
  - id: briefing
    agent: Briefer
    output: briefing-v1
  - id: write
    actions: note.create
    params: {{path: "{path}"}}
---
"""


def cli_env(settings: Settings, **extra: str) -> dict[str, str | None]:
    env: dict[str, str | None] = dict.fromkeys(SETTINGS_ENV)
    env.update(VAULT_PATH=str(settings.vault_path), DATA_DIR=str(settings.data_dir), WRITE_BACKEND="files")
    return {**env, "LLM_BASE_URL": "http://127.0.0.1:9/v1", "HF_HUB_OFFLINE": "1", "COLUMNS": "250", **extra}


def team(name: str, *, scope: str = '["Briefings/**"]', max_writes: int = 1, path: str = "Briefings/{date}") -> str:
    return BRIEFING_TEAM.format(name=name, scope=scope, max_writes=max_writes, path=path)


def listed_errors(settings: Settings, **extra: str) -> dict[str, str]:
    result = runner.invoke(cli, ["crew", "list", "--json"], env=cli_env(settings, **extra))
    assert result.exit_code == 0, result.output
    return {error["path"]: error["error"] for error in json.loads(result.stdout)["errors"]}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('---\ncrew-kind: team\nname: Bad-Yaml\nwrite_scope: ["Notes/**"\ntasks: []\n---\n', "invalid YAML"),
        ("---\nname: [Broken\ncrew-kind: team\n---\n", "invalid YAML"),
        ("---\ncrew-kind: teem\nname: Bad-Yaml\n---\n", "crew-kind: 'teem' is not a kind of crew note (team or agent)"),
    ],
    ids=["unclosed-list", "broken-name", "misspelled-kind"],
)
def test_a_crew_note_that_does_not_parse_is_listed_and_named_by_crew_run(
    settings: Settings, vault: Path, text: str, expected: str
) -> None:
    install_examples(vault, "_crews")
    (vault / "_crews" / "Bad-Yaml.md").write_text(text, encoding="utf-8")
    (vault / "_crews" / "README.md").write_text("---\ntitle: [about the crews\n---\nNotes.\n", encoding="utf-8")

    errors = listed_errors(settings)
    ran = runner.invoke(cli, ["crew", "run", "Bad-Yaml"], env=cli_env(settings))

    assert list(errors) == ["_crews/Bad-Yaml.md"]  # the README names no crew-kind: still no crew note
    assert expected in errors["_crews/Bad-Yaml.md"]
    assert ran.exit_code == 1
    assert "the crew 'Bad-Yaml' cannot run" in ran.output and expected in ran.output
    assert "there is no crew named" not in ran.output


def test_crew_run_names_the_error_of_a_crew_whose_file_is_named_otherwise(settings: Settings, vault: Path) -> None:
    install_examples(vault, "_crews")
    (vault / "_crews" / "morning.md").write_text(team("Morning", scope='["../outside/**"]'), encoding="utf-8")

    ran = runner.invoke(cli, ["crew", "run", "Morning"], env=cli_env(settings))

    assert ran.exit_code == 1
    assert "the crew 'Morning' cannot run: write_scope: '../outside/**': '..' is refused" in ran.output


@pytest.mark.parametrize(
    ("definition", "expected"),
    [
        (team("Outside", scope='["../outside/**"]'), "write_scope: '../outside/**': '..' is refused"),
        (team("Dot-Scope", scope='[".obsidian/**"]'), "write_scope: '.obsidian/**': dot folders"),
        (team("Crew-Root", scope='["_crews/"]'), "write_scope: '_crews/' is in the crew root _crews/"),
        (team("Dot-Note", scope='["**"]', path=".obsidian/{date}.md"), "task 'write': '.obsidian/{date}.md': dot"),
    ],
    ids=["parent-folder", "obsidian-scope", "crew-root-scope", "obsidian-note"],
)
def test_a_team_that_could_only_be_refused_at_write_time_is_refused_at_load_time(
    settings: Settings, vault: Path, definition: str, expected: str
) -> None:
    install_examples(vault, "_crews")
    (vault / "_crews" / "Team.md").write_text(definition, encoding="utf-8")

    errors = listed_errors(settings)

    assert list(errors) == ["_crews/Team.md"]
    assert errors["_crews/Team.md"].startswith(expected)


def test_a_max_writes_above_crew_max_writes_is_no_load_error_the_run_is_capped(settings: Settings, vault: Path) -> None:
    install_examples(vault, "_crews")  # Task-Triage asks for 20
    (vault / "_crews" / "Team.md").write_text(team("Many", max_writes=60), encoding="utf-8")

    assert listed_errors(settings, CREW_MAX_WRITES="10") == {}


def test_disable_of_a_crew_that_does_not_exist_fails_like_enable(settings: Settings, vault: Path) -> None:
    install_examples(vault, "_crews")
    (vault / "_crews" / "Typo.md").write_text("---\ncrew-kind: teem\n---\n", encoding="utf-8")
    env = cli_env(settings)

    enabled = runner.invoke(cli, ["crew", "enable", "Nope"], env=env)
    disabled = runner.invoke(cli, ["crew", "disable", "Nope"], env=env)
    not_enabled = runner.invoke(cli, ["crew", "disable", "Task-Triage"], env=env)
    broken = runner.invoke(cli, ["crew", "disable", "Typo"], env=env)

    assert enabled.exit_code == 1 and "there is no crew named 'Nope'" in enabled.output
    assert disabled.exit_code == 1 and "there is no crew named 'Nope'" in disabled.output
    assert not_enabled.exit_code == 0 and "was not enabled: nothing changed" in not_enabled.stdout
    assert broken.exit_code == 0 and "was not enabled: nothing changed" in broken.stdout


@pytest.mark.parametrize(
    ("typo", "expected"),
    [
        ('writescope: ["Briefings/**"]', "unknown team property 'writescope' (did you mean 'write_scope'?)"),
        ("max_write: 1", "unknown team property 'max_write' (did you mean 'max_writes'?)"),
        ('shedule: "0 7 * * *"', "unknown team property 'shedule' (did you mean 'schedule'?)"),
        ("Timeout: 5", "unknown team property 'Timeout' (did you mean 'timeout_minutes'?)"),
    ],
    ids=["writescope", "max_write", "shedule", "timeout"],
)
def test_a_misspelled_team_setting_is_a_load_error_with_what_it_means(
    settings: Settings, vault: Path, typo: str, expected: str
) -> None:
    # Ignored, `max_write: 1` left the team at 20 writes and `shedule:` left it unscheduled, listed as fine.
    install_examples(vault, "_crews")
    (vault / "_crews" / "Team.md").write_text(team("Typo").replace("max_writes: 1\n", f"{typo}\n"), "utf-8")

    errors = listed_errors(settings)

    assert errors == {"_crews/Team.md": expected}


def test_obsidian_and_other_unrelated_properties_of_a_team_note_are_no_error(
    settings: Settings, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    install_examples(vault, "_crews")
    extra = "tags: [crew]\naliases: [Briefings]\ncreated: 2026-01-05\n"
    (vault / "_crews" / "Team.md").write_text(team("Fine").replace("max_writes: 1\n", extra), "utf-8")

    assert listed_errors(settings) == {}
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="crews.teams.catalog"):
        catalog = load_catalog(vault, "_crews", collectors=tuple(COLLECTORS))

    assert catalog.team("Fine") is not None
    assert [record.getMessage() for record in caplog.records] == [
        "team note _crews/Team.md: ignored created: no team setting"  # a template's: warned about, not refused
    ]


@pytest.mark.parametrize(
    ("definition", "expected"),
    [
        (
            team("Elsewhere", path="Reports/{date}"),
            "task 'write': its note 'Reports/{date}' is outside the team's write_scope (Briefings/**)",
        ),
        (
            team("Daily-Elsewhere", scope='["Briefings/**"]', path="{daily}"),
            "task 'write': its note '{daily}' is outside the team's write_scope (Briefings/**)",
        ),
    ],
    ids=["fixed-note", "daily-note"],
)
def test_an_actions_note_outside_the_write_scope_is_a_load_error_naming_the_glob(
    settings: Settings, vault: Path, definition: str, expected: str
) -> None:
    install_examples(vault, "_crews")
    (vault / "_crews" / "Team.md").write_text(definition, encoding="utf-8")
    (vault / "_crews" / "Daily.md").write_text(team("Daily", scope='["Daily/**"]', path="{daily}"), "utf-8")

    assert listed_errors(settings) == {"_crews/Team.md": expected}


def test_a_write_scope_entirely_outside_writable_folders_is_a_load_error(settings: Settings, vault: Path) -> None:
    install_examples(vault, "_crews")
    (vault / "_crews" / "Team.md").write_text(team("Briefings", path="Briefings/{date}"), encoding="utf-8")
    (vault / "_crews" / "Wide.md").write_text(team("Wide", scope='["**"]', path="Inbox/{date}"), encoding="utf-8")

    errors = listed_errors(settings, WRITABLE_FOLDERS="Inbox,Daily")

    assert errors["_crews/Team.md"] == (
        "write_scope (Briefings/**) lies entirely outside the writable folders (Inbox/, Daily/)"
    )
    assert "_crews/Wide.md" not in errors and "_crews/Daily-Briefing.md" not in errors
    assert "TaskNotes/**" in errors["_crews/Task-Triage.md"]


def test_crew_list_shows_the_properties_a_crew_note_has_that_are_ignored(settings: Settings, vault: Path) -> None:
    # `cron:` is no setting and too far from `schedule` to read as its typo: ignored, the team runs unscheduled.
    install_examples(vault, "_crews")
    extra = 'tags: [crew]\ncron: "0 7 * * *"\ncreated: 2026-01-05\n'
    (vault / "_crews" / "Team.md").write_text(team("Fine").replace("max_writes: 1\n", extra), "utf-8")
    briefer = vault / "_crews" / "agents" / "Briefer.md"
    briefer.write_text(
        briefer.read_text(encoding="utf-8").replace("name: Briefer\n", "name: Briefer\nmodel: big\n"), "utf-8"
    )
    (vault / "_crews" / "Broken.md").write_text("---\ncrew-kind: team\ntasks: []\n---\n", encoding="utf-8")
    env = cli_env(settings)

    listed = runner.invoke(cli, ["crew", "list", "--json"], env=env)
    shown = runner.invoke(cli, ["crew", "list"], env=env)

    assert listed.exit_code == 0 and shown.exit_code == 0, shown.output
    crews = {crew["name"]: crew for crew in json.loads(listed.stdout)["crews"]}
    agent = "agent note _crews/agents/Briefer.md: ignored model: no agent setting"
    assert crews["Fine"]["warnings"] == ["ignored created, cron: no team setting", agent]
    assert crews["Daily-Briefing"]["warnings"] == [agent] and crews["Task-Triage"]["warnings"] == []
    assert "⚠ ignored created, cron: no team setting" in shown.stdout
    assert "1 crew note(s) cannot run:" in shown.stdout and "_crews/Broken.md: tasks:" in shown.stdout
