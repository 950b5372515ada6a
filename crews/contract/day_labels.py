"""Tasks under the wrong day: a label such as "Due today:" over a task its own due date puts elsewhere.

The material gives each task its due date and says where it stands ("due 2021-08-22, OVERDUE by 1933 day(s)",
crews/contract/material.py), and the collector's summary counts them ("12 overdue, 0 due today"). Still, Qwen2.5-Coder
1.5B's briefing over obsidian-tasks-demo listed its twelve overdue tasks under "Overdue Tasks" and then all twelve
again under "Due Today", each still saying "OVERDUE": written into the daily note, it tells the user twelve tasks are
due today. A section a model writes is read here label by label, and a task whose due date (or "OVERDUE") another
day's label gives is reported, for the model's one repair. So is a task a bullet opens with a day of its own for:
told to list each task under the label its date gives, the 1.5B wrote none, and opened each bullet with
"2026-12-14:", the last day the collector looked at, before a task "due 2021-08-22, OVERDUE by 1933 day(s)".
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from crews.model import Material

_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+")
# What a label says once its Markdown is taken off: "### Due Today", "**Overdue tasks:**", "Heute fällig:".
_MARKUP = re.compile(r"[#*_`>:]+")
MAX_LABEL_WORDS = 5  # "## Today's Briefing" titles the section; a longer line is a sentence, not a label
_LABELS = {
    "overdue": re.compile(r"\b(?:overdue|past due)\b|überfällig", re.IGNORECASE),
    "today": re.compile(r"^(?:(?:tasks? )?due today|today|heute(?: fällig)?|fällig heute)(?: tasks?)?$", re.IGNORECASE),
    "tomorrow": re.compile(
        r"^(?:(?:tasks? )?due tomorrow|tomorrow|morgen(?: fällig)?|fällig morgen)(?: tasks?)?$", re.IGNORECASE
    ),
}
# The task's due date as the material gives it ("due 2026-12-02"), as the Tasks plugin writes it ("📅 2026-12-02"),
# or as Dataview does ("[due:: 2026-12-02]").
_DUE = re.compile(r"(?:\bdue\b:*\s*|📅\s*)(\d{4}-\d{2}-\d{2})", re.IGNORECASE)
_ISO_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_SAYS_OVERDUE = re.compile(r"\boverdue\b", re.IGNORECASE)
_OWN_DAY = re.compile(
    r"(?:\*\*|__)?(\d{4}-\d{2}-\d{2})(?:\*\*|__)?\s*[:\u2013\u2014-]\s"
)  # a bullet's own "2026-12-14:"


def misplaced_by_day(markdown: str, today: date) -> str:
    """Return what is wrong with the first task listed under another day's label than its own ("" for none)."""
    label, kind = "", ""
    for line in markdown.split("\n"):
        if not line.strip():
            continue
        if not _LIST_ITEM.match(line):
            label = line.strip()
            kind = _label_kind(label)
            continue
        due = _DUE.search(line)
        if own := _OWN_DAY.match(_LIST_ITEM.sub("", line)):  # "- 2026-12-14: Feed the baby (… due 2021-11-21 …)"
            day = own.group(1)
            if due and _is_day(day) and day != due.group(1) and line.count(day) == 1:
                standing = _standing(date.fromisoformat(due.group(1)), today)
                return _wrong(line, day, f"due {due.group(1)}", standing, today)
            continue
        if not kind:
            continue
        standing = _standing(date.fromisoformat(due.group(1)), today) if due and _is_day(due.group(1)) else ""
        if not standing and _SAYS_OVERDUE.search(line):
            standing = "overdue"
        if standing and standing != kind:
            return _wrong(line, label, f"due {due.group(1)}" if due else "overdue", standing, today)
    return ""


def _wrong(line: str, label: str, when: str, standing: str, today: date) -> str:
    """Return the repair's words for a task (`line`) listed under another day's `label`."""
    return (
        f'markdown lists "{_shown(line)}" under "{label}", but it is {when} ({standing}; today is '
        f"{today.isoformat()}): list each task once, under the label its due date gives, and leave out a label "
        "with no task"
    )


def _label_kind(line: str) -> str:
    """Return the day a label line names ("overdue", "today", "tomorrow"), "" for none (a title, a sentence)."""
    words = " ".join(_MARKUP.sub(" ", line).split())
    if not words or len(words.split()) > MAX_LABEL_WORDS:
        return ""
    return next((kind for kind, pattern in _LABELS.items() if pattern.search(words)), "")


def _standing(due: date, today: date) -> str:
    """Return where a task due on `due` stands: "overdue", "today", "tomorrow", or "later"."""
    if due < today:
        return "overdue"
    if due == today:
        return "today"
    return "tomorrow" if due == today + timedelta(days=1) else "later"


def _is_day(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def foreign_dates(markdown: str, material: Material) -> str:
    """Return what is wrong with the first task bullet giving a date no collected task has ("" for none).

    Once told where each task goes, the 1.5B ended every bullet with " - 2026-12-14", the last day the collector's
    summary names ("due or scheduled by 2026-12-14"): a date of no task, beside each task's own.
    """
    tasks = [task for item in material.items for task in item.tasks]
    if not tasks:
        return ""
    known = {day for task in tasks for day in (task.due, task.scheduled, task.start) if day}
    known |= {day for task in tasks for day in _ISO_DAY.findall(task.text)}
    if material.as_of:
        known.add(material.as_of)
    for line in markdown.split("\n"):
        if not _LIST_ITEM.match(line) or not _DUE.search(line):
            continue
        other = next((day for day in _ISO_DAY.findall(line) if day not in known), None)
        if other:
            return (
                f'markdown gives "{_shown(line)}" the date {other}, which no task given has: keep each task\'s dates '
                "exactly as given, and add none"
            )
    return ""


def _shown(line: str) -> str:
    """Return a list item as the repair's words quote it: without its bullet, cut to 80 characters."""
    item = _LIST_ITEM.sub("", line).strip()
    return item if len(item) <= 80 else f"{item[:77]}..."
