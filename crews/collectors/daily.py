"""`daily.note`: the daily note of a date, where Obsidian's Daily notes settings put it (it may not exist yet)."""

from __future__ import annotations

from datetime import date
from pathlib import PurePosixPath

from pydantic import Field, field_validator

from core.errors import InvalidRequest
from crews.collectors.base import CollectContext, Collector, CollectorError, CollectorParams
from crews.collectors.notes import VaultNotes
from crews.model import Material, MaterialItem
from rag.notes.moment import parse_day
from rag.notes.obsidian_config import daily_note_path, daily_notes_config


class DailyNoteParams(CollectorParams):
    """Params of daily.note."""

    date: str = Field("today", description="The day: 'today', 'yesterday', 'tomorrow' or YYYY-MM-DD.")
    include_content: bool = Field(True, description="Give the model the note's text.")

    @field_validator("date")
    @classmethod
    def _is_a_day(cls, value: str) -> str:
        try:
            parse_day(value, date.today())
        except InvalidRequest as exc:
            raise ValueError(exc.message) from exc
        return value


def gather_daily_note(params: DailyNoteParams, context: CollectContext) -> Material:
    """Collect the daily note of the day asked (one item; no hash and no text when it does not exist yet)."""
    vault = VaultNotes.open(context)
    day = parse_day(params.date, context.today)
    try:
        path = daily_note_path(daily_notes_config(vault.scan.root), day)
    except InvalidRequest as exc:
        raise CollectorError(f"the Daily notes settings cannot be used: {exc.message}") from exc
    if vault.is_excluded(path):
        raise CollectorError(f"the daily note {path} is in a private or ignored folder; crews never read it")
    label = f"{day.isoformat()} ({day.strftime('%A')})"
    note = vault.read(path) if path in vault.scan.notes else None
    if note is None and (path in vault.scan.notes or (vault.scan.root / path).exists()):
        reason = vault.skipped[-1] if vault.skipped else f"{path}: not a note the vault scan lists (a symlink?)"
        raise CollectorError(f"the daily note cannot be read: {reason}")
    if note is None:
        item = MaterialItem(path=path, content_hash=None, title=PurePosixPath(path).stem)
        summary = f"the daily note of {label} ({path}) does not exist yet"
    else:
        item = MaterialItem(
            path=path,
            content_hash=note.content_hash,
            title=note.title,
            frontmatter=vault.shown_frontmatter(note),
            text=vault.shown_text(note.body) if params.include_content else None,
        )
        summary = f"the daily note of {label} ({path})"
    return Material(collector="daily.note", items=(item,), summary=summary, as_of=context.today.isoformat())


DAILY_NOTE = Collector(
    name="daily.note",
    params=DailyNoteParams,
    gather=gather_daily_note,
    description="The daily note of a date (today by default), at the path the Daily notes settings give.",
)
