"""Templates filled in as Obsidian fills them: {{title}}, {{date}}, {{time}}, Moment.js formats, daily-note days."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from edits.text.templates import (
    TemplateValues,
    format_moment_time,
    render_daily_template,
    render_template,
    shift_moment,
)

MOMENT = datetime(2026, 11, 20, 9, 5, 7, 250_000, tzinfo=timezone(timedelta(hours=1)))  # a Friday
VALUES = TemplateValues(MOMENT, "Kickoff", "YYYY-MM-DD", "HH:mm")


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("HH:mm", "09:05"),
        ("H:m:s", "9:5:7"),
        ("hh:mm A", "09:05 AM"),
        ("h a", "9 am"),
        ("kk", "09"),
        ("ss.SSS", "07.250"),
        ("YYYY-MM-DD HH:mm", "2026-11-20 09:05"),
        ("dddd, Do MMMM YYYY [at] h:mm", "Friday, 20th November 2026 at 9:05"),
        ("[Week] WW, [hh] HH", "Week 47, hh 09"),
        ("Z", "+01:00"),
        ("ZZ", "+0100"),
        ("X", str(int(MOMENT.timestamp()))),
    ],
)
def test_moment_formats_fill_date_and_time_tokens(fmt: str, expected: str) -> None:
    assert format_moment_time(fmt, MOMENT) == expected


def test_afternoon_and_midnight_hours_follow_moment() -> None:
    assert format_moment_time("h:mm A, hh a", MOMENT.replace(hour=15)) == "3:05 PM, 03 pm"
    assert format_moment_time("HH h k A", MOMENT.replace(hour=0)) == "00 12 24 AM"


def test_title_date_and_time_use_the_templates_plugin_formats() -> None:
    text = "# {{title}}\ncreated: {{date}} {{time}}\n"
    assert render_template(text, VALUES) == "# Kickoff\ncreated: 2026-11-20 09:05\n"
    custom = TemplateValues(MOMENT, "Kickoff", "DD.MM.YYYY", "h:mm A")
    assert render_template(text, custom) == "# Kickoff\ncreated: 20.11.2026 9:05 AM\n"


def test_explicit_formats_override_the_defaults_for_date_and_time() -> None:
    text = "{{date:dddd}} / {{time:HH:mm:ss}} / {{date:YYYY-[W]WW}} / {{date:HH}}"
    assert render_template(text, VALUES) == "Friday / 09:05:07 / 2026-W47 / 09"


def test_placeholders_ignore_case_and_spaces_inside_the_braces() -> None:
    assert render_template("{{ Title }} {{DATE}} {{ time : HH }} {{Date:YYYY}}", VALUES) == "Kickoff 2026-11-20 09 2026"


def test_date_offsets_shift_the_moment_before_formatting() -> None:
    text = "{{date+1d}} {{date-1w:YYYY-MM-DD}} {{date+1M:MMMM}} {{time+2h}} {{time+30m:HH:mm}}"
    assert render_template(text, VALUES) == "2026-11-21 2026-11-13 December 11:05 09:35"


@pytest.mark.parametrize(
    ("start", "amount", "unit", "expected"),
    [
        (datetime(2026, 1, 31), 1, "M", datetime(2026, 2, 28)),
        (datetime(2024, 2, 29), 1, "y", datetime(2025, 2, 28)),
        (datetime(2026, 11, 30), 1, "Q", datetime(2027, 2, 28)),
        (datetime(2026, 1, 31, 23, 30), 90, "m", datetime(2026, 2, 1, 1, 0)),
        (datetime(2026, 3, 1), -1, "d", datetime(2026, 2, 28)),
    ],
)
def test_shifts_follow_moment_units_and_clamp_month_ends(
    start: datetime, amount: int, unit: str, expected: datetime
) -> None:
    assert shift_moment(start, amount, unit) == expected


def test_unknown_placeholders_and_templater_code_are_left_as_written() -> None:
    text = "{{weather}} <% tp.date.now('YYYY') %> <%* tR += tp.file.title %> {{date:YYYY}}"
    assert render_template(text, VALUES) == "{{weather}} <% tp.date.now('YYYY') %> <%* tR += tp.file.title %> 2026"


def test_a_title_holding_braces_is_not_read_as_a_placeholder() -> None:
    values = TemplateValues(MOMENT, "Notes on {{date}}", "YYYY-MM-DD", "HH:mm")
    assert render_template("# {{title}}", values) == "# Notes on {{date}}"


def test_daily_templates_render_for_the_notes_own_day_not_today() -> None:
    text = "{{title}} | {{date}} | {{date:dddd D MMMM}} | {{time}} | {{yesterday}} < > {{tomorrow}} | {{date+1d}}"
    now = datetime(2026, 11, 20, 18, 45, tzinfo=UTC)
    rendered = render_daily_template(text, day=date(2026, 12, 31), now=now, daily_format="DD-MM-YYYY")
    assert rendered == "31-12-2026 | 31-12-2026 | Thursday 31 December | 18:45 | 30-12-2026 < > 01-01-2027 | 01-01-2027"


def test_daily_time_is_always_hours_and_minutes() -> None:
    now = datetime(2026, 11, 20, 7, 3, tzinfo=UTC)
    assert render_daily_template("{{time}} {{time:h A}}", day=date(2026, 11, 1), now=now, daily_format="YYYY") == (
        "07:03 7 AM"
    )
