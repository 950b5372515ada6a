"""When each note was made, by its creation-date property ("Which notes did I create in 2023?").

A file's creation time is not kept on every system, and syncing or copying a vault rewrites it; what vaults keep is a
property their templates fill in (`created: 2023-09-12` in kepano-obsidian, `date created` in others). Asked which
notes it created in 2023, the 0.5B listed three notes of its passages, one of them made that year. The dates are read
here from any property named like one (case, spaces, "-" and "_" ignored); a value that is no date ("{{date}}" of a
template) counts as none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from agent.tools.snapshot import VaultSnapshot, unwrap_note_ref
from core.domain import Note
from rag.notes.frontmatter import property_day

# Property names meaning "created", written without case, spaces, "-" and "_".
_CREATION_NAMES = frozenset(
    {"created", "createdat", "createdon", "createddate", "creationdate", "creationtime", "datecreated", "dateadded"}
)
_ISO_DAY = re.compile(r"^\s*\d{4}-\d{2}-\d{2}(?!\d)")


@dataclass(frozen=True, slots=True)
class CreatedNotes:
    """The notes with a creation date, latest first, and what the dates were read from."""

    dated: list[tuple[date, str]]  # (day created, path), latest first, then by path
    property_names: tuple[str, ...]  # the property names the dates came from, as written, most used first
    undated: int  # notes without such a date


def created_notes(snapshot: VaultSnapshot, *, templates: str | None = None) -> CreatedNotes:
    """Return the notes of the vault by their creation-date property, none of the `templates` folder counted."""
    dated: list[tuple[date, str]] = []
    names: dict[str, int] = {}
    notes = {
        path: note for path, note in snapshot.notes.items() if not (templates and snapshot.in_folder(path, templates))
    }
    for path, note in notes.items():
        if (found := creation_date(note)) is not None:
            name, day = found
            dated.append((day, path))
            names[name] = names.get(name, 0) + 1
    dated.sort(key=lambda item: (-item[0].toordinal(), item[1].casefold()))
    ranked = tuple(sorted(names, key=lambda name: -names[name]))
    return CreatedNotes(dated, ranked, len(notes) - len(dated))


def creation_date(note: Note) -> tuple[str, date] | None:
    """Return the creation-date property of `note` (its name as written) and the day it gives, or None."""
    for name, value in note.frontmatter.items():
        if _key(name) in _CREATION_NAMES and (day := _day_of(value)) is not None:
            return name, day
    return None


def _key(name: str) -> str:
    return re.sub(r"[\s_-]+", "", name).casefold()


def _day_of(value: object) -> date | None:
    """Return the day a property value gives (a date, a date and time, "2023-09-12…", "[[2023-09-12]]"), or None."""
    if not isinstance(value, str):
        return property_day(value)
    day = unwrap_note_ref(value.strip())
    return property_day(day) if _ISO_DAY.match(day) else None  # "2023-09-123" is no day
