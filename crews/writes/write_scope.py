"""A team's `write_scope`: its globs as patterns, and the load-time checks of what stage 2 would refuse every run.

`{daily}` (today's daily note) and `{date}` (today) stand for the run's day. At load time there is no run: they
stand for today, and a check that needs `{daily}` where the Daily notes settings cannot say it is left to stage 2.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import PurePosixPath
from typing import Protocol

from core.errors import AppError, InvalidRequest
from core.settings import WriteSettings
from crews.definitions import ActionsTask, TeamSpec
from crews.writes.action_context import DAILY_PLACEHOLDER, DATE_PLACEHOLDER
from edits.scope import check_not_denied

_GLOB_PARTS = re.compile(r"(\{daily\}|\{date\}|\*\*/|\*\*|\*|\?)")
_PLACEHOLDERS = re.compile(r"\{daily\}|\{date\}|\*+|\?")  # replaced by a name to get a path a pattern matches
_WILDCARD = re.compile(r"[*?]")


class DayExpander(Protocol):
    """What fills in `{daily}` and `{date}`: a run's ActionContext, or LoadTimeDay."""

    def expand(self, text: str) -> str:
        """Return `text` with `{daily}` and `{date}` filled in."""
        ...


@dataclass(frozen=True, slots=True)
class LoadTimeDay:
    """`{daily}` and `{date}` as a run today would fill them in; `daily` None: the Daily notes settings cannot say."""

    today: date
    daily: str | None

    def expand(self, text: str) -> str:
        """Return `text` with `{date}` (and `{daily}`, when known) filled in."""
        if DAILY_PLACEHOLDER in text and self.daily is not None:
            text = text.replace(DAILY_PLACEHOLDER, self.daily)
        return text.replace(DATE_PLACEHOLDER, self.today.isoformat())

    def knows(self, text: str) -> bool:
        """Return False when `text` names `{daily}` and the daily note's path is unknown."""
        return self.daily is not None or DAILY_PLACEHOLDER not in text


def scope_pattern(glob: str, context: DayExpander) -> re.Pattern[str]:
    """Return a write_scope glob as a regex: `*` within a folder, `**` across folders, `{daily}`, `{date}`.

    A pattern naming a folder ("TaskNotes", "TaskNotes/") means every note under it.
    """
    regex = []
    for part in _GLOB_PARTS.split(scope_glob(glob)):
        if part in (DAILY_PLACEHOLDER, DATE_PLACEHOLDER):
            regex.append(re.escape(unicodedata.normalize("NFC", context.expand(part))))
        elif part == "**/":
            regex.append(r"(?:[^/]+/)*")
        elif part in ("**", "*", "?"):
            regex.append({"**": r".*", "*": r"[^/]*", "?": r"[^/]"}[part])
        else:
            regex.append(re.escape(part))
    return re.compile("".join(regex))


def scope_glob(glob: str) -> str:
    """Return a write_scope glob normalised: no leading `./` or `/`, a folder as `folder/**`."""
    pattern = unicodedata.normalize("NFC", glob.strip()).removeprefix("./").lstrip("/")
    if pattern.endswith("/") or not (_GLOB_PARTS.search(pattern) or pattern.lower().endswith(".md")):
        pattern = pattern.rstrip("/") + "/**"
    return pattern


def definition_problem(spec: TeamSpec, *, writes: WriteSettings, day: LoadTimeDay | None = None) -> str:
    """Return why a team could never write as its note says (checked at load time), or "" when it could.

    Stage 2 checks each write again anyway; this refuses up front what it would refuse every time: a `write_scope`
    glob or an action's note in the fixed denylist or outside the vault, and, given the day, an action's note
    outside the team's write_scope or a write_scope entirely outside WRITABLE_FOLDERS. (A `max_writes` above
    CREW_MAX_WRITES is no error: the run is capped at CREW_MAX_WRITES.)
    """
    problems: list[str] = []
    problems.extend(f"write_scope: {problem}" for glob in spec.write_scope if (problem := _denied(glob, writes)))
    for task, target in _fixed_notes(spec):
        if problem := _denied(target, writes):
            problems.append(f"task {task.id!r}: {problem}")
    if not problems and day is not None:
        problems.extend(_scope_problems(spec, writes, day))
    return "; ".join(problems)


def _fixed_notes(spec: TeamSpec) -> Iterator[tuple[ActionsTask, str]]:
    """Yield each actions task with the note its params name (section.replace `note`, note.create `path`)."""
    for task in spec.tasks:
        if isinstance(task, ActionsTask):
            target = task.params.get("path" if task.actions == "note.create" else "note")
            if isinstance(target, str) and target.strip():
                yield task, target.strip()


def _denied(pattern: str, writes: WriteSettings) -> str:
    """Return the denylist's verdict on a path pattern (`*`, `{date}` ...), judged by a path it matches."""
    sample = _PLACEHOLDERS.sub("x", scope_glob(pattern))
    try:
        check_not_denied(sample, settings=writes)
    except InvalidRequest as exc:
        return exc.message.replace(repr(sample), repr(pattern.strip()))  # name what the note says, not the sample
    return ""


def _scope_problems(spec: TeamSpec, writes: WriteSettings, day: LoadTimeDay) -> list[str]:
    globs = ", ".join(spec.write_scope) or "none"
    problems: list[str] = []
    if not all(day.knows(text) for text in spec.write_scope):
        return []  # `{daily}` where the Daily notes settings cannot say: stage 2 judges each write
    try:
        patterns = [scope_pattern(glob, day) for glob in spec.write_scope]
    except AppError:
        return []
    for task, target in _fixed_notes(spec):
        path = day.expand(target)
        path = path if PurePosixPath(path).suffix else f"{path}.md"  # as the actions plan it
        if day.knows(target) and not any(pattern.fullmatch(unicodedata.normalize("NFC", path)) for pattern in patterns):
            problems.append(f"task {task.id!r}: its note {target!r} is outside the team's write_scope ({globs})")
    folders = writes.writable_folders
    if folders and spec.write_scope and not any(_may_overlap(day.expand(g), folders) for g in spec.write_scope):
        allowed = ", ".join(f"{folder}/" for folder in folders)
        problems.append(f"write_scope ({globs}) lies entirely outside the writable folders ({allowed})")
    return problems


def _may_overlap(glob: str, folders: tuple[str, ...]) -> bool:
    """Return True when a note under one of `folders` may match `glob` (judged by the glob's fixed start)."""
    pattern = scope_glob(glob)
    wildcard = _WILDCARD.search(pattern)
    fixed = pattern[: wildcard.start()] if wildcard else pattern
    start = fixed[: fixed.rfind("/") + 1]  # the folder the glob's fixed part ends in ("" for `*.md`)
    for folder in (folder.strip("/") + "/" for folder in folders):
        if folder == "/" or fixed.startswith(folder) or folder.startswith(start):
            return True
    return False
