"""The state of one crew run, as `state.json` keeps it: the run, each task, and what they did."""

from __future__ import annotations

import re
import secrets
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from crews.definitions import ActionsTask, CollectorTask, LlmTask, Team
from crews.model import PlannedWrite, RunStatus, TaskStatus

STATE_VERSION = 1
FINISHED: frozenset[RunStatus] = frozenset({"ok", "failed", "aborted", "interrupted"})
INTERRUPTED = "the process running it ended before it finished (a crash, a kill or a power loss)"


@dataclass(slots=True)
class TaskState:
    """One task of a run: its status and the lines the run log shows for it."""

    id: str
    kind: str  # "collector", "llm" or "actions"
    what: str  # "tasks.open", "Briefer -> section.write", "section.replace"
    status: TaskStatus = "waiting"
    lines: list[str] = field(default_factory=list)
    started: str | None = None
    finished: str | None = None

    def note(self, line: str) -> None:
        """Add a line to what the run log says about this task."""
        self.lines.append(line)


@dataclass(slots=True)
class RunState:
    """A run of a team, saved at every change so a crash leaves an honest `running` behind for recovery."""

    id: str
    crew: str
    team_path: str
    trigger: str  # "cli", "api", "schedule", "chat"
    dry_run: bool
    started: str
    status: RunStatus = "running"
    finished: str | None = None
    tasks: list[TaskState] = field(default_factory=list)
    writes: int = 0
    llm_calls: int = 0
    tokens: int = 0
    change_set_id: str | None = None
    files: list[str] = field(default_factory=list)  # vault paths the run wrote
    planned: list[dict[str, str]] = field(default_factory=list)  # a dry run's diffs: action, path, summary, diff
    error: str | None = None
    abort_requested: bool = False  # set when asked (here, over HTTP or by `crew abort`), whether or not it bit
    notice: str | None = None  # a word on an outcome that is no error ("the run finished before the abort ...")
    undone: str | None = None  # when its writes were undone (or when a crew command found them undone elsewhere)
    version: int = STATE_VERSION

    @property
    def is_finished(self) -> bool:
        """Return True once the run has ended, however it ended."""
        return self.status in FINISHED

    def task(self, task_id: str) -> TaskState:
        """Return the state of the task with this id."""
        return next(task for task in self.tasks if task.id == task_id)

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict (what state.json holds)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunState:
        """Read a state saved by `to_json`."""
        tasks = [TaskState(**task) for task in data.get("tasks", [])]
        fields = {key: value for key, value in data.items() if key in cls.__dataclass_fields__ and key != "tasks"}
        return cls(**fields, tasks=tasks)


def interrupted_error(writes: int) -> str:
    """Return why a run is `interrupted`, saying what became of its writes (none, or undoable)."""
    if not writes:
        return f"{INTERRUPTED}; it had written nothing, so there is nothing to undo"
    return f"{INTERRUPTED}; the {writes} write(s) it made are in its change set and undoable"


def new_run(team: Team, *, trigger: str, dry_run: bool, now: datetime) -> RunState:
    """Return the state of a run of `team` that starts now, every task waiting."""
    return RunState(
        id=new_run_id(team.name, now),
        crew=team.name,
        team_path=team.path,
        trigger=trigger,
        dry_run=dry_run,
        started=now.isoformat(timespec="seconds"),
        tasks=[TaskState(task.id, task.kind, describe_task(task)) for task in team.spec.tasks],
    )


def new_run_id(crew: str, now: datetime) -> str:
    """Return a run id that sorts by time and reads well in a file name: 20261201-070000-daily-briefing-3f2a."""
    slug = re.sub(r"[^a-z0-9]+", "-", crew.casefold()).strip("-")[:40] or "crew"
    return f"{now:%Y%m%d-%H%M%S}-{slug}-{secrets.token_hex(2)}"


def describe_task(task: CollectorTask | LlmTask | ActionsTask) -> str:
    """Return what a task does in a few words, for the run log and the progress display."""
    if isinstance(task, CollectorTask):
        return task.collector
    if isinstance(task, LlmTask):
        return f"{task.agent} -> {task.output.family}"
    return task.actions


def planned_json(write: PlannedWrite) -> dict[str, str]:
    """Return a dry run's planned write as the run's state keeps it (the chat front turns it into a proposal)."""
    return {
        "action": write.action,
        "path": write.path,
        "summary": write.summary,
        "diff": write.diff,
        "base_hash": write.base_hash or "",
        "new_text": write.new_text,
    }


def planned_write(item: dict[str, str]) -> PlannedWrite:
    """Return the planned write a dry run's state keeps (see `planned_json`)."""
    return PlannedWrite(
        action=item["action"],  # type: ignore[arg-type]
        path=item["path"],
        base_hash=item["base_hash"] or None,
        new_text=item["new_text"],
        diff=item["diff"],
        summary=item["summary"],
    )
