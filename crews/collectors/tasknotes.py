"""`tasknotes.query`: the notes of a folder (one per task, as the TaskNotes plugin keeps them) filtered by property.

Filters: `where_missing` (the property is absent or empty), `where` (equals; a list property contains the value),
`where_in` (the value, or an item of a list property, is one of those given). A note without frontmatter has
every property missing; a note whose frontmatter does not parse is left out (and said so): no write could be
planned safely on it. Property names and text values compare case-insensitively, as Obsidian's own property
search does. `folder_values` holds every value each property has across the whole folder (not only the matched
notes): the only values an output may propose.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import BeforeValidator, Field

from crews.collectors.base import CollectContext, Collector, CollectorParams
from crews.collectors.notes import NoteText, Scalar, VaultNotes, value_strings
from crews.model import Material, MaterialItem
from rag.notes.frontmatter import property_of

DEFAULT_LIMIT = 50
MAX_LIMIT = 500


def _listed(value: object) -> object:
    return [value] if isinstance(value, str | int | float | bool) else value


Keys = Annotated[tuple[Annotated[str, Field(min_length=1)], ...], BeforeValidator(_listed)]
Values = Annotated[tuple[Scalar, ...], BeforeValidator(_listed)]


class TaskNotesParams(CollectorParams):
    """Params of tasknotes.query."""

    folder: str = Field("", description="Vault folder of the task notes (recursive); empty: the whole vault.")
    where_missing: Keys = Field((), description="Only notes where each of these properties is absent or empty.")
    where: dict[str, Scalar | tuple[Scalar, ...]] = Field(
        default_factory=dict, description="Only notes whose property equals this (a list property: contains it)."
    )
    where_in: dict[str, Values] = Field(default_factory=dict, description="Only notes whose property is one of these.")
    include_content: bool = Field(False, description="Give the model each note's text, not only its properties.")
    properties: Keys | None = Field(None, description="The properties shown to the model; default: all simple ones.")
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="At most this many notes, by path.")


def _lookup(data: Mapping[str, object], key: str) -> object:
    return property_of(data, key)[1]


def _is_missing(value: object) -> bool:
    return value is None or value in ("", [], {}) or (isinstance(value, str) and not value.strip())


def _has_any(value: object, wanted: tuple[Scalar, ...]) -> bool:
    have = {text.casefold() for text in value_strings(value)}
    return any(text.casefold() in have for text in value_strings(list(wanted)))


def is_match(data: Mapping[str, object], params: TaskNotesParams) -> bool:
    """Return True when a note's properties pass every filter of `params`."""
    if not all(_is_missing(_lookup(data, key)) for key in params.where_missing):
        return False
    for key, wanted in params.where.items():
        have = _lookup(data, key)
        if not all(_has_any(have, (one,)) for one in (wanted if isinstance(wanted, tuple) else (wanted,))):
            return False
    return all(_has_any(_lookup(data, key), values) for key, values in params.where_in.items())


def folder_values(notes: list[NoteText]) -> dict[str, frozenset[str]]:
    """Return, per property, every value the notes use (scalars, and the items of lists)."""
    found: dict[str, set[str]] = {}
    for note in notes:
        for key, value in note.frontmatter.items():
            strings = value_strings(value) if not isinstance(value, dict) else []
            if strings:
                found.setdefault(key, set()).update(strings)
    return {key: frozenset(values) for key, values in found.items()}


def _describe(params: TaskNotesParams, folder: str) -> str:
    parts = [f"missing {key}" for key in params.where_missing]
    parts += [f"{key} = {value}" for key, value in params.where.items()]
    parts += [f"{key} in {', '.join(str(v) for v in values)}" for key, values in params.where_in.items()]
    where = f"{folder}/" if folder else "the vault"
    return f"in {where}" + (f" ({'; '.join(parts)})" if parts else "")


def gather_task_notes(params: TaskNotesParams, context: CollectContext) -> Material:
    """Collect the notes of the folder that match the filters, with their properties (and text if asked)."""
    vault = VaultNotes.open(context)
    folder = vault.folder(params.folder)
    notes = [note for path in vault.paths(folder) if (note := vault.read(path)) is not None]
    broken = [note.path for note in notes if note.frontmatter_error]
    matched = [note for note in notes if not note.frontmatter_error]  # no frontmatter: every property missing
    matched = [note for note in matched if is_match(note.frontmatter, params)]
    items = tuple(
        MaterialItem(
            path=note.path,
            content_hash=note.content_hash,
            title=note.title,
            frontmatter=vault.shown_frontmatter(note, params.properties),
            text=vault.shown_text(note.body) if params.include_content else None,
        )
        for note in matched[: params.limit]
    )
    summary = f"{len(items)} note(s) {_describe(params, folder)}"
    if len(matched) > params.limit:
        summary += f"; {len(matched) - params.limit} more matched beyond the limit of {params.limit}"
    if broken:
        summary += f"; {len(broken)} note(s) with invalid frontmatter left out ({', '.join(broken[:5])})"
    if vault.skipped:
        summary += f"; {len(vault.skipped)} note(s) not readable ({'; '.join(vault.skipped[:3])})"
    return Material(collector="tasknotes.query", items=items, folder_values=folder_values(notes), summary=summary)


TASKNOTES_QUERY = Collector(
    name="tasknotes.query",
    params=TaskNotesParams,
    gather=gather_task_notes,
    description="Notes of a folder (one per task, TaskNotes style) filtered by property, with or without text.",
)
