"""The `daily_note` tool: where the daily note of a date lives (Daily notes plugin settings) and its text."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field

from agent.tools.definition import Tool, ToolArgs
from agent.tools.outcome import Part, Reply, note_part, reply
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from core.errors import NotFound
from rag.notes.moment import parse_day
from rag.notes.obsidian_config import daily_note_path as shared_daily_note_path

DATE_DESCRIPTION = "YYYY-MM-DD, 'today', 'yesterday' or 'tomorrow'; empty: today."
# Words of a message about one day's note (agent.tools.cues); a written date counts as "date".
DAY_CUES = (
    "daily", "day", "today", "yesterday", "tomorrow", "tonight", "morning", "evening", "journal", "diary", "date",
    "week", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "heute", "gestern",
    "morgen", "tagebuch", "tagesnotiz", "woche", "montag", "dienstag", "mittwoch", "donnerstag", "freitag",
    "samstag", "sonntag",
)  # fmt: skip


def daily_note_path(reader: VaultReader, snapshot: VaultSnapshot, day: date) -> str:
    """Return the vault path the daily note of `day` has, or would have once created."""
    return shared_daily_note_path(reader.daily_notes_config(snapshot), day)


def existing_daily_note(reader: VaultReader, snapshot: VaultSnapshot, day: date) -> str:
    """Return the path of the daily note of `day`, or raise NotFound saying where it was expected."""
    path = daily_note_path(reader, snapshot, day)
    if path not in snapshot.notes:
        raise NotFound(f"there is no daily note for {day.isoformat()} (it would be {path})")
    return path


class DailyNoteArgs(ToolArgs):
    """Arguments of daily_note."""

    command: Literal["read", "path"] = Field(
        description="read: its text; path: where it is (or would be) and whether it exists."
    )
    date: str = Field("", description=DATE_DESCRIPTION)


def run_daily_note(reader: VaultReader, args: DailyNoteArgs) -> Reply:
    """Return the daily note of a date, or its path and whether it exists."""
    snapshot = reader.snapshot()
    day = parse_day(args.date, reader.today())
    label = f"{day.isoformat()} ({day.strftime('%A')})"
    if args.command == "path":
        path = daily_note_path(reader, snapshot, day)
        if path in snapshot.notes:
            anchor = snapshot.anchor(path)
            return reply(Part(f"The daily note for {label} is {path} {anchor}; it exists.", (anchor,)))
        return reply(f"The daily note for {label} would be {path}; it does not exist yet.")
    path = existing_daily_note(reader, snapshot, day)
    anchor = snapshot.anchor(path)
    return reply(note_part(path, anchor, reader.read_text(snapshot, path), date=day.isoformat()))


DAILY_NOTE = Tool(
    name="daily_note",
    description="Read the daily note of a day (the journal note named after its date), or find its path.",
    args=DailyNoteArgs,
    handler=run_daily_note,
    cues=DAY_CUES,
)
