"""Each line of note text once per turn: a line an embed repeats in another passage is sent where it is written.

A note that embeds another (`![[Garlic]]` in a map of content, `![[Half Marathon Plan#^race-goal]]` in a daily
note) is indexed with the embedded text in place, as Obsidian shows it, so a search for that text finds both notes
and both passages carried it: in sample_vault's golden set, 4 % of the passage text sent to the model was such a
repeat, and up to 29 % of one question's (three notes embedding the sourdough recipe). A small model reads every
repeated token before its first word, and a repeat pushes other text out of ANSWER_PASSAGE_CHARS. The copy kept is
the one in the note that holds the line itself, which is the note to cite: the embedding note's copy is dropped
whichever ranks first, and a passage left with nothing of its own (only its embed lines and headings) is dropped.
A table whose header row went that way loses its delimiter row too: on kepano-obsidian the category notes embedding
a base view sent "| --- | --- | --- | --- | --- |" alone, their header and rows being in a better-ranked passage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from core.domain import Chunk
from rag.chunks.pieces import TABLE_DIVIDER

# Shorter lines repeat by chance across notes ("- [ ] Water the plants", a table rule, "## Notes").
MIN_REPEATED_CHARS = 40
_EMBED = "![["
_OWN_LINE_ONLY = re.compile(r"#{1,6}\s.*|!\[\[[^\]]*\]\]")  # a heading, or an embed alone on its line


def without_repeated_lines(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Return `chunks` (best first) with each line of MIN_REPEATED_CHARS or more in one of them only.

    A line is kept in the first chunk that has it outside an embed (after no `![[` of that chunk), else in the
    first chunk that has it; other copies are removed, and a table's header and delimiter rows with them when
    none of its rows is left. A chunk left with no line of its own but embeds, headings and blank lines is left
    out.
    """
    long_lines = [_long_lines(chunk.text) for chunk in chunks]
    embedded_first = [dict(reversed(lines)) for lines in long_lines]  # a line's first copy in a chunk decides
    keeper: dict[str, int] = {}
    for rank, lines in enumerate(long_lines):
        for key, is_embedded in lines:
            if key not in keeper or (not is_embedded and embedded_first[keeper[key]][key]):
                keeper[key] = rank
    kept: list[Chunk] = []
    for rank, chunk in enumerate(chunks):
        rows = chunk.text.split("\n")
        remaining = [row for row in rows if keeper.get(row.strip(), rank) == rank]
        if len(remaining) == len(rows):
            kept.append(chunk)
        elif _says_something(remaining := _whole_tables(remaining)):
            kept.append(replace(chunk, text=_tidied("\n".join(remaining))))
    return kept


def _long_lines(text: str) -> list[tuple[str, bool]]:
    """Return each long line of `text` (stripped) and whether an embed comes before it in `text`."""
    found: list[tuple[str, bool]] = []
    is_after_embed = False
    for row in text.split("\n"):
        key = row.strip()
        if len(key) >= MIN_REPEATED_CHARS:
            found.append((key, is_after_embed))
        is_after_embed = is_after_embed or _EMBED in row
    return found


def _whole_tables(rows: list[str]) -> list[str]:
    """Return `rows` without what removed lines left of a table.

    That is a delimiter row with no header row above it, or a header and delimiter row with no row under them.
    """
    dropped: set[int] = set()
    for index, row in enumerate(rows):
        if not _is_delimiter(row):
            continue
        has_header = index > 0 and _is_table_row(rows[index - 1])
        if not has_header:
            dropped.add(index)
        elif index + 1 == len(rows) or not _is_table_row(rows[index + 1]):
            dropped.update((index - 1, index))
    return [row for index, row in enumerate(rows) if index not in dropped]


def _is_table_row(row: str) -> bool:
    return row.lstrip().startswith("|")


def _is_delimiter(row: str) -> bool:
    """Return True for a table's delimiter row (a pipe in it: "---" alone is a rule or a frontmatter fence)."""
    return "|" in row and bool(TABLE_DIVIDER.match(row))  # "| --- | :-: |" under a header, as chunking reads it


def _says_something(rows: Sequence[str]) -> bool:
    """Return True when `rows` hold a line besides embeds, headings, table delimiter rows and blanks."""
    return any((key := row.strip()) and not _OWN_LINE_ONLY.fullmatch(key) and not _is_delimiter(key) for row in rows)


def _tidied(text: str) -> str:
    """Return `text` with the runs of blank lines a removed line leaves as one."""
    rows: list[str] = []
    for row in text.split("\n"):
        if not row.strip() and rows and not rows[-1].strip():
            continue
        rows.append(row)
    return "\n".join(rows).strip("\n")
