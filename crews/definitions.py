"""Team and agent notes: what a crew is, read from its Markdown in the vault and checked before it can ever run.

A team note (`crew-kind: team`) declares its pipeline in frontmatter; an agent note (`crew-kind: agent`) holds a
system prompt in its body. Everything a run relies on is checked here, so a note that does not parse, names an
unknown collector, agent, output family or action, or has a bad cron expression is listed with its error and
never run, while the other crews still load.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from crews.model import ActionName, OutputFamilyName

DEFAULT_MAX_WRITES = 20
DEFAULT_LLM_CALLS = 4  # one call per llm task and its one repair, for two llm tasks
DEFAULT_TIMEOUT_MINUTES = 10.0
# Vault Crews' shorthands for an output block (`output_schema: triage-v1`, or `output: triage-v1`). triage-v1 may
# set the soft fields its Task-Triage example triages (priority, contexts, tags) unless the task lists
# `allowed_keys` itself; briefing-v1 is section.write (the task may add `max_chars`).
OUTPUT_SHORTHANDS: dict[str, dict[str, Any]] = {
    "triage-v1": {"family": "frontmatter.set", "allowed_keys": ["priority", "contexts", "tags"]},
    "briefing-v1": {"family": "section.write"},
}
_SHORTHAND_OPTIONS = ("allowed_keys", "max_chars")  # beside `output_schema:` on the task, as Vault Crews writes them
# Which actions can carry out which output family.
ACTIONS_FOR: dict[OutputFamilyName, frozenset[ActionName]] = {
    "frontmatter.set": frozenset({"frontmatter.set"}),
    "section.write": frozenset({"section.replace", "note.create"}),
}
DEFAULT_SECTION_CHARS = 16_000
# A team note is a note: Obsidian's own properties (and their old singular names) may stand beside the settings.
OBSIDIAN_PROPERTIES = frozenset({"tags", "tag", "aliases", "alias", "cssclasses", "cssclass", "publish", "permalink"})
AGENT_SETTINGS = frozenset({"crew-kind", "name"})  # an agent note's prompt is its body
CLOSE_MATCH = 0.75  # difflib ratio from which an unknown property reads as a misspelled setting
MIN_PREFIX = 5  # `timeout` for `timeout_minutes`: a property this long that starts a setting's name is meant as it


class OutputSpec(BaseModel):
    """An llm task's `output:` block: the family its reply must answer, and that family's limits."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: OutputFamilyName
    allowed_keys: tuple[str, ...] = ()  # frontmatter.set: the only properties it may set
    max_chars: int = Field(DEFAULT_SECTION_CHARS, gt=0, le=200_000)  # section.write

    @model_validator(mode="after")
    def _keys_for_frontmatter(self) -> OutputSpec:
        if self.family == "frontmatter.set" and not self.allowed_keys:
            raise ValueError("a frontmatter.set output must list allowed_keys (the properties it may set)")
        return self


class CollectorTask(BaseModel):
    """Code gathers material: `collector: tasknotes.query` with its `params`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["collector"] = "collector"
    id: str = Field(min_length=1, max_length=64)
    collector: str
    params: dict[str, Any] = Field(default_factory=dict)


class LlmTask(BaseModel):
    """Exactly one chat completion (plus one repair) answering the declared output, written by the named agent."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["llm"] = "llm"
    id: str = Field(min_length=1, max_length=64)
    agent: str
    instruction: str = ""
    output: OutputSpec


class ActionsTask(BaseModel):
    """Code applies the validated output: `actions: section.replace` with its `params`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["actions"] = "actions"
    id: str = Field(min_length=1, max_length=64)
    actions: ActionName
    params: dict[str, Any] = Field(default_factory=dict)


TaskSpec = Annotated[CollectorTask | LlmTask | ActionsTask, Field(discriminator="kind")]


class TeamSpec(BaseModel):
    """A team note's frontmatter, validated.

    A property that reads as a misspelled setting (`writescope`, `max_write`, `shedule`) is an error: ignored, it
    would leave the setting at its default (20 writes, no schedule). Obsidian's own properties (tags, aliases ...)
    are ignored; any other is ignored too (a template or a plugin may add `created`), and `unknown_properties`
    names it so the loader can warn.
    """

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    name: str = Field(min_length=1, max_length=80)
    description: str = ""
    write_scope: tuple[str, ...] = ()
    max_writes: int = Field(DEFAULT_MAX_WRITES, ge=0)
    llm_calls: int = Field(DEFAULT_LLM_CALLS, ge=1, alias="max_llm_calls")
    timeout_minutes: float = Field(DEFAULT_TIMEOUT_MINUTES, gt=0, le=24 * 60)
    schedule: str | None = None
    tasks: tuple[TaskSpec, ...] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _no_misspelled_settings(cls, value: object) -> object:
        if isinstance(value, dict):
            hints = [f"{key!r} (did you mean {meant!r}?)" for key, meant in _misspelled(value)]
            if hints:
                raise ValueError(f"unknown team propert{'ies' if len(hints) > 1 else 'y'} {', '.join(hints)}")
        return value

    @field_validator("write_scope", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return (value,) if isinstance(value, str) else value

    @field_validator("tasks", mode="before")
    @classmethod
    def _infer_kinds(cls, value: object) -> object:
        # `collector: X`, `agent: X` (llm) or `actions: X` say what a task is; `kind:` may say it too.
        if not isinstance(value, list):
            return value
        return [_with_kind(task) for task in value]

    @model_validator(mode="after")
    def _pipeline_fits(self) -> TeamSpec:
        check_pipeline(self.tasks)
        return self


def team_settings() -> frozenset[str]:
    """Return the properties a team note's settings are read from (with `crew-kind`)."""
    names = {name for name in TeamSpec.model_fields}
    aliases = {field.alias for field in TeamSpec.model_fields.values() if field.alias}
    return frozenset({*names, *aliases, "crew-kind"})


def unknown_properties(fields: dict[str, object]) -> list[str]:
    """Return a team note's properties that are no setting and not Obsidian's own: ignored, worth a warning."""
    return _not_in(fields, team_settings() | OBSIDIAN_PROPERTIES)


def unknown_agent_properties(fields: dict[str, object]) -> list[str]:
    """Return an agent note's properties other than its name and Obsidian's own (a `model:` is ignored, say so)."""
    return _not_in(fields, AGENT_SETTINGS | OBSIDIAN_PROPERTIES)


def _not_in(fields: dict[str, object], known: frozenset[str]) -> list[str]:
    return sorted(str(key) for key in fields if str(key) not in known and str(key).casefold() not in known)


def _misspelled(fields: dict[str, object]) -> list[tuple[str, str]]:
    """Return each unknown property that reads as a setting's name, with that name."""
    found = []
    for key in unknown_properties(fields):
        meant = _meant_setting(key)
        if meant is not None:
            found.append((key, meant))
    return found


def _meant_setting(key: str) -> str | None:
    settings = {_squashed(name): name for name in team_settings()}
    squashed = _squashed(key)
    if squashed in settings:
        return settings[squashed]
    close = get_close_matches(squashed, list(settings), n=1, cutoff=CLOSE_MATCH)
    if close:
        return settings[close[0]]
    prefixed = sorted(name for name in settings if len(squashed) >= MIN_PREFIX and name.startswith(squashed))
    return settings[prefixed[0]] if prefixed else None


def _squashed(name: str) -> str:
    # `Write-Scope`, `write scope` and `writeScope` all spell write_scope.
    return re.sub(r"[\s_-]", "", name.casefold())


def _with_kind(task: object) -> object:
    if not isinstance(task, dict):
        return task
    if "kind" not in task:
        for key, kind in (("collector", "collector"), ("agent", "llm"), ("llm", "llm"), ("actions", "actions")):
            if key in task:
                task = {**task, "kind": kind}
                if key == "llm":  # `llm: Briefer` names the agent, as `agent: Briefer` does
                    task["agent"] = task.pop("llm")
                break
    return _expand_output(task) if task.get("kind") == "llm" else task


def _expand_output(task: dict[str, Any]) -> dict[str, Any]:
    """Return an llm task with a shorthand (`output_schema: triage-v1`, `output: briefing-v1`) as its output block."""
    task = dict(task)
    name = task.pop("output_schema", None)
    output = task.get("output")
    family = output.get("family") if isinstance(output, dict) else None
    if isinstance(output, dict) and isinstance(family, str) and family in OUTPUT_SHORTHANDS:
        shorthand = OUTPUT_SHORTHANDS[family]  # `output: {family: triage-v1, allowed_keys: [...]}`
        task["output"] = {**shorthand, **output, "family": shorthand["family"]}
    if name is None and isinstance(output, str):
        name, output = output, None
    if name is None:
        return task
    if output is not None:
        raise ValueError("give either output or output_schema, not both")
    if not isinstance(name, str) or name not in OUTPUT_SHORTHANDS:
        raise ValueError(f"output_schema {name!r} is not one of {', '.join(sorted(OUTPUT_SHORTHANDS))}")
    block = dict(OUTPUT_SHORTHANDS[name])
    for option in _SHORTHAND_OPTIONS:
        if option in task:
            block[option] = task.pop(option)
    task["output"] = block
    return task


def check_pipeline(tasks: tuple[CollectorTask | LlmTask | ActionsTask, ...]) -> None:
    """Refuse a pipeline whose tasks cannot feed each other: llm after a collector, actions after a fitting llm."""
    ids = [task.id for task in tasks]
    if len(set(ids)) != len(ids):
        raise ValueError(f"task ids must be unique, got {ids}")
    collected = False
    family: OutputFamilyName | None = None
    for task in tasks:
        if isinstance(task, CollectorTask):
            collected = True
        elif isinstance(task, LlmTask):
            if not collected:
                raise ValueError(f"llm task {task.id!r} has no collector before it to read material from")
            family = task.output.family
        elif family is None:
            raise ValueError(f"actions task {task.id!r} has no llm task before it whose output it could apply")
        elif task.actions not in ACTIONS_FOR[family]:
            allowed = ", ".join(sorted(ACTIONS_FOR[family]))
            raise ValueError(f"actions task {task.id!r}: {task.actions} cannot apply a {family} output ({allowed} can)")


@dataclass(frozen=True, slots=True)
class Team:
    """A loaded team: its validated spec and the note it came from."""

    spec: TeamSpec
    path: str  # vault-relative path of the team note
    content_hash: str
    # What loading ignored, so `crew list` shows it: the team note's unknown properties, then its agent notes'.
    warnings: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """Return the team's name (as `crew run NAME` takes it)."""
        return self.spec.name


@dataclass(frozen=True, slots=True)
class CrewAgent:
    """An agent note: its name, the system prompt its body holds, and the hash of its text (what enabling approves)."""

    name: str
    path: str
    system_prompt: str
    content_hash: str
    warnings: tuple[str, ...] = ()  # the note's ignored properties ("agent note PATH: ignored model: ...")


@dataclass(frozen=True, slots=True)
class LoadError:
    """A crew note that cannot run, and why."""

    path: str
    message: str
    name: str | None = None  # the crew's name when the note says it (`crew run NAME` names the error)


def describe_validation_error(exc: ValidationError) -> str:
    """Return a pydantic error as one readable sentence per problem, naming the field."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"] if not str(part).startswith(("function-", "tagged-")))
        cause = (error.get("ctx") or {}).get("error")
        message = str(cause) if error["type"] == "value_error" and cause else error["msg"]
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)
