"""Collected material as the model reads it: one delimited block per note, cut to fit the model's context.

When everything does not fit, long texts are shortened first (the longest ones, down to a fair share each), then
whole items are dropped from the end (collectors put what matters most first); what was left out is said both in
the block the model reads and in `omitted`, for the run log. The model's output may bind only to what it was
shown: `RenderedMaterial.material` holds the shown items only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from datetime import date

from crews.model import CollectedTask, Material, MaterialItem

MIN_BODY_TOKENS = 96  # a text is never shortened below this while whole items can still be dropped instead
MAX_NAMED = 10  # left-out paths named in the block itself (the run log gets up to MAX_LOGGED)
MAX_LOGGED = 25
MAX_VALUES_SHOWN = 40  # allowed values listed per property
_DELIMITERS = re.compile(r"<(\s*/?\s*(?:note|material)\b)", re.IGNORECASE)
_STATUS_WORDS = {" ": "to do", "/": "in progress"}


@dataclass(frozen=True, slots=True)
class RenderedMaterial:
    """The material block of a prompt, what it shows and what was left out to fit."""

    text: str
    shown: tuple[str, ...]  # paths of the items shown, in order
    omitted: tuple[str, ...]  # human lines: items dropped, texts shortened
    material: Material  # the collected material narrowed to the shown items: what the output may bind to


@dataclass(slots=True)
class _Block:
    item: MaterialItem
    head: str  # opening tag and properties
    body: str  # text or task lines
    head_tokens: int
    body_tokens: int
    is_tasks: bool


def _neutral(text: str) -> str:
    """Return text with anything that reads as this block's delimiters escaped, so a note cannot close its block."""
    return _DELIMITERS.sub(r"&lt;\1", text)


def _attribute(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def _value(value: object) -> str:
    if isinstance(value, list):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).replace("\n", " ")


def _when(label: str, iso: str | None, today: date | None) -> str:
    if iso is None:
        return ""
    if today is None or label not in ("due", "scheduled"):
        return f"{label} {iso}"
    days = (date.fromisoformat(iso) - today).days
    if days < 0:
        return f"{label} {iso}, OVERDUE by {-days} day(s)" if label == "due" else f"{label} {iso} (past)"
    return f"{label} {iso}, TODAY" if days == 0 else f"{label} {iso}, in {days} day(s)"


def _task_line(task: CollectedTask, today: date | None, title: str = "") -> str:
    facts = [
        _when("due", task.due, today),
        _when("scheduled", task.scheduled, today),
        _when("starts", task.start, today),
        f"priority {task.priority}" if task.priority else "",
        f"repeats {task.recurrence}" if task.recurrence else "",
        _STATUS_WORDS.get(task.status, f"status [{task.status}]") if task.status != " " else "",
    ]
    shown = "; ".join(fact for fact in ([f"[[{title}]]"] if title else []) + facts if fact)
    # No "[ ]": a model copies what it is shown, and copied checkboxes would be new tasks in the written note. Each
    # line carries its note's link, so what a small model copies is a grounded, linked line.
    return f"- {task.text}" + (f" ({shown})" if shown else "")


def _head(item: MaterialItem) -> str:
    if item.tasks:  # task lines name their note themselves: no note tags for a small model to echo
        return ""
    attributes = f'path="{_attribute(item.path)}" title="{_attribute(item.title)}"'
    if item.content_hash is None:
        attributes += ' exists="no"'
    lines = [f"<note {attributes}>"]
    lines += [_neutral(f"{key}: {_value(value)}") for key, value in item.frontmatter.items()]
    return "\n".join(lines)


def _body(item: MaterialItem, today: date | None) -> str:
    if item.tasks:
        return _neutral("\n".join(_task_line(task, today, item.title) for task in item.tasks))
    if item.text is not None:
        return _neutral(item.text) if not item.frontmatter else _neutral(f"---\n{item.text}")
    return "(this note does not exist yet)" if item.content_hash is None else ""


def _header(material: Material, value_keys: Collection[str]) -> str:
    lines = [f'<material collector="{_attribute(material.collector)}">']
    if material.summary:
        lines.append(_neutral(material.summary))
    wanted = {key.casefold() for key in value_keys}
    for key, values in sorted(material.folder_values.items()):
        if key.casefold() in wanted and values:
            listed = sorted(values, key=str.casefold)[:MAX_VALUES_SHOWN]
            more = f" (and {len(values) - len(listed)} more)" if len(values) > len(listed) else ""
            lines.append(_neutral(f"Values of {key} used in these notes: {', '.join(listed)}{more}"))
    return "\n".join(lines)


def _assemble(header: str, blocks: list[_Block], bodies: list[str], footer: str) -> str:
    parts = [header]
    for block, body in zip(blocks, bodies, strict=True):
        if block.is_tasks:
            parts.append(body)
        else:
            parts.append(f"{block.head}\n{body}\n</note>" if body else f"{block.head}\n</note>")
    if footer:
        parts.append(footer)
    parts.append("</material>")
    return "\n".join(parts)


def _footer(dropped: list[_Block]) -> str:
    if not dropped:
        return ""
    named = ", ".join(block.item.path for block in dropped[:MAX_NAMED])
    more = f" and {len(dropped) - MAX_NAMED} more" if len(dropped) > MAX_NAMED else ""
    return _neutral(f"[{len(dropped)} more note(s) not shown, to fit the model's context: {named}{more}]")


def _body_cap(bodies: list[int], room: int) -> int | None:
    """Return the largest per-body token cap that fits `room` (water-filling), or None when it needs no cap."""
    if sum(bodies) <= room:
        return None
    remaining = room
    ordered = sorted(bodies)
    for index, size in enumerate(ordered):
        share = remaining // (len(ordered) - index)
        if share < size:
            return max(share, 0)
        remaining -= size
    return None


def _cut(text: str, limit: int, count_tokens: Callable[[str], int], *, is_tasks: bool) -> str:
    """Return the start of `text` within `limit` tokens, whole lines for tasks, saying what was left out."""
    chars = int(len(text) * limit / max(count_tokens(text), 1) * 0.9)
    while True:
        head = text[:chars]
        newline = head.rfind("\n")
        if is_tasks or newline > chars // 2:
            head = head[: max(newline, 0)]
        if is_tasks:
            rest = text.count("\n") + 1 - (head.count("\n") + 1 if head else 0)
            marker = f"… [{rest} more task(s) of this note not shown, to fit the model's context]"
        else:
            marker = f"… [shortened to fit the model's context: {len(text) - len(head):,} more characters not shown]"
        candidate = f"{head.rstrip()}\n{marker}" if head.strip() else marker
        if chars <= 0 or count_tokens(candidate) <= limit:
            return candidate
        chars = int(chars * 0.75)


def _block(item: MaterialItem, today: date | None, count_tokens: Callable[[str], int]) -> _Block:
    head, body = _head(item), _body(item, today)
    return _Block(
        item=item,
        head=head,
        body=body,
        head_tokens=count_tokens(f"{head}\n</note>") if head else 0,
        body_tokens=count_tokens(body) if body else 0,
        is_tasks=bool(item.tasks),
    )


def _omitted(kept: list[_Block], bodies: list[str], dropped: list[_Block]) -> tuple[str, ...]:
    lines = []
    shortened = [block.item.path for block, body in zip(kept, bodies, strict=True) if body != block.body]
    if shortened:
        more = f" and {len(shortened) - MAX_LOGGED} more" if len(shortened) > MAX_LOGGED else ""
        lines.append(f"{len(shortened)} note(s) shown shortened: {', '.join(shortened[:MAX_LOGGED])}{more}")
    if dropped:
        named = ", ".join(block.item.path for block in dropped[:MAX_LOGGED])
        more = f" and {len(dropped) - MAX_LOGGED} more" if len(dropped) > MAX_LOGGED else ""
        lines.append(f"{len(dropped)} note(s) dropped from the end (no room left): {named}{more}")
    return tuple(lines)


@dataclass(slots=True)
class _Fitted:
    text: str
    kept: list[_Block]
    bodies: list[str]
    dropped: list[_Block]


def _fit(header: str, blocks: list[_Block], max_tokens: int, count_tokens: Callable[[str], int]) -> _Fitted:
    """Shorten the longest bodies to a fair share, else drop whole blocks from the end, until the whole fits."""
    fixed = count_tokens(f"{header}\n</material>")
    kept = list(blocks)
    dropped: list[_Block] = []
    slack = 0  # tokens the pieces' separate counts missed, learnt from a whole count
    while True:
        footer = _footer(dropped)
        room = max_tokens - fixed - slack - (count_tokens(footer) if footer else 0)
        room -= sum(block.head_tokens for block in kept)
        cap = _body_cap([block.body_tokens for block in kept], max(room, 0))
        if kept and (room < 0 or (cap is not None and cap < MIN_BODY_TOKENS and len(kept) > 1)):
            dropped.insert(0, kept.pop())
            continue
        bodies = [
            block.body
            if cap is None or block.body_tokens <= cap
            else _cut(block.body, cap, count_tokens, is_tasks=block.is_tasks)
            for block in kept
        ]
        text = _assemble(header, kept, bodies, footer)
        overflow = count_tokens(text) - max_tokens
        if overflow <= 0 or not kept:
            return _Fitted(text, kept, bodies, dropped)
        slack += overflow


def render_material(
    material: Material,
    *,
    max_tokens: int,
    count_tokens: Callable[[str], int],
    value_keys: Collection[str] = (),
) -> RenderedMaterial:
    """Render `material` as the prompt's data block within `max_tokens`, saying what had to be left out.

    Args:
        material: what a collector gathered.
        max_tokens: the room the block may take in the model's context.
        count_tokens: the model's token count of a text (an estimate is fine: the result is checked whole).
        value_keys: properties whose values used in the folder are listed (an output's allowed keys).

    """
    today = date.fromisoformat(material.as_of) if material.as_of else None
    blocks = [_block(item, today, count_tokens) for item in material.items]
    fitted = _fit(_header(material, value_keys), blocks, max_tokens, count_tokens)
    shown = tuple(block.item for block in fitted.kept)
    return RenderedMaterial(
        text=fitted.text,
        shown=tuple(item.path for item in shown),
        omitted=_omitted(fitted.kept, fitted.bodies, fitted.dropped),
        material=replace(material, items=shown),
    )
