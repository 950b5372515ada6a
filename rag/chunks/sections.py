"""The pieces of one section for the chunker: its blocks, with the text its `![[embeds]]` show after their lines."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import replace

from core.domain import Link, Section
from rag.chunks.pieces import BLOCK_SEP, LINE_SEP, Piece, parse_blocks
from rag.notes.budget import NoteBudget

EMBED_CHAR_CAP = 20_000  # an embed that shows a whole book must not flood the note that embeds it

EmbeddedText = Callable[[Link], str | None]


class EmbedShower:
    """The text each embed of one note shows: looked up once per target, and within the note's budget."""

    def __init__(self, embeds: Sequence[Link], embedded_text: EmbeddedText, budget: NoteBudget | None) -> None:
        self._embeds = sorted(embeds, key=lambda link: link.line)
        self._lines = [link.line for link in self._embeds]
        self._embedded_text = embedded_text
        self._budget = budget
        # The same embed written many times is read and cut out of its note once (that is a full scan).
        self._shown: dict[tuple[str, str | None, str | None], str] = {}

    def inside(self, section: Section) -> list[Link]:
        """Return the embeds written in `section`, in line order."""
        return self._embeds[bisect_left(self._lines, section.line_start) : bisect_right(self._lines, section.line_end)]

    def shown(self, link: Link) -> str:
        """Return the text `link` shows (at most EMBED_CHAR_CAP characters), charged to the note's budget.

        Once embeds showed more than the note's kept chunks can hold, the rest show nothing: their text would
        fall past the last chunk kept, so they are not read.
        """
        if self._budget is not None and self._budget.is_embeds_full:
            return ""
        key = (link.target, link.heading, link.block)
        if key not in self._shown:
            if self._budget is not None:
                self._budget.check("reading embeds")
            self._shown[key] = (self._embedded_text(link) or "")[:EMBED_CHAR_CAP]
        text = self._shown[key]
        if self._budget is not None:
            self._budget.charge_embedded(len(text))
        return text


def section_pieces(section: Section, shower: EmbedShower | None) -> list[Piece]:
    """Return the blocks of a section in reading order, with the text its embeds show (None: no embeds)."""
    rows = section.text.split("\n")
    # Section text maps line for line onto the file (rag.notes.markdown), from body_line when the parser gives it.
    first = section.body_line or section.line_start + (1 if section.heading_path else 0)
    last = max(section.line_end, first)
    blocks = parse_blocks(rows, [min(first + offset, last) for offset in range(len(rows))])
    inside = [] if shower is None else shower.inside(section)
    if shower is None or not inside:
        return blocks
    blocks = _cut_after_lines(blocks, {link.line for link in inside})
    starts = [block.lines[0] for block in blocks]  # non-decreasing, so an embed's place is a bisection
    inserted: dict[int, list[Piece]] = {}
    for link in inside:
        shown = shower.shown(link)
        if not shown.strip():
            continue
        shown_rows = shown.split("\n")
        position = bisect_right(starts, link.line)
        inserted.setdefault(position, []).extend(parse_blocks(shown_rows, [link.line] * len(shown_rows)))
    ordered: list[Piece] = []
    for position, block in enumerate([*blocks, None]):
        shown_here = inserted.get(position, [])
        ordered.extend(shown_here)
        if block is not None:
            # The rest of a paragraph cut at an embed is its own block once embedded text sits between.
            ordered.append(replace(block, sep=BLOCK_SEP) if shown_here else block)
    return ordered


def _cut_after_lines(blocks: list[Piece], lines: set[int]) -> list[Piece]:
    """Split prose blocks after each row on one of `lines`, so embedded text lands right below it."""
    cut: list[Piece] = []
    for block in blocks:
        start = 0
        for row, line in enumerate(block.lines):
            is_cut = block.kind == "prose" and line in lines and row < len(block.rows) - 1
            if is_cut or row == len(block.rows) - 1:
                sep = block.sep if start == 0 else LINE_SEP
                cut.append(Piece(block.kind, block.rows[start : row + 1], block.lines[start : row + 1], sep))
                start = row + 1
    return cut
