"""The `search_notes` tool: hybrid search over the index, each passage delimited with its citation."""

from __future__ import annotations

from pydantic import Field, field_validator

from agent.tools.bases.embeds import BaseEmbeds
from agent.tools.definition import Tool, ToolArgs
from agent.tools.outcome import Reply, note_part, reply
from agent.tools.reader import VaultReader
from core.domain import SearchFilters


class SearchArgs(ToolArgs):
    """Arguments of search_notes."""

    query: str = Field(description="A question or keywords, in the user's words.")
    folder: str = Field("", description="Only this folder and its sub-folders, e.g. 'Areas/Garden'.")
    tags: list[str] = Field(
        default_factory=list, description="Only notes with any of these tags (no '#'; sub-tags included)."
    )
    k: int = Field(6, ge=1, le=20, description="How many passages.")

    @field_validator("tags", mode="before")
    @classmethod
    def _one_tag_as_list(cls, value: object) -> object:
        """Accept "a, b" for ["a", "b"]: models often send one string where a list is asked for."""
        return [tag for tag in value.split(",") if tag.strip()] if isinstance(value, str) else value


def run_search(reader: VaultReader, args: SearchArgs) -> Reply:
    """Return the best passages for the query, best first, each as a delimited note excerpt."""
    folder = reader.snapshot().require_folder(args.folder) if args.folder.strip() else ""
    tags = tuple(tag.strip().lstrip("#") for tag in args.tags if tag.strip().lstrip("#"))
    hits = reader.search(args.query, k=args.k, filters=SearchFilters(folder=folder or None, tags=tags))
    hits = BaseEmbeds(reader).expand(hits)  # `![[Trips.base#Location]]`: the rows the note shows
    if not hits:
        scope = f" in '{folder}'" if folder else ""
        scope += f" tagged {', '.join('#' + tag for tag in tags)}" if tags else ""
        return reply(f"No passages found{scope} for '{args.query}'. Try other words, or drop the filters.")
    parts = [
        note_part(
            hit.chunk.path,
            hit.chunk.anchor,
            hit.chunk.text,
            rank=str(rank),
            lines=f"{hit.chunk.line_start}-{hit.chunk.line_end}",
        )
        for rank, hit in enumerate(hits, start=1)
    ]
    header = f"{len(hits)} passage(s), best first. Cite them with their source link."
    return reply(header, *parts, more_hint="Ask for fewer passages (k) or read one note with read_note.")


SEARCH_NOTES = Tool(
    name="search_notes",
    description="Search the notes by meaning and keywords; returns passages, each with its citation link.",
    args=SearchArgs,
    handler=run_search,
)
