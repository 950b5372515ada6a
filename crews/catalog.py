"""The crews of a vault: every team and agent note under the crew root, loaded, cross-checked, errors kept apart."""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from apscheduler.triggers.cron import CronTrigger
from pydantic import ValidationError

from crews.actions import validate_action_params
from crews.collectors import validate_params
from crews.definitions import (
    ActionsTask,
    CollectorTask,
    CrewAgent,
    LlmTask,
    LoadError,
    Team,
    TeamSpec,
    describe_validation_error,
)
from edits.diffs import content_hash
from rag.notes.frontmatter import read_frontmatter
from rag.notes.vault import read_note_text

RUNS_FOLDER = "runs"  # under the crew root: one folder per run, plus runs.base beside it
MAX_CREW_NOTE_BYTES = 200_000


@dataclass(frozen=True, slots=True)
class Catalog:
    """What the crew root holds: runnable teams, agents, and the notes that cannot run (with why)."""

    root: str  # the crew root, vault-relative
    teams: dict[str, Team]
    agents: dict[str, CrewAgent]
    errors: tuple[LoadError, ...]

    def team(self, name: str) -> Team | None:
        """Return the team of this name (case-insensitive), or None."""
        wanted = name.strip().casefold()
        return next((team for key, team in self.teams.items() if key.casefold() == wanted), None)


def load_catalog(vault_root: Path, crew_root: str, *, collectors: Collection[str]) -> Catalog:
    """Read every note under `vault_root/crew_root` (run logs excluded) into teams, agents and load errors."""
    folder = vault_root / crew_root
    teams: list[Team] = []
    agents: dict[str, CrewAgent] = {}
    errors: list[LoadError] = []
    for path in _crew_notes(vault_root, folder):
        try:
            _data, text, _ = read_note_text(vault_root, path)
        except OSError as exc:
            errors.append(LoadError(path, f"cannot be read: {exc.strerror or exc}"))
            continue
        lines = text.splitlines()
        front = read_frontmatter(lines)
        kind = front.data.get("crew-kind")
        if kind not in ("team", "agent"):
            continue  # a note beside the crews (a README): not a crew note
        if front.error:
            errors.append(LoadError(path, front.error))
        elif kind == "agent":
            agent = _agent(path, front.data, "\n".join(lines[front.body_start :]), content_hash(text))
            if isinstance(agent, LoadError):
                errors.append(agent)
            elif agent.name.casefold() in (key.casefold() for key in agents):
                errors.append(LoadError(path, f"another agent note is also named {agent.name!r}"))
            else:
                agents[agent.name] = agent
        else:
            team = _team(path, front.data, text)
            (errors if isinstance(team, LoadError) else teams).append(team)  # type: ignore[arg-type]
    runnable: dict[str, Team] = {}
    for team in teams:
        problem = _cross_check(team, agents, collectors)
        if problem:
            errors.append(LoadError(team.path, problem))
        elif team.name.casefold() in (key.casefold() for key in runnable):
            errors.append(LoadError(team.path, f"another team note is also named {team.name!r}"))
        else:
            runnable[team.name] = team
    ordered = tuple(sorted(errors, key=lambda error: error.path))
    return Catalog(root=crew_root, teams=runnable, agents=agents, errors=ordered)


def _crew_notes(vault_root: Path, folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    found = []
    for current, dirs, files in os.walk(folder):
        here = Path(current)
        # Run logs are written by runs, not crew definitions; dot-folders are Obsidian's or git's.
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (here == folder and d == RUNS_FOLDER))
        for name in sorted(files):
            full = here / name
            if name.endswith(".md") and not full.is_symlink() and full.stat().st_size <= MAX_CREW_NOTE_BYTES:
                found.append(full.relative_to(vault_root).as_posix())
    return found


def _agent(path: str, data: dict[str, object] | object, body: str, text_hash: str) -> CrewAgent | LoadError:
    fields = data if isinstance(data, dict) else {}
    name = fields.get("name") or Path(path).stem
    if not isinstance(name, str) or not name.strip():
        return LoadError(path, "name: must be text")
    prompt = body.strip()
    if not prompt:
        return LoadError(path, "the agent's system prompt (the note's body) is empty")
    return CrewAgent(name=name.strip(), path=path, system_prompt=prompt, content_hash=text_hash)


def _team(path: str, data: object, text: str) -> Team | LoadError:
    fields = dict(data) if isinstance(data, dict) else {}
    fields.setdefault("name", Path(path).stem)
    try:
        spec = TeamSpec.model_validate(fields)
    except ValidationError as exc:
        return LoadError(path, describe_validation_error(exc))
    if spec.schedule:
        try:
            CronTrigger.from_crontab(spec.schedule)
        except ValueError as exc:
            return LoadError(path, f"schedule: {spec.schedule!r} is not a cron expression ({exc})")
    return Team(spec=spec, path=path, content_hash=content_hash(text))


def _cross_check(team: Team, agents: dict[str, CrewAgent], collectors: Collection[str]) -> str:
    names = {key.casefold() for key in agents}
    for task in team.spec.tasks:
        if isinstance(task, ActionsTask):
            problem = validate_action_params(task)
            if problem:
                return f"task {task.id!r}: {problem}"
        if isinstance(task, CollectorTask) and task.collector not in collectors:
            known = ", ".join(sorted(collectors))
            return f"task {task.id!r}: unknown collector {task.collector!r} (known: {known})"
        if isinstance(task, CollectorTask):
            problem = validate_params(task.collector, task.params)
            if problem:
                return f"task {task.id!r}: {problem}"
        if isinstance(task, LlmTask) and task.agent.casefold() not in names:
            return f"task {task.id!r}: no agent note is named {task.agent!r}"
    return ""
