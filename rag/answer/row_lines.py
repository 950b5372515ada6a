"""Which lines of its note a part of a chunk comes from, so a trimmed passage still says where it is.

A chunk knows only its first and last line. Its rows are the note's lines in order, but blank lines between blocks
are collapsed, comments are gone, secrets are masked and `![[embeds]]` add rows from other notes. So a part's lines
are found by looking its rows up in the note's text, in order; a row that is not found there (embedded text, a
masked line) widens the range to its located neighbours, so the range always holds the part.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.domain import Chunk


def part_lines(chunk: Chunk, first_row: int, last_row: int, note_text: str | None) -> tuple[int, int]:
    """Return the 1-based, inclusive file lines that rows first_row..last_row of `chunk.text` come from.

    Args:
        chunk: the chunk the part was cut from.
        first_row: the part's first row of `chunk.text` (0-based).
        last_row: its last row.
        note_text: the note's markdown as indexed; None when unknown (then the chunk's own range, which holds it).

    """
    rows = chunk.text.split("\n")
    if first_row <= 0 and last_row >= len(rows) - 1:
        return chunk.line_start, chunk.line_end
    if note_text is None:  # a count of rows cannot tell: an embedded row may stand where a blank line was dropped
        return chunk.line_start, chunk.line_end
    located = locate_rows(rows, note_text.split("\n"), chunk.line_start, chunk.line_end)
    return _widened(located, first_row, last_row, chunk.line_start, chunk.line_end)


def locate_rows(rows: Sequence[str], lines: Sequence[str], first: int, last: int) -> list[int | None]:
    """Return the 1-based line each row comes from, searched in order within first..last (None: blank or not found)."""
    found: list[int | None] = []
    pointer = first - 1
    for row in rows:
        text = row.strip()
        line = None
        if text:
            line = next((n for n in range(pointer + 1, min(last, len(lines)) + 1) if text in lines[n - 1]), None)
        if line is not None:
            pointer = line
        found.append(line)
    return found


def _widened(located: Sequence[int | None], first_row: int, last_row: int, low: int, high: int) -> tuple[int, int]:
    """Return the lines of the first and last row; an unlocated one reaches to its located neighbour's line."""
    before = [line for line in located[:first_row] if line is not None]
    after = [line for line in located[last_row + 1 :] if line is not None]
    start = located[first_row]
    if start is None:  # embedded text sits on its embed's line; a masked line follows the one before
        start = before[-1] if before else low
    end = located[last_row]
    if end is None:
        end = after[0] - 1 if after else high
    return start, max(start, end)
