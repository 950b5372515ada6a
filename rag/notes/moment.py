"""Dates as the tools take them ("2026-11-05", "today") and as Obsidian names daily notes (Moment.js formats)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta

from core.errors import InvalidRequest

_RELATIVE_DAYS = {"today": 0, "yesterday": -1, "tomorrow": 1}

# Moment.js tokens, longest first so "YYYY" wins over "YY"; "[text]" is a literal (English locale).
_MOMENT_TOKEN = re.compile(
    r"\[([^\]]*)\]|YYYY|YY|Q|MMMM|MMM|MM|Mo|M|DDDD|DDD|DD|Do|D|dddd|ddd|dd|do|d|E|e|GGGG|WW|Wo|W|gggg|ww|wo|w"
)


def parse_day(text: str, today: date) -> date:
    """Return the day `text` names: "YYYY-MM-DD", "today", "yesterday", "tomorrow", or "" for today."""
    value = text.strip().lower()
    if not value:
        return today
    if value in _RELATIVE_DAYS:
        return today + timedelta(days=_RELATIVE_DAYS[value])
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise InvalidRequest(f"'{text}' is not a date: use YYYY-MM-DD, 'today', 'yesterday' or 'tomorrow'") from exc


def iso_day(text: str) -> date | None:
    """Return the day an ISO 8601 date names ("2023-09-12", "20230912"), or None when it names none ("2023-02-31")."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def ordinal(number: int) -> str:
    """Return "1st", "2nd", "3rd", "11th" ... as Moment's English "Do" prints them."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _locale_week(day: date) -> tuple[int, int]:
    """Return (week-year, week) in Moment's English locale: weeks start on Sunday, week 1 holds January 1."""
    sunday = day - timedelta(days=(day.weekday() + 1) % 7)
    week_year = (sunday + timedelta(days=6)).year
    january_first = date(week_year, 1, 1)
    first_sunday = january_first - timedelta(days=(january_first.weekday() + 1) % 7)
    return week_year, (sunday - first_sunday).days // 7 + 1


def _token_values(day: date) -> dict[str, Callable[[], str]]:
    iso_year, iso_week, iso_weekday = day.isocalendar()
    day_of_year = day.timetuple().tm_yday
    week_day = (day.weekday() + 1) % 7  # Moment's "d": Sunday is 0
    return {
        "YYYY": lambda: f"{day.year:04d}",
        "YY": lambda: f"{day.year % 100:02d}",
        "Q": lambda: str((day.month - 1) // 3 + 1),
        "MMMM": lambda: day.strftime("%B"),
        "MMM": lambda: day.strftime("%b"),
        "MM": lambda: f"{day.month:02d}",
        "Mo": lambda: ordinal(day.month),
        "M": lambda: str(day.month),
        "DDDD": lambda: f"{day_of_year:03d}",
        "DDD": lambda: str(day_of_year),
        "DD": lambda: f"{day.day:02d}",
        "Do": lambda: ordinal(day.day),
        "D": lambda: str(day.day),
        "dddd": lambda: day.strftime("%A"),
        "ddd": lambda: day.strftime("%a"),
        "dd": lambda: day.strftime("%a")[:2],
        "do": lambda: ordinal(week_day),
        "d": lambda: str(week_day),
        "E": lambda: str(iso_weekday),
        "e": lambda: str(week_day),
        "GGGG": lambda: f"{iso_year:04d}",
        "WW": lambda: f"{iso_week:02d}",
        "Wo": lambda: ordinal(iso_week),
        "W": lambda: str(iso_week),
        "gggg": lambda: f"{_locale_week(day)[0]:04d}",
        "ww": lambda: f"{_locale_week(day)[1]:02d}",
        "wo": lambda: ordinal(_locale_week(day)[1]),
        "w": lambda: str(_locale_week(day)[1]),
    }


def format_moment(fmt: str, day: date) -> str:
    """Format `day` with a Moment.js format such as "YYYY-MM-DD" or "YYYY/MM/[Week] WW" (English names)."""
    values = _token_values(day)

    def substitute(match: re.Match[str]) -> str:
        return match[1] if match[1] is not None else values[match[0]]()

    return _MOMENT_TOKEN.sub(substitute, fmt)
