"""Embedded base views in the passages a model reads: `![[Trips.base#Location]]` becomes the rows Obsidian shows.

Vaults organised around Bases (kepano's, the one Obsidian's own CEO publishes, has 61 embeds) keep what a note
"says" in the views it embeds: the Kyoto note's "Trips" section is only `![[Trips.base#Location]]`, which Obsidian
renders as the trips whose `loc` lists Kyoto. A passage holding the embed as written tells a model nothing, so
"When was I in Kyoto?" was refused with the answer one view away. The view is computed where the note shows it
(`this` is the embedding note, as in Obsidian) when the passages are built, never at index time: its rows change
with other notes, which re-indexing this one would not notice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from agent.tools.bases.tool import find_base, parse_base, pick_view, view_table
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from core.domain import SearchHit
from core.errors import AppError
from rag.answer.code_spans import code_ranges, is_inside
from rag.answer.secrets import redact_secrets

EMPTY_VIEW = "(The base view '{view}' shown here lists no notes.)"
_EMPTY_VIEW = re.compile(re.escape(EMPTY_VIEW).replace(re.escape("{view}"), r"[^\n]*?"))
_HEADING_LINE = re.compile(r"^#{1,6}\s.*$", re.M)
MAX_EMBED_ROWS = 20  # rows of one embedded view in a passage; the passage budget trims further
# `![[Trips.base]]`, `![[Bases/Trips.base#Location]]`, `![[Trips.base#Location|alias]]`: the file, then the view.
BASE_EMBED = re.compile(r"!\[\[(?P<base>[^\[\]|#\n]+?\.base)(?:#(?P<view>[^\[\]|\n]*))?(?:\|[^\[\]\n]*)?\]\]")


class BaseEmbeds:
    """Write out the base views that hits embed, as the notes embedding them show them."""

    def __init__(self, reader: VaultReader, *, max_rows: int = MAX_EMBED_ROWS) -> None:
        self._reader = reader
        self._max_rows = max_rows

    def expand(self, hits: Sequence[SearchHit]) -> list[SearchHit]:
        """Return `hits` with each base embed replaced by its view's rows (hits without one are unchanged).

        A hit that is only views listing no notes is left out: it holds nothing of the notes, and the 0.5B, asked
        "What's overdue?" over kepano's vault, answered with a daily note's "(The base view 'Daily notes' shown
        here lists no notes.)".
        """
        if not any(BASE_EMBED.search(hit.chunk.text) for hit in hits):
            return list(hits)
        snapshot = self._reader.snapshot()
        expanded: list[SearchHit] = []
        for hit in hits:
            text = self.written_out(hit.chunk.text, hit.chunk.path, snapshot)
            if text == hit.chunk.text:
                expanded.append(hit)
            elif _EMPTY_VIEW.sub("", _HEADING_LINE.sub("", text)).strip():
                expanded.append(replace(hit, chunk=replace(hit.chunk, text=text)))
        return expanded

    def written_out(self, text: str, host: str, snapshot: VaultSnapshot) -> str:
        """Return `text` of the note at `host` with each base embed replaced by its view's rows."""
        if not BASE_EMBED.search(text):
            return text
        code = code_ranges(text)  # `![[Trips.base]]` in a note about Bases' syntax is shown as written

        def view_or_code(embed: re.Match[str]) -> str:
            if is_inside(code, embed.start(), embed.end()):
                return embed[0]
            view = self._view_text(snapshot, embed, host=host)
            return view if view == embed[0] else _set_apart(view, text, embed.start(), embed.end())

        return BASE_EMBED.sub(view_or_code, text)

    def _view_text(self, snapshot: VaultSnapshot, embed: re.Match[str], *, host: str) -> str:
        """Return the view's rows as a table, or the embed as written when the base cannot be read."""
        try:
            path = find_base(snapshot, embed["base"].strip())
            base = parse_base(path, self._reader.read_text(snapshot, path))
            view = pick_view(base, embed["view"] or "")
            table = view_table(self._reader, snapshot, base, view, self._max_rows + 1, this_path=host)
        except AppError:  # a missing or broken base: Obsidian shows an error there; the passage keeps the embed
            return embed[0]
        shown = table.anchors[: self._max_rows]
        if not shown:
            return EMPTY_VIEW.format(view=view.name)
        lines = table.table.split("\n")[: 2 + len(shown)]
        # No caption: a count in one ("2 rows") would be a number an answer's list numbers match as evidence.
        notes = ["(More rows of this view are not shown.)"] if len(table.anchors) > len(shown) else []
        notes += (
            ["(Rows marked (?) passed only the filters that could be checked here.)"] if table.has_uncertain else []
        )
        shown_rows = "\n".join([*lines, *notes])
        # Other notes' property values: masked as their text is where it reaches a model.
        return redact_secrets(shown_rows) if self._reader.redacts_secrets else shown_rows


def _set_apart(view: str, text: str, start: int, end: int) -> str:
    """Return `view` with a blank line between it and a line of `text` right before or after the embed it replaces.

    Obsidian shows each embed as a block of its own; written out, two views on consecutive lines (kepano's Kyoto
    note: `![[Map.base#Location]]` then `![[Places.base#Location]]`) read as one table, and so would a line of text
    right under a view's rows.
    """
    line_before = text[: max(start - 1, 0)].rpartition("\n")[2] if text[start - 1 : start] == "\n" else ""
    # A view on the line before is set apart by its own blank line after it.
    before = "\n" if line_before.strip() and not BASE_EMBED.fullmatch(line_before.strip()) else ""
    after = "\n" if text[end : end + 1] == "\n" and text[end + 1 : end + 2] not in ("", "\n") else ""
    return f"{before}{view}{after}"
