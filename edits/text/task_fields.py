"""A task's Tasks-plugin fields (dates, recurrence, priority ...), read from the end of its text as the plugin does.

The plugin takes fields only from the end of a task's text, in any order, each once per pass, until none is left
(its `DefaultTaskSerializer.deserialize`): a date in the middle of the description is no field. Trailing tags are
passed over (they belong to the description), and a block link (`^abc`) at the very end is set aside first. Each
field is kept with where it sits in the text, so an edit can change or drop it and leave the rest as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

FieldKind = Literal[
    "priority", "done", "cancelled", "due", "scheduled", "start", "created", "recurrence", "on_completion", "tag",
    "id", "depends_on",
]  # fmt: skip
DateKind = Literal["done", "cancelled", "due", "scheduled", "start", "created"]

_DATE = r"([0-9]{4}-[0-9]{2}-[0-9]{2})"
_IDS = r"([a-zA-Z0-9-_]+(?: *, *[a-zA-Z0-9-_]+ *)*)"
_BLOCK_LINK = re.compile(r" \^[a-zA-Z0-9-]+\Z")
_TAG = re.compile(r"""(?:^|\s)#[^ !@#$%^&*(),.?":{}|<>]+\Z""")  # the plugin's hashTagsFromEnd


def _emoji(symbols: str, value: str = "") -> re.Pattern[str]:
    # An emoji may carry the variation selector U+FE0F; the value follows after any spaces.
    return re.compile(rf"(?:{symbols})\ufe0f?" + (f" *{value}" if value else "") + r"\Z")


def _inline(key: str, value: str) -> re.Pattern[str]:
    # A Dataview inline field, [key:: value] or (key:: value), optionally followed by a comma.
    return re.compile(rf"(?:(?=[^\]]+\])\[|(?=[^)]+\))\() *{key}:: *{value} *[)\]](?: *,)?\Z")


# The symbols of each date field, in the plugin's order: all are read (EMOJI_FIELDS), the first is written.
_EMOJI_DATES: dict[DateKind, str] = {
    "done": "✅", "cancelled": "❌", "due": "📅|📆|🗓", "scheduled": "⏳|⌛", "start": "🛫", "created": "➕",
}  # fmt: skip
# Matched in the plugin's order within each pass: the order decides which of two equal fields is read.
EMOJI_FIELDS: tuple[tuple[FieldKind, re.Pattern[str]], ...] = (
    ("priority", _emoji("🔺|⏫|🔼|🔽|⏬")),
    *((kind, _emoji(symbols, _DATE)) for kind, symbols in _EMOJI_DATES.items()),
    ("recurrence", _emoji("🔁", r"([a-zA-Z0-9, !]+)")),
    ("on_completion", _emoji("🏁", r"([a-zA-Z]+)")),
    ("tag", _TAG),
    ("id", _emoji("🆔", r"([a-zA-Z0-9-_]+)")),
    ("depends_on", _emoji("⛔", _IDS)),
)
# The Dataview key of each date field, in the plugin's order: read by DATAVIEW_FIELDS, written by `date_field`.
_DATAVIEW_KEYS: dict[DateKind, str] = {
    "done": "completion", "cancelled": "cancelled", "due": "due", "scheduled": "scheduled", "start": "start",
    "created": "created",
}  # fmt: skip
DATAVIEW_FIELDS: tuple[tuple[FieldKind, re.Pattern[str]], ...] = (
    ("priority", _inline("priority", "(highest|high|medium|low|lowest)")),
    *((kind, _inline(key, _DATE)) for kind, key in _DATAVIEW_KEYS.items()),
    ("recurrence", _inline("repeat", r"([a-zA-Z0-9, !]+)")),
    ("on_completion", _inline("onCompletion", r"([a-zA-Z]+)")),
    ("tag", _TAG),
    ("id", _inline("id", r"([a-zA-Z0-9-_]+)")),
    ("depends_on", _inline("dependsOn", _IDS)),
)
_MAX_PASSES = 21  # the plugin's failsafe against endless parsing


@dataclass(frozen=True, slots=True)
class TaskField:
    """One field at the end of a task's text: its kind, value and where it sits.

    `start` includes the spaces before the field, so dropping text[start:end] leaves the text around it as it was;
    `value_start`/`value_end` hold its value (the date of a date field).
    """

    kind: FieldKind
    value: str
    start: int
    end: int
    value_start: int
    value_end: int


@dataclass(frozen=True, slots=True)
class TaskFields:
    """A task's text (after its checkbox) with the fields read from its end."""

    text: str
    fields: tuple[TaskField, ...]  # from the end of the text towards its start
    fields_end: int  # where a field the plugin adds goes: after the last field, before a block link and spaces

    def first(self, kind: FieldKind) -> TaskField | None:
        """Return the field of this kind the plugin reads (the one nearest the description), or None."""
        found = [field for field in self.fields if field.kind == kind]
        return found[-1] if found else None

    def of_kind(self, *kinds: FieldKind) -> list[TaskField]:
        """Return every field of these kinds."""
        return [field for field in self.fields if field.kind in kinds]


def read_task_fields(text: str, *, is_dataview: bool) -> TaskFields:
    """Return the fields at the end of `text` (a task's text after `]`) in the given task format."""
    patterns = DATAVIEW_FIELDS if is_dataview else EMOJI_FIELDS
    end = len(text.rstrip())
    block_link = _BLOCK_LINK.search(text[:end])
    if block_link is not None:
        end = len(text[: block_link.start()].rstrip())
    fields_end = end
    fields: list[TaskField] = []
    for _ in range(_MAX_PASSES):
        matched = False
        for kind, pattern in patterns:
            match = pattern.search(text, 0, end)
            if match is None:
                continue
            start = len(text[: match.start()].rstrip())
            value_start, value_end = match.span(1) if match.re.groups else match.span()
            fields.append(TaskField(kind, text[value_start:value_end].strip(), start, end, value_start, value_end))
            end, matched = start, True
        if not matched:
            break
    return TaskFields(text, tuple(fields), fields_end)


def date_field(kind: DateKind, day: date, *, is_dataview: bool) -> str:
    """Return a date field as the plugin writes it after a task's text, with its leading spaces.

    Two spaces before an inline field: the plugin's fix for Obsidian issue #1913.
    """
    if is_dataview:
        return f"  [{_DATAVIEW_KEYS[kind]}:: {day.isoformat()}]"
    return f" {_EMOJI_DATES[kind].split('|')[0]} {day.isoformat()}"


def edit_text(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Return `text` with each (start, end, replacement) applied; the spans must not overlap."""
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text
