"""An actions task's plan: the model's bound output turned into whole-note writes, each planned from the note now.

Nothing is written here: `plan_writes` returns PlannedWrites (checked again by `crews.writes.guard` right before the
write) and Rejections. A change that is already in place is no write and no rejection, so re-running a crew changes
nothing that is already as it would make it (`section.replace` replaces, `note.create` never overwrites).
`ActionContext` (crews.writes.action_context) is what planning reads the vault through.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from core.errors import AppError, InvalidRequest
from crews.definitions import ActionsTask
from crews.model import BoundOutput, FrontmatterValue, Material, PlannedWrite, Rejection
from crews.writes.action_context import ActionContext as ActionContext  # re-exported: what planning reads through
from crews.writes.sections import plan_section_replace, section_params
from edits.diffs import unified_diff
from edits.text.frontmatter import set_property
from rag.notes.frontmatter import read_frontmatter


def validate_action_params(task: ActionsTask) -> str | None:
    """Return what is wrong with an actions task's params (for load time), or None when they are fine."""
    try:
        if task.actions == "section.replace":
            section_params(task.params)
        elif task.actions == "note.create":
            _note_create_path(task.params)
        elif task.params:
            raise InvalidRequest(f"frontmatter.set takes no params, got {', '.join(sorted(task.params))}")
    except InvalidRequest as exc:
        return f"actions task {task.id!r}: {exc.message}"
    return None


def plan_writes(
    task: ActionsTask, output: BoundOutput, material: Material, *, context: ActionContext
) -> tuple[list[PlannedWrite], list[Rejection]]:
    """Plan the writes that carry `output` out (nothing is written) and the actions planning refused.

    Stage 1's rejections (`output.rejected`) are not repeated here. An action whose note already reads as proposed
    is neither: `count_actions` counts it, for the over-half rule.

    Raises:
        InvalidRequest: the task's params are wrong (the task fails; see `validate_action_params`).

    """
    if task.actions == "frontmatter.set":
        writes, rejected, _ = _plan_frontmatter(output, material, context)
    elif task.actions == "section.replace":
        writes, rejected, _ = plan_section_replace(task.params, output.markdown, material, context=context)
    else:
        writes, rejected, _ = _plan_note_create(task.params, output.markdown, context)
    return writes, rejected


def count_actions(task: ActionsTask, output: BoundOutput) -> int:
    """Return how many actions the model proposed to `task`: the total the over-half rule counts against.

    One per note for frontmatter.set (changes of one note are one write), one for a section or a new note, plus
    every item stage 1 rejected. Actions already in place count as done, not as rejected.
    """
    proposed = len({change.path for change in output.changes}) if task.actions == "frontmatter.set" else 1
    return proposed + len(output.rejected)


_Plan = tuple[list[PlannedWrite], list[Rejection], list[str]]


def _plan_frontmatter(output: BoundOutput, material: Material, context: ActionContext) -> _Plan:
    # Changes are grouped by note: two changes of one note make one write, not two that conflict.
    values: dict[str, dict[str, FrontmatterValue]] = {}
    for change in output.changes:
        values.setdefault(change.path, {}).update(change.values)
    writes: list[PlannedWrite] = []
    rejected: list[Rejection] = []
    unchanged: list[str] = []
    for path, wanted in values.items():
        item = material.item(path)
        if item is None:
            rejected.append(Rejection(path, "not among the collected notes"))
            continue
        try:
            before = context.read(path)
            if before is None:
                rejected.append(Rejection(path, "the note no longer exists"))
                continue
            after, summary = set_values(before, wanted)
        except AppError as exc:
            rejected.append(Rejection(path, exc.message))
            continue
        if after == before:
            unchanged.append(path)
            continue
        diff = unified_diff(path, before, after)
        writes.append(PlannedWrite("frontmatter.set", path, item.content_hash, after, diff, summary))
    return writes, rejected, unchanged


def set_values(text: str, values: Mapping[str, FrontmatterValue]) -> tuple[str, str]:
    """Return the note with frontmatter `values` set (other bytes kept) and a summary; equal values are left alone.

    A property the note spells in another case ("Priority") is set under its own spelling; a list value replaces
    the property's list (equal regardless of order).
    """
    current = read_frontmatter(text.removeprefix("\ufeff").splitlines()).data
    spelled = {str(key).casefold(): str(key) for key in current}
    changed: list[str] = []
    for key, value in values.items():
        name = spelled.get(key.casefold(), key)
        if name in current and is_same_value(current[name], value):
            continue
        text = set_property(text, name, list(value) if isinstance(value, list) else value)
        changed.append(f"{name}: {_shown(value)}")
    return text, ("set " + "; ".join(changed)) if changed else "nothing to change"


def is_same_value(current: object, proposed: object) -> bool:
    """Return True when a property already holds `proposed` (as Obsidian shows it: `3` is "3", lists in any order)."""
    if isinstance(current, list) or isinstance(proposed, list):
        return sorted(_items(current)) == sorted(_items(proposed))
    return _plain(current) == _plain(proposed)


def _items(value: object) -> list[str]:
    if value is None:
        return []
    return [_plain(item) for item in value] if isinstance(value, list) else [_plain(value)]


def _plain(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value).strip()


def _shown(value: FrontmatterValue) -> str:
    return f"[{', '.join(value)}]" if isinstance(value, list) else _plain(value)


def _note_create_path(params: Mapping[str, object]) -> str:
    unknown = sorted(set(params) - {"path"})
    if unknown:
        raise InvalidRequest(f"note.create takes only `path`, not {', '.join(unknown)}")
    path = params.get("path")
    if not isinstance(path, str) or not path.strip():
        raise InvalidRequest("note.create needs `path`, the new note's vault path (`{date}` is today)")
    path = path.strip()
    return path if PurePosixPath(path).suffix else f"{path}.md"


def _plan_note_create(params: Mapping[str, object], markdown: str, context: ActionContext) -> _Plan:
    path = context.expand(_note_create_path(params))
    text = markdown.strip("\n")
    if not text.strip():
        return [], [Rejection(f"note.create {path}", "the model wrote no text for the note")], []
    text += "\n"
    try:
        before = context.read(path)
    except AppError as exc:
        return [], [Rejection(f"note.create {path}", exc.message)], []
    if before is not None:
        if before == text:
            return [], [], [path]
        return [], [Rejection(f"note.create {path}", "a note already exists there; note.create never overwrites")], []
    summary = f"create {path}"
    return [PlannedWrite("note.create", path, None, text, unified_diff(path, None, text), summary)], [], []
