"""The crews of a vault: every team and agent note under the crew root, loaded, cross-checked, errors kept apart."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from apscheduler.triggers.cron import CronTrigger
from pydantic import ValidationError

from core.errors import AppError
from core.settings import WriteSettings
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
    unknown_agent_properties,
    unknown_properties,
)
from crews.writes.actions import validate_action_params
from crews.writes.write_scope import LoadTimeDay, definition_problem
from edits.diffs import content_hash
from rag.notes.frontmatter import find_frontmatter_end, read_frontmatter
from rag.notes.obsidian_config import daily_note_path, daily_notes_config
from rag.notes.vault import read_note_text

logger = logging.getLogger(__name__)
RUNS_FOLDER = "runs"  # under the crew root: one folder per run, plus runs.base beside it
MAX_CREW_NOTE_BYTES = 200_000
NOT_CREW_KINDS = ("run",)  # a run log's run.md (crews.logs.runlog) is no definition, wherever a copy of it lies
_KIND_KEY = re.compile(r"""^\s*["']?crew-kind["']?\s*:""", re.MULTILINE)
_NAME_LINE = re.compile(r"""^name:[ \t]*["']?([^"'\[\]{}#\n]+?)["']?[ \t]*$""", re.MULTILINE)


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

    def agent_named(self, name: str) -> CrewAgent | None:
        """Return the agent note of this name (case-insensitive), or None."""
        wanted = name.casefold()
        return next((agent for key, agent in self.agents.items() if key.casefold() == wanted), None)

    def error_named(self, name: str) -> LoadError | None:
        """Return the load error of the crew note called `name` (its `name:`, else its file name), or None."""
        wanted = name.strip().casefold()
        named = (e for e in self.errors if wanted in {(e.name or "").casefold(), Path(e.path).stem.casefold()})
        return next(named, None)


def load_catalog(
    vault_root: Path,
    crew_root: str,
    *,
    collectors: Collection[str],
    writes: WriteSettings | None = None,
    today: date | None = None,
) -> Catalog:
    """Read every note under `vault_root/crew_root` (run logs excluded) into teams, agents and load errors.

    Args:
        vault_root: the vault folder.
        crew_root: the crew root, vault-relative.
        collectors: the collectors a team may name.
        writes: the edit layer's rules. Given, a `write_scope` glob or action note in the fixed denylist, an
            action's note outside the write_scope, or a write_scope entirely outside WRITABLE_FOLDERS is a load
            error (`crews.writes.write_scope.definition_problem`).
        today: the day `{daily}` and `{date}` stand for in those checks (default: today).

    """
    teams: list[Team] = []
    agents: dict[str, CrewAgent] = {}
    errors: list[LoadError] = []
    for path in _crew_notes(vault_root, vault_root / crew_root):
        loaded = _load_note(vault_root, path)
        if isinstance(loaded, Team):
            teams.append(loaded)
        elif isinstance(loaded, LoadError):
            errors.append(loaded)
        elif loaded is None:
            continue
        elif loaded.name.casefold() in (key.casefold() for key in agents):
            errors.append(LoadError(path, f"another agent note is also named {loaded.name!r}", loaded.name))
        else:
            agents[loaded.name] = loaded
    runnable: dict[str, Team] = {}
    day = _load_time_day(vault_root, today or date.today())
    for team in teams:
        problem = _cross_check(team, agents, collectors)
        if not problem and writes is not None:
            problem = definition_problem(team.spec, writes=writes, day=day)
        if problem:
            errors.append(LoadError(team.path, problem, team.name))
        elif team.name.casefold() in (key.casefold() for key in runnable):
            errors.append(LoadError(team.path, f"another team note is also named {team.name!r}", team.name))
        else:
            runnable[team.name] = team
    ordered = tuple(sorted(errors, key=lambda error: error.path))
    catalog = Catalog(root=crew_root, teams=runnable, agents=agents, errors=ordered)
    return replace(catalog, teams={name: _with_agent_warnings(team, catalog) for name, team in runnable.items()})


def _load_time_day(vault_root: Path, today: date) -> LoadTimeDay:
    try:
        daily: str | None = daily_note_path(daily_notes_config(vault_root), today)
    except AppError:  # broken Daily notes settings: a run's `{daily}` fails there, stage 2 says why
        daily = None
    return LoadTimeDay(today=today, daily=daily)


def _load_note(vault_root: Path, path: str) -> Team | CrewAgent | LoadError | None:
    """Return the team or agent a note defines, why it cannot run, or None when it is no crew note (a README)."""
    try:
        _data, text, _ = read_note_text(vault_root, path)
    except OSError as exc:
        return LoadError(path, f"cannot be read: {exc.strerror or exc}")
    lines = text.splitlines()
    front = read_frontmatter(lines)
    if front.error:
        # The YAML does not parse, so `crew-kind` cannot be read: a note that names it was meant to be a crew note.
        raw = "\n".join(lines[1 : (find_frontmatter_end(lines) or 1)])
        return LoadError(path, front.error, _raw_name(raw)) if _KIND_KEY.search(raw) else None
    if "crew-kind" not in front.data or front.data["crew-kind"] in NOT_CREW_KINDS:
        return None
    kind = front.data["crew-kind"]
    if kind == "agent":
        return _agent(path, front.data, "\n".join(lines[front.body_start :]), content_hash(text))
    if kind == "team":
        return _team(path, front.data, text)
    name = front.data.get("name")
    return LoadError(
        path, f"crew-kind: {kind!r} is not a kind of crew note (team or agent)", name if isinstance(name, str) else None
    )


def _raw_name(frontmatter: str) -> str | None:
    """Return the `name:` a frontmatter block that does not parse spells out plainly, if any."""
    found = _NAME_LINE.search(frontmatter)
    return found.group(1).strip() if found else None


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
    warnings: tuple[str, ...] = ()
    ignored = unknown_agent_properties(fields)
    if ignored:  # an agent note holds a prompt: a `model:` or `temperature:` there changes nothing, say so
        warnings = (f"agent note {path}: ignored {', '.join(ignored)}: no agent setting",)
        logger.warning("%s", warnings[0])
    return CrewAgent(name=name.strip(), path=path, system_prompt=prompt, content_hash=text_hash, warnings=warnings)


def _team(path: str, data: object, text: str) -> Team | LoadError:
    fields = dict(data) if isinstance(data, dict) else {}
    fields.setdefault("name", Path(path).stem)
    try:
        spec = TeamSpec.model_validate(fields)
    except ValidationError as exc:
        name = fields["name"]
        return LoadError(path, describe_validation_error(exc), name.strip() if isinstance(name, str) else None)
    if spec.schedule:
        try:
            CronTrigger.from_crontab(spec.schedule)
        except ValueError as exc:
            return LoadError(path, f"schedule: {spec.schedule!r} is not a cron expression ({exc})", spec.name)
    warnings: tuple[str, ...] = ()
    ignored = unknown_properties(fields)
    if ignored:  # not misspelled settings (those are errors): a template's `created`, the user's own notes
        # Kept on the team as well as logged: `crew list` shows it, so a property that does nothing is seen.
        warnings = (f"ignored {', '.join(ignored)}: no team setting",)
        logger.warning("team note %s: %s", path, warnings[0])
    return Team(spec=spec, path=path, content_hash=content_hash(text), warnings=warnings)


def _with_agent_warnings(team: Team, catalog: Catalog) -> Team:
    """Return the team with the warnings of the agent notes its llm tasks name added, each once, in task order."""
    named = (catalog.agent_named(task.agent) for task in team.spec.tasks if isinstance(task, LlmTask))
    warnings = dict.fromkeys(warning for agent in named if agent is not None for warning in agent.warnings)
    return replace(team, warnings=team.warnings + tuple(warnings))


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
