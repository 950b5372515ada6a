"""The Tasks plugin's recurrence rules (`🔁 every week`) that are computed here, and the next date each gives.

The plugin reads a rule with the rrule library and takes the first date strictly after the base date: the task's
reference date, or today for a rule ending in "when done". Only the common rules are read here; any other rule
(`every month on the last`, `every January`, ...) reads as None, so the caller can say so instead of guessing.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

Unit = Literal["day", "week", "month", "year"]
_UNITS: dict[str, Unit] = {"day": "day", "week": "week", "month": "month", "year": "year"}

# rrule's own spellings of the weekdays (its English tokens), matched as whole words here; Monday is 0 as in Python.
_WEEKDAYS = {
    **dict.fromkeys(("mo", "mon", "monday"), 0),
    **dict.fromkeys(("tu", "tue", "tues", "tuesday"), 1),
    **dict.fromkeys(("we", "wed", "wedn", "wednesday"), 2),
    **dict.fromkeys(("th", "thu", "thur", "thursday"), 3),
    **dict.fromkeys(("fr", "fri", "friday"), 4),
    **dict.fromkeys(("sa", "sat", "saturday"), 5),
    **dict.fromkeys(("su", "sun", "sunday"), 6),
}
_DAY = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
_JOIN = r"(?:\s*(?:,|\band\b|\bor\b))+\s*"  # rrule joins days with ",", "and", "or"
_DAYS = rf"(?P<days>(?:{_DAY})(?:{_JOIN}(?:{_DAY}))*)"
_INTERVAL = r"(?:(?P<interval>[1-9][0-9]*) )?"  # rrule's numbers: no 0, no leading zero, no words ("two")
_PERIOD = re.compile(rf"every {_INTERVAL}(?P<unit>day|week|month|year)s?")
_WEEK_ON_DAYS = re.compile(rf"every {_INTERVAL}weeks? on {_DAYS}")
_NAMED_DAYS = re.compile(rf"every {_DAYS}")
_WEEKDAY = re.compile(r"every weekdays?")
_WHEN_DONE = " when done"


@dataclass(frozen=True, slots=True)
class Recurrence:
    """A rule the next date can be computed for: every `interval` days, weeks, months or years.

    `weekdays` (Monday = 0) are the days a weekly rule names ("every weekday", "every Monday"); empty means the base
    date's own weekday ("every week").
    """

    unit: Unit
    interval: int = 1
    weekdays: frozenset[int] = frozenset()
    is_when_done: bool = False


def parse_recurrence(text: str) -> Recurrence | None:
    """Return the rule `text` states ("every 2 weeks when done"), or None when it is not one computed here."""
    words = " ".join(text.lower().split())  # rrule reads words, however they are spaced
    is_when_done = words.endswith(_WHEN_DONE)
    rule = words.removesuffix(_WHEN_DONE)
    if _WEEKDAY.fullmatch(rule):
        return Recurrence("week", weekdays=frozenset(range(5)), is_when_done=is_when_done)
    if (match := _PERIOD.fullmatch(rule)) is not None:
        return Recurrence(_UNITS[match["unit"]], int(match["interval"] or 1), is_when_done=is_when_done)
    if (match := _WEEK_ON_DAYS.fullmatch(rule)) is not None:
        days = _named_days(match["days"])
        return Recurrence("week", int(match["interval"] or 1), days, is_when_done=is_when_done)
    if (match := _NAMED_DAYS.fullmatch(rule)) is not None:
        return Recurrence("week", weekdays=_named_days(match["days"]), is_when_done=is_when_done)
    return None


def _named_days(text: str) -> frozenset[int]:
    return frozenset(_WEEKDAYS[word] for word in re.findall(r"[a-z]+", text) if word in _WEEKDAYS)


def next_date(rule: Recurrence, base: date) -> date:
    """Return the rule's first date after `base` (the reference date, or today for "when done").

    A month or year without the base's day gives that month's last day, as the plugin does: 31 January + 1 month
    is 28 (or 29) February, and 29 February + 1 year is 28 February.
    """
    if rule.unit == "day":
        return base + timedelta(days=rule.interval)
    if rule.unit == "month":
        return add_months(base, rule.interval)
    if rule.unit == "year":
        return add_months(base, 12 * rule.interval)
    return _next_weekly(rule, base)


def add_months(day: date, months: int) -> date:
    """Return `day` moved by whole months, clamped to the last day of a shorter month."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


def _next_weekly(rule: Recurrence, base: date) -> date:
    # rrule counts weeks (Monday to Sunday) from the base date's week: "every 2 weeks on Monday" takes the named
    # days of every second week, starting with the base's own week.
    weekdays = rule.weekdays or frozenset({base.weekday()})
    base_week = base - timedelta(days=base.weekday())
    day = base + timedelta(days=1)
    while True:
        week = (day - timedelta(days=day.weekday()) - base_week).days // 7
        if day.weekday() in weekdays and week % rule.interval == 0:
            return day
        day += timedelta(days=1)
