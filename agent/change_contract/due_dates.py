"""The due date a request gives a new task ("Add a task to ACME: renew the insurance due Friday").

Users of the Tasks plugin write a task's due date as `📅 2026-12-11` (or Dataview's `[due:: 2026-12-11]`); a task
added as "renew the insurance due Friday" is one no due list, query or "What's overdue?" ever finds. The day is read
by code, as every day in a request is (rag/answer/days_named.py), only after words that make it a deadline ("due",
"by", "deadline", "fällig"): "Add a task for tomorrow: …" still means tomorrow's daily note. The words saying it are
taken out of the task, and the date is written the way the vault's tasks write theirs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date

from agent.change_contract.findings import Findings
from agent.change_contract.schema import Contract
from agent.propose.task_filter import with_filter
from agent.tools.snapshot import VaultSnapshot
from rag.answer.days_named import days_named
from rag.notes.task_fields import parse_task_fields

_DEADLINE = re.compile(
    r"(?:,\s*)?\b(?:(?:which\s+is\s+|that\s+is\s+|it's\s+|is\s+)?due|by|deadline(?:\s+is)?|fällig|bis)"
    r"(?:\s+(?:on|by|am|zum|bis))?\s+",
    re.IGNORECASE,
)
_MAX_DAY_WORDS = 4  # "Friday next week", "the 10th of December": longer is no day
# Words a day is written with ("next Friday", "Friday next week", "the 10th of December", "December 10"): the day's
# words run on while they are such words or change the day; "by phone tomorrow" starts with none, so is no due date.
_DAY_WORD = re.compile(
    r"^(?:next|this|coming|the|on|of|week|\d{1,2}(?:st|nd|rd|th|\.)?|\d{4}-\d{2}-\d{2}|jan\w*|feb\w*|mar\w*|apr\w*"
    r"|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*|nov\w*|dec\w*|mon\w*|tue\w*|wed\w*|thu\w*|fri\w*|sat\w*|sun\w*"
    r"|today|tomorrow|nächste\w*|kommende\w*|diese\w*|übernächste\w*|woche|heute|morgen|\w+tag)$",
    re.IGNORECASE,
)
_DUE_MARK = re.compile(r"📅|\[due::|\(due::", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class DueDate:
    """A new task's due date, and where the request says it (`span`, to take out of the task's words)."""

    day: date
    span: tuple[int, int]


def due_date(request: str, today: date) -> DueDate | None:
    """Return the due date `request` gives a task ("due Friday", "by 2026-12-10", "deadline next Monday"), or None.

    The day words run as far as they change the day: "due Friday next week" is 2026-12-18, "due Friday to call Bob"
    ends at "Friday". A span of days ("by next week") is no due date.
    """
    for match in _DEADLINE.finditer(request):
        words = [word for word in re.finditer(r"[^\s.,;:!?]+", request[match.end() :])][:_MAX_DAY_WORDS]
        found: tuple[date, int] | None = None  # the day, and where its words end
        for word in words:
            end = match.end() + word.end()
            days = days_named(request[match.end() : end], today)
            is_day_word = bool(_DAY_WORD.match(word.group()))
            if days is None or days[0] != days[1] or not (is_day_word or (found and days[0] != found[0])):
                if found is None and is_day_word:
                    continue  # "December" of "December 10", "next" of "next Friday"
                break
            found = (days[0], end)
        if found is not None:
            return DueDate(_coming(found[0], today, request[match.end() : found[1]]), (match.start(), found[1]))
    return None


def _coming(day: date, today: date, words: str) -> date:
    """Return `day`, or the same day a year on when it is past and `words` give no year ("by 15 January")."""
    if day >= today or re.search(r"\b\d{4}\b", words):
        return day
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day


def without_due_date(request: str, due: DueDate) -> str:
    """Return `request` without the words giving the due date, spaces closed up."""
    start, end = due.span
    joined = f"{request[:start].rstrip()} {request[end:].lstrip()}"
    return re.sub(r"[ \t]+(?=[,.;:!?])|(?<=[ \t])[ \t]+", "", joined).strip()


def due_marker(snapshot: VaultSnapshot, day: date) -> str:
    """Return the due date as the vault's tasks write theirs: the Tasks plugin's `📅 …`, or Dataview's if more used."""
    emoji = dataview = 0
    for task in snapshot.tasks():
        if parse_task_fields(task.text).due is not None:
            emoji += "📅" in task.text
            dataview += "due::" in task.text.replace(" ", "")
    return f"[due:: {day.isoformat()}]" if dataview > emoji else f"📅 {day.isoformat()}"


def with_due_date(task: str, marker: str) -> str:
    """Return `task` ending with `marker`, unless it has a due date already."""
    return task if not marker or _DUE_MARK.search(task) else f"{task.rstrip()} {marker}"


def with_task_marks(contract: Contract, findings: Findings) -> Contract:
    """Return `contract` with its new task marked as the vault marks its tasks.

    The due date the request gave it goes at its end (`findings.due`), the Tasks plugin's global filter at its start
    (`findings.task_filter`), so that what "I read your request as" says is the line proposed.
    """
    if contract.operation != "add_task" or "text" not in contract.values:
        return contract
    text = with_filter(with_due_date(contract.values["text"], findings.due), findings.task_filter)
    return replace(contract, values={**contract.values, "text": text})
