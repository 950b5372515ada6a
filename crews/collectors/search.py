"""`search`: the notes hybrid search finds for a query; each item holds the note's passages that matched."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field

from core.domain import SearchFilters, SearchHit
from crews.collectors.base import CollectContext, Collector, CollectorError, CollectorParams
from crews.collectors.notes import NoteText, VaultNotes
from crews.collectors.tasknotes import folder_values
from crews.model import Material, MaterialItem

DEFAULT_K = 8
MAX_K = 50


def _listed(value: object) -> object:
    return [value] if isinstance(value, str) else value


class SearchParams(CollectorParams):
    """Params of search."""

    query: str = Field(min_length=1, max_length=2_000, description="What to search for, in words.")
    k: int = Field(DEFAULT_K, ge=1, le=MAX_K, description="How many passages to retrieve (notes may repeat).")
    folder: str = Field("", description="Only notes under this folder.")
    tags: Annotated[tuple[str, ...], BeforeValidator(_listed)] = Field((), description="Only notes with a tag.")


def _passages(hits: list[SearchHit]) -> str:
    parts = []
    for hit in hits:
        where = " > ".join(hit.chunk.heading_path)
        parts.append(f"[{where}]\n{hit.chunk.text.strip()}" if where else hit.chunk.text.strip())
    return "\n\n".join(parts)


def gather_search(params: SearchParams, context: CollectContext) -> Material:
    """Collect the notes of the best passages for the query, best first, one item per note."""
    if context.search is None:
        raise CollectorError("the search collector needs the search index; run `librarian index` first")
    vault = VaultNotes.open(context)
    folder = vault.folder(params.folder)
    filters = SearchFilters(folder=folder or None, tags=tuple(tag.lstrip("#") for tag in params.tags))
    hits = context.search(params.query, params.k, None if filters.is_empty else filters)
    by_note: dict[str, list[SearchHit]] = {}
    for hit in hits:
        by_note.setdefault(hit.chunk.path, []).append(hit)
    notes: list[tuple[NoteText, list[SearchHit]]] = []
    for path, note_hits in by_note.items():
        if path not in vault.scan.notes or vault.in_crew_root(path) or vault.is_template(path):
            continue  # gone, private or ignored since it was indexed
        note = vault.read(path)
        if note is not None:
            notes.append((note, note_hits))
    items = tuple(
        MaterialItem(
            path=note.path,
            content_hash=note.content_hash,
            title=note.title,
            frontmatter=vault.shown_frontmatter(note),
            text=vault.shown_text(_passages(note_hits)),
        )
        for note, note_hits in notes
    )
    summary = f"{len(items)} note(s) found for {params.query!r}" + (f" in {folder}/" if folder else "")
    if vault.skipped:
        summary += f"; {len(vault.skipped)} hit note(s) no longer readable"
    values = folder_values([note for note, _ in notes])
    return Material(collector="search", items=items, folder_values=values, summary=summary)


SEARCH = Collector(
    name="search",
    params=SearchParams,
    gather=gather_search,
    description="The notes hybrid search finds for a query, with the passages that matched.",
)
