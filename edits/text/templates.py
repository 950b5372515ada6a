"""Templates filled in for a new note as Obsidian fills them: {{title}}, {{date}}, {{time}}, Moment.js formats.

The core Templates plugin replaces `{{title}}` with the note's name and `{{date}}` / `{{time}}` with now in its
`dateFormat` / `timeFormat`; `{{date:FORMAT}}` and `{{time:FORMAT}}` take any Moment.js format. The Daily notes plugin
renders the same placeholders for the note's own day, plus `{{yesterday}}`, `{{tomorrow}}` and offsets such as
`{{date+1d:dddd}}` (as obsidian-daily-notes-interface does). Templater's `<% ... %>` commands are not run: they stay
as written, for Templater to run when the note is opened in Obsidian.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from core.errors import AppError, NotFound
from rag.notes.moment import format_moment
from rag.notes.obsidian_config import DailyNotesConfig

DAILY_TIME_FORMAT = "HH:mm"  # the Daily notes plugin's {{time}}, whatever the Templates plugin says

# Time tokens (Moment.js) that `format_moment` leaves to us; "[...]" literals are matched so they stay whole.
_TIME_TOKEN = re.compile(r"\[[^\]]*\]|HH?|hh?|kk?|mm?|ss?|S{1,3}|A|a|X|x|ZZ?")
_DATE_TIME = re.compile(r"{{\s*(date|time)\s*(?:([+-]\d+)\s*([yqmwdhs]))?\s*(?::(.*?))?}}", re.IGNORECASE)
_TITLE = re.compile(r"{{\s*title\s*}}", re.IGNORECASE)
_NEIGHBOUR_DAY = re.compile(r"{{\s*(yesterday|tomorrow)\s*}}", re.IGNORECASE)


def _offset(moment: datetime) -> str:
    aware = moment if moment.tzinfo is not None else moment.astimezone()
    minutes = int((aware.utcoffset() or timedelta()).total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _time_value(token: str, moment: datetime) -> str:
    hour12 = moment.hour % 12 or 12
    values = {
        "HH": f"{moment.hour:02d}",
        "H": str(moment.hour),
        "hh": f"{hour12:02d}",
        "h": str(hour12),
        "kk": f"{moment.hour or 24:02d}",
        "k": str(moment.hour or 24),
        "mm": f"{moment.minute:02d}",
        "m": str(moment.minute),
        "ss": f"{moment.second:02d}",
        "s": str(moment.second),
        "SSS": f"{moment.microsecond // 1000:03d}",
        "SS": f"{moment.microsecond // 10000:02d}",
        "S": str(moment.microsecond // 100000),
        "A": "AM" if moment.hour < 12 else "PM",
        "a": "am" if moment.hour < 12 else "pm",
        "X": str(int(moment.timestamp())),
        "x": str(int(moment.timestamp() * 1000)),
        "Z": _offset(moment),
        "ZZ": _offset(moment).replace(":", ""),
    }
    return values[token]


def format_moment_time(fmt: str, moment: datetime) -> str:
    """Format `moment` with a Moment.js format that may hold time tokens too ("YYYY-MM-DD HH:mm", "h:mm A")."""

    def literal_time(match: re.Match[str]) -> str:
        token = match[0]
        # A filled-in time becomes a "[literal]" so format_moment leaves it alone; values never hold "]".
        return token if token.startswith("[") else f"[{_time_value(token, moment)}]"

    return format_moment(_TIME_TOKEN.sub(literal_time, fmt), moment.date())


def _add_months(moment: datetime, months: int) -> datetime:
    """Add calendar months, keeping the day within the target month (Jan 31 + 1 month = Feb 28), as Moment does."""
    month_index = moment.month - 1 + months
    year, month = moment.year + month_index // 12, month_index % 12 + 1
    return moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))


def shift_moment(moment: datetime, amount: int, unit: str) -> datetime:
    """Return `moment` moved by `amount` Moment.js units (y, Q, M months, w, d, h, m minutes, s)."""
    if unit == "M" or unit.lower() in ("y", "q"):
        per_unit = {"y": 12, "q": 3, "m": 1}[unit.lower()]
        return _add_months(moment, amount * per_unit)
    seconds = {"w": 604_800, "d": 86_400, "h": 3_600, "m": 60, "s": 1}[unit.lower()]
    return moment + timedelta(seconds=amount * seconds)


@dataclass(frozen=True, slots=True)
class TemplateValues:
    """What a template's placeholders are filled with: the moment, the note's title, the default formats."""

    moment: datetime
    title: str
    date_format: str
    time_format: str


def render_template(text: str, values: TemplateValues) -> str:
    """Return the template with {{title}}, {{date}}, {{time}}, {{date:FORMAT}} and {{time:FORMAT}} filled in."""

    def date_or_time(match: re.Match[str]) -> str:
        kind, amount, unit, fmt = match[1].lower(), match[2], match[3], match[4]
        moment = shift_moment(values.moment, int(amount), unit) if amount else values.moment
        default = values.date_format if kind == "date" else values.time_format
        return format_moment_time(fmt.strip() if fmt and fmt.strip() else default, moment)

    # Dates first: a title is the user's text and must not be read as placeholders.
    return _TITLE.sub(lambda _: values.title, _DATE_TIME.sub(date_or_time, text))


def render_daily_template(text: str, *, day: date, now: datetime, daily_format: str) -> str:
    """Return a daily-note template filled in for `day` (not today): {{date}} and {{title}} are its name.

    Args:
        text: the template's text.
        day: the daily note's date.
        now: the current time; {{time}} is now, on the note's day.
        daily_format: the Daily notes plugin's file-name format, also used for {{date}}.

    """
    moment = datetime.combine(day, now.timetz())
    values = TemplateValues(moment, format_moment(daily_format, day), daily_format, DAILY_TIME_FORMAT)

    def neighbour(match: re.Match[str]) -> str:
        return format_moment(daily_format, day + timedelta(days=-1 if match[1].lower() == "yesterday" else 1))

    return render_template(_NEIGHBOUR_DAY.sub(neighbour, text), values)


def new_daily_note_text(
    config: DailyNotesConfig,
    *,
    day: date,
    now: datetime,
    find_note: Callable[[str], str],
    read: Callable[[str], str | None],
) -> str:
    """Return the text a new daily note of `day` starts with: the Daily notes template filled in for it, or "".

    Args:
        config: the Daily notes settings (their `template` names the template note, as a link would).
        day: the daily note's date.
        now: the current time ({{time}}).
        find_note: the path of the note a setting names, resolved as Obsidian resolves a link; raises AppError.
        read: a note's exact text, None when it does not exist.

    Raises:
        NotFound: the template setting names no note, or the note is gone.

    """
    if not config.template:
        return ""
    try:
        path = find_note(config.template)
    except AppError as exc:
        raise NotFound(
            f"the daily notes template {config.template!r} cannot be used ({exc}); fix Settings > Daily notes > "
            "Template file location, or clear it to create daily notes empty"
        ) from exc
    text = read(path)
    if text is None:
        raise NotFound(f"the daily notes template {path!r} no longer exists")
    return render_daily_template(text, day=day, now=now, daily_format=config.format)
