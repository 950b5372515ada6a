"""Stage 2: every planned write checked again right before it is written, independently of the model's output.

Whatever stage 1 let through, a write is only accepted when its path is in the team's `write_scope` and clear of
the edit layer's fixed denylist that always wins (`edits.scope`: dot folders and dotfiles such as `.obsidian/`,
`.git/`, `.trash/`; the crew root; PRIVATE_FOLDERS; WRITABLE_FOLDERS when set; anything reaching outside the vault,
symlinks included; DATA_DIR is outside the vault by validation), its action is the task's, only the allowed
frontmatter keys differ, the note stays under the size limit, and the note still reads as it did when it was
collected (else it is stale: skipped, never overwritten).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from core.errors import AppError, InvalidRequest
from core.ports import NoteWriter
from crews.definitions import ACTIONS_FOR, ActionsTask, LlmTask, Team, TeamSpec
from crews.model import PlannedWrite, Rejection
from crews.writes.action_context import ActionContext
from crews.writes.write_scope import scope_pattern as scope_pattern  # re-exported: stage 2 matches paths with it
from edits.diffs import content_hash
from edits.scope import check_size, check_writable
from edits.writers.paths import resolve_in_vault
from rag.notes.frontmatter import read_frontmatter


@dataclass(frozen=True, slots=True)
class GuardResult:
    """Stage 2's verdict on a task's planned writes: accepted, rejected (with why), stale (edited since)."""

    accepted: tuple[PlannedWrite, ...]
    rejected: tuple[Rejection, ...]
    stale: tuple[Rejection, ...]


def is_over_half(total: int, bad: int) -> bool:
    """Return True when more than half of a task's `total` actions were rejected or stale: the task fails."""
    return bad * 2 > total


async def check_writes(
    planned: Sequence[PlannedWrite],
    *,
    team: Team | TeamSpec,
    context: ActionContext,
    writer: NoteWriter | None = None,
    task: ActionsTask | None = None,
) -> GuardResult:
    """Check each planned write against the rules above, reading each note as it is now.

    Args:
        planned: the writes an actions task planned.
        team: the team running (its write_scope and pipeline).
        context: the vault, the write settings and the crew root.
        writer: the writer the writes go through, read so the comparison sees what a write replaces; None (a dry
            run on a read-only vault) reads the files.
        task: the actions task the writes come from: its action, and the allowed keys of the llm task before it.
            None: any actions task of the team, and the allowed keys of all its frontmatter.set outputs.

    """
    spec = team.spec if isinstance(team, Team) else team
    rules = _Rules(
        _scope(spec, context), spec.write_scope, _allowed_actions(spec, task), _allowed_keys(spec, task), context
    )
    accepted: list[PlannedWrite] = []
    rejected: list[Rejection] = []
    stale: list[Rejection] = []
    seen: set[str] = set()
    for write in planned:
        what = f"{write.action} {write.path}"
        problem = _path_problem(write.path, rules) or _shape_problem(write, rules, seen)
        if problem:
            rejected.append(Rejection(what, problem))
            continue
        seen.add(write.path)
        try:
            current = await writer.read(write.path) if writer is not None else context.read(write.path)
        except AppError as exc:
            rejected.append(Rejection(what, exc.message))
            continue
        if (None if current is None else content_hash(current)) != write.base_hash:
            stale.append(Rejection(what, _stale_reason(write, current)))
        elif problem := _keys_problem(write, current, rules.keys):
            rejected.append(Rejection(what, problem))
        else:
            accepted.append(write)
    return GuardResult(tuple(accepted), tuple(rejected), tuple(stale))


@dataclass(frozen=True, slots=True)
class _Rules:
    scope: list[re.Pattern[str]]
    globs: tuple[str, ...]  # the write_scope as the team note spells it, for messages
    actions: frozenset[str]
    keys_allowed: tuple[str, ...]
    context: ActionContext

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(key.casefold() for key in self.keys_allowed)


def _scope(team: TeamSpec, context: ActionContext) -> list[re.Pattern[str]]:
    patterns = []
    for glob in team.write_scope:
        try:
            patterns.append(scope_pattern(glob, context))
        except AppError:  # `{daily}` with broken Daily notes settings: that glob allows nothing
            continue
    return patterns


def _path_problem(path: str, rules: _Rules) -> str:
    scope, context = rules.scope, rules.context
    try:
        if check_writable(path, settings=context.writes) != path:
            return "not a normalised vault path"
        resolve_in_vault(context.root, path)  # refuses symlinks and anything resolving outside the vault
    except InvalidRequest as exc:
        return exc.message
    if context.is_private(path):
        return "in a private folder; private notes are never read or changed"
    # The crew root is refused by check_writable above: the one denylist every writer shares.
    if not any(pattern.fullmatch(unicodedata.normalize("NFC", path)) for pattern in scope):
        return f"outside the team's write_scope ({', '.join(rules.globs) or 'none'})"  # the user's globs
    return ""


def _shape_problem(write: PlannedWrite, rules: _Rules, seen: set[str]) -> str:
    if write.action not in rules.actions:
        allowed = ", ".join(sorted(rules.actions)) or "none"
        return f"{write.action} is not an action of this task (allowed: {allowed})"
    if write.path in seen:
        return "planned twice in one task; only the first is written"
    if write.action == "frontmatter.set" and write.base_hash is None:
        return "frontmatter.set only changes notes that exist"
    if write.action == "note.create" and write.base_hash is not None:
        return "note.create never overwrites a note"
    try:
        check_size(write.new_text, settings=rules.context.writes)
    except InvalidRequest as exc:
        return exc.message
    return ""


def _pairs(spec: TeamSpec) -> list[tuple[ActionsTask, LlmTask | None]]:
    """Return each actions task with the llm task whose output it applies (the last one before it)."""
    pairs: list[tuple[ActionsTask, LlmTask | None]] = []
    feeding: LlmTask | None = None
    for candidate in spec.tasks:
        if isinstance(candidate, LlmTask):
            feeding = candidate
        elif isinstance(candidate, ActionsTask):
            pairs.append((candidate, feeding))
    return pairs


def _chosen(spec: TeamSpec, task: ActionsTask | None) -> list[tuple[ActionsTask, LlmTask | None]]:
    return [pair for pair in _pairs(spec) if task is None or pair[0].id == task.id]


def _allowed_actions(spec: TeamSpec, task: ActionsTask | None) -> frozenset[str]:
    # An action fits when the task declares it and it can carry out the output of the llm task feeding it.
    return frozenset(
        actions.actions
        for actions, feeding in _chosen(spec, task)
        if feeding is not None and actions.actions in ACTIONS_FOR[feeding.output.family]
    )


def _allowed_keys(spec: TeamSpec, task: ActionsTask | None) -> tuple[str, ...]:
    return tuple(
        key
        for actions, feeding in _chosen(spec, task)
        if feeding is not None and actions.actions == "frontmatter.set"
        for key in feeding.output.allowed_keys
    )


def _stale_reason(write: PlannedWrite, current: str | None) -> str:
    if write.base_hash is None:
        return "the note was created since the material was collected; skipped, not overwritten"
    if current is None:
        return "the note was deleted or moved since the material was collected; skipped"
    return "the note was edited since the material was collected; skipped, not overwritten"


def _keys_problem(write: PlannedWrite, current: str | None, allowed: frozenset[str]) -> str:
    if current is None:
        return ""  # a new note: its frontmatter (from a template) is all new
    before, after = _split(current), _split(write.new_text)
    if write.action != "frontmatter.set":
        return "" if before.raw == after.raw else f"{write.action} may not change the note's frontmatter"
    if before.data is None or after.data is None:
        return "the note's frontmatter does not parse, so it is not changed"
    if before.body != after.body:
        return "frontmatter.set may change only frontmatter, but the note's text changed too"
    keys = {str(key) for key in (*before.data, *after.data)}
    changed = sorted(key for key in keys if _as_seen(before.data.get(key)) != _as_seen(after.data.get(key)))
    refused = [key for key in changed if key.casefold() not in allowed]
    if refused:
        return f"properties not allowed for this task: {', '.join(refused)} (allowed: {', '.join(sorted(allowed))})"
    return ""


def _as_seen(value: object) -> object:
    """Return a property value as Obsidian shows it, so an untouched property compares equal to itself.

    A `|` block scalar that ends the frontmatter parses without its last line break, and with it once a key is
    added after it: trailing line breaks are not what the user sees, and the property was not changed.
    """
    if isinstance(value, str):
        return value.rstrip("\r\n")
    if isinstance(value, list):
        return [_as_seen(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_seen(item) for key, item in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class _Parts:
    raw: str  # the frontmatter block as written ("" without one)
    data: dict[str, object] | None  # None when it does not parse
    body: str  # the exact text after it


def _split(text: str) -> _Parts:
    lines = text.removeprefix("\ufeff").split("\n")
    front = read_frontmatter([line.removesuffix("\r") for line in lines])
    data = None if front.error else dict(front.data)
    return _Parts("\n".join(lines[: front.body_start]), data, "\n".join(lines[front.body_start :]))
