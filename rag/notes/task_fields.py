"""The fields of a task's text: the Tasks plugin's emoji (📅 2026-01-05, ⏫) and Dataview inline fields ([due:: ]).

Pure parsing: `find_tasks` finds a note's tasks as `parse_note` does (code blocks and comments excluded) without
parsing the rest of the note; `parse_task_fields` reads one task's text (what follows `- [ ] `).

Fields are found anywhere in the text; when one is given twice the last wins, as the Tasks plugin reads a line
from its end. A date that is not a real day (2026-02-30) is no field and stays in the text. The emoji may carry
Unicode's variation selector (U+FE0F), as some keyboards add.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from core.domain import Task
from rag.notes.frontmatter import find_frontmatter_end
from rag.notes.inline import find_task
from rag.notes.moment import iso_day
from rag.notes.scanner import scan_lines, split_lines

PRIORITIES = ("highest", "high", "medium", "low", "lowest")
_VS16 = "\ufe0f?"
_DAY = r"\d{4}-\d{2}-\d{2}"
# Emoji of the Tasks plugin's default format (its DefaultTaskSerializer), by the field they set.
_EMOJI_DATES = {
    "due": "[📅📆🗓]",
    "scheduled": "[⏳⌛]",
    "start": "🛫",
    "created": "➕",
    "done": "✅",
    "cancelled": "❌",
}
_EMOJI_PRIORITY = {"🔺": "highest", "⏫": "high", "🔼": "medium", "🔽": "low", "⏬": "lowest"}
_EMOJI_DATE = re.compile(
    "|".join(f"(?P<{name}>{emoji}){_VS16} *(?P<{name}_day>{_DAY})" for name, emoji in _EMOJI_DATES.items())
)
_PRIORITY = re.compile(f"([{''.join(_EMOJI_PRIORITY)}]){_VS16}")
_RECURRENCE = re.compile(f"🔁{_VS16} ?([a-zA-Z0-9, !]+)")
# Markers with no meaning for a briefing, removed from the text so the model sees the task's words only.
_ID = "[a-zA-Z0-9_-]+"
_OTHER_MARKERS = re.compile(
    f"🆔{_VS16} *{_ID}|⛔{_VS16} *{_ID}(?: *, *{_ID})*|🏁{_VS16} *[a-zA-Z]+|⏰{_VS16} *{_DAY}(?: \\d{{2}}:\\d{{2}})?"
)
# Dataview's names for the same fields (the Tasks plugin's DataviewTaskSerializer), in [key:: v] or (key:: v).
_DATAVIEW_NAMES = {
    "due": "due",
    "scheduled": "scheduled",
    "start": "start",
    "created": "created",
    "completion": "done",
    "cancelled": "cancelled",
    "priority": "priority",
    "repeat": "recurrence",
}
_DATAVIEW = re.compile(
    r"\[\s*(?P<bkey>[A-Za-z]+)\s*::\s*(?P<bvalue>[^\]]*?)\s*\]|\(\s*(?P<pkey>[A-Za-z]+)\s*::\s*(?P<pvalue>[^)]*?)\s*\)"
)
_SPACES = re.compile(r"[ \t]{2,}")


@dataclass(frozen=True, slots=True)
class TaskFields:
    """What a task's text says besides its words: dates, priority, recurrence."""

    description: str  # the text without the fields' markers
    due: date | None = None
    scheduled: date | None = None
    start: date | None = None
    created: date | None = None
    done: date | None = None
    cancelled: date | None = None
    priority: str | None = None  # one of PRIORITIES
    recurrence: str | None = None  # as written: "every week on Monday"


@dataclass(slots=True)
class _Found:
    days: dict[str, date] = field(default_factory=dict)  # "due", "scheduled", ... -> the day
    priority: str | None = None
    recurrence: str | None = None


def _day(text: str) -> date | None:
    return iso_day(text[:10])


def _emoji_fields(text: str, found: _Found) -> str:
    def take_date(match: re.Match[str]) -> str:
        name = next(key for key in _EMOJI_DATES if match[key] is not None)
        day = _day(match[f"{name}_day"])
        if day is None:
            return match[0]
        found.days[name] = day
        return " "

    def take_priority(match: re.Match[str]) -> str:
        found.priority = _EMOJI_PRIORITY[match[1]]
        return " "

    def take_recurrence(match: re.Match[str]) -> str:
        found.recurrence = match[1].strip()
        return " "

    text = _EMOJI_DATE.sub(take_date, text)
    text = _PRIORITY.sub(take_priority, text)
    text = _RECURRENCE.sub(take_recurrence, text)
    return _OTHER_MARKERS.sub(" ", text)


def _dataview_fields(text: str, found: _Found) -> str:
    def take(match: re.Match[str]) -> str:
        key = (match["bkey"] or match["pkey"]).lower()
        value = match["bvalue"] if match["bkey"] else match["pvalue"]
        name = _DATAVIEW_NAMES.get(key)
        if name is None:
            return match[0]  # another inline field ([project:: Garden]): part of the task's words
        if name == "priority":
            if value.lower() not in PRIORITIES:
                return match[0]
            found.priority = value.lower()
        elif name == "recurrence":
            found.recurrence = value
        else:
            day = _day(value)
            if day is None:
                return match[0]
            found.days[name] = day
        return " "

    return _DATAVIEW.sub(take, text) if "::" in text else text


def parse_task_fields(text: str) -> TaskFields:
    """Return the dates, priority and recurrence a task's text gives, and its text without their markers."""
    found = _Found()
    rest = _dataview_fields(_emoji_fields(text, found), found)
    days = found.days
    return TaskFields(
        description=_SPACES.sub(" ", rest).strip(),
        due=days.get("due"),
        scheduled=days.get("scheduled"),
        start=days.get("start"),
        created=days.get("created"),
        done=days.get("done"),
        cancelled=days.get("cancelled"),
        priority=found.priority,
        recurrence=found.recurrence or None,
    )


def find_tasks(text: str) -> list[Task]:
    """Return a note's tasks, as `parse_note(path, text).tasks` finds them, at a third of its cost.

    Only the scanner runs (the frontmatter is skipped, not loaded), so collecting the open tasks of a vault stays
    close to the cost of reading its files.
    """
    lines = split_lines(text)
    end = find_frontmatter_end(lines)
    start = end + 1 if end is not None else 0
    tasks = []
    for line in scan_lines(lines[start:], first_line=start + 1).lines:
        if line.kind == "code" or line.is_continued or not line.masked.strip():
            continue
        task = find_task(line.visible, line.number)
        if task is not None:
            tasks.append(task)
    return tasks
