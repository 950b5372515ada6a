"""Schedules the user enabled: a team's `schedule` runs only while its notes read as when the user approved them.

`librarian crew enable NAME` (or `POST /v1/crews/{name}/enable`) records the sha256 of the team note and of the
agent notes it names. A later edit of any of them, from anywhere (Obsidian, sync, a script), pauses the schedule
until the user enables it again, so a scheduled run never writes with a definition nobody looked at. Manual runs
need no approval: the user asks for each. No model-facing tool (chat, MCP) enables, and the edit layer refuses
every edit of the crew root.

The approvals live in DATA_DIR, outside the vault, in one JSON file written atomically by the process that holds
DATA_DIR (`librarian serve`, or a `librarian crew` command when no server runs: `app.services.crew_access`).
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from core.errors import AppError, InvalidRequest
from crews.definitions import LlmTask, Team
from crews.teams.catalog import Catalog
from edits.writers.files import write_atomically

logger = logging.getLogger(__name__)
APPROVALS_FILE = "approvals.json"  # under DATA_DIR/crews/
ENABLED = "enabled"
NOT_ENABLED = "not enabled"
_FORMAT = 1


class ScheduleNotEnabled(AppError):
    """A scheduled run of a team whose schedule is not enabled, or paused since its notes changed."""


@dataclass(frozen=True, slots=True)
class Approval:
    """What the user approved: the definition's digest, and what it lets the schedule do (shown when enabling)."""

    team: str
    digest: str  # sha256 over the team note's and its agent notes' paths and content hashes
    enabled_at: str
    schedule: str
    write_scope: tuple[str, ...]
    max_writes: int
    notes: tuple[str, ...]  # the team note, then the agent notes it names

    def to_json(self) -> dict[str, object]:
        """Return the approval as stored and as the API shows it."""
        return {
            "team": self.team,
            "digest": self.digest,
            "enabled_at": self.enabled_at,
            "schedule": self.schedule,
            "write_scope": list(self.write_scope),
            "max_writes": self.max_writes,
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Approval:
        """Return an approval read back from the file (KeyError, TypeError or ValueError when malformed)."""
        scope, notes = data["write_scope"], data["notes"]
        if not isinstance(scope, list) or not isinstance(notes, list):
            raise TypeError("write_scope and notes must be lists")
        return cls(
            team=str(data["team"]),
            digest=str(data["digest"]),
            enabled_at=str(data["enabled_at"]),
            schedule=str(data["schedule"]),
            write_scope=tuple(str(glob) for glob in scope),
            max_writes=int(str(data["max_writes"])),
            notes=tuple(str(path) for path in notes),
        )


def definition_digest(team: Team, catalog: Catalog) -> tuple[str, tuple[str, ...]]:
    """Return the digest of the team's definition (its note and its agent notes, as loaded) and those notes' paths.

    The content hashes are those of the very text the catalog parsed, so what is approved is what runs.
    """
    wanted = {task.agent.casefold() for task in team.spec.tasks if isinstance(task, LlmTask)}
    agents = sorted((a for key, a in catalog.agents.items() if key.casefold() in wanted), key=lambda a: a.path)
    parts = [(team.path, team.content_hash), *((agent.path, agent.content_hash) for agent in agents)]
    text = "\n".join(f"{path}\0{digest}" for path, digest in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest(), tuple(path for path, _ in parts)


def paused(team: str) -> str:
    """Return the status of a schedule whose notes changed since it was enabled."""
    return f"paused: changed since enabled (run `librarian crew enable {team}`)"


class ApprovalStore:
    """The enabled schedules, one JSON file under DATA_DIR; a missing or unreadable file enables nothing."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def enable(self, team: Team, catalog: Catalog, *, now: datetime) -> Approval:
        """Approve the team's definition as loaded in `catalog`, replacing an earlier approval of it.

        Raises:
            InvalidRequest: the team has no `schedule` (manual runs need no enabling).

        """
        if not team.spec.schedule:
            raise InvalidRequest(
                f"crew {team.name} has no schedule, so there is nothing to enable: add `schedule:` (cron) to "
                f"{team.path} first; `librarian crew run {team.name}` runs it without enabling"
            )
        digest, notes = definition_digest(team, catalog)
        approval = Approval(
            team=team.name,
            digest=digest,
            enabled_at=now.isoformat(timespec="seconds"),
            schedule=team.spec.schedule,
            write_scope=team.spec.write_scope,
            max_writes=team.spec.max_writes,
            notes=notes,
        )
        approvals = self._load()
        approvals[team.name.casefold()] = approval
        self._save(approvals)
        logger.info("crew %s: schedule %s enabled (%s)", team.name, approval.schedule, ", ".join(notes))
        return approval

    def disable(self, name: str) -> bool:
        """Withdraw the approval of team `name`; return False when it had none."""
        approvals = self._load()
        if approvals.pop(name.strip().casefold(), None) is None:
            return False
        self._save(approvals)
        logger.info("crew %s: schedule disabled", name)
        return True

    def status(self, team: Team, catalog: Catalog) -> str | None:
        """Return ENABLED, NOT_ENABLED or `paused(...)` for the team's schedule; None when it has none."""
        if not team.spec.schedule:
            return None
        approval = self._load().get(team.name.casefold())
        if approval is None:
            return NOT_ENABLED
        return ENABLED if approval.digest == definition_digest(team, catalog)[0] else paused(team.name)

    def check(self, team: Team, catalog: Catalog) -> None:
        """Raise ScheduleNotEnabled unless the team's schedule is enabled and its notes are unchanged since."""
        status = self.status(team, catalog)
        if status != ENABLED:
            raise ScheduleNotEnabled(status or "it has no schedule")

    def _load(self) -> dict[str, Approval]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return {key: Approval.from_json(value) for key, value in data["teams"].items()}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
            # Nothing runs on a schedule rather than on a guess; enabling again rewrites the file.
            logger.warning("the enabled crew schedules in %s cannot be read (%s); none is enabled", self.path, exc)
            return {}

    def _save(self, approvals: dict[str, Approval]) -> None:
        teams = {key: approval.to_json() for key, approval in sorted(approvals.items())}
        text = json.dumps({"format": _FORMAT, "teams": teams}, ensure_ascii=False, indent=2) + "\n"
        write_atomically(self.path, text)
