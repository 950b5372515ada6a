"""Pieces of section text for the chunker: markdown blocks, and the splitting of blocks too big for a chunk."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

from rag.chunks.token_budget import TokenCounter, is_surely_over, largest_within, prefix_widths

PieceKind = Literal["prose", "code", "table"]

BLOCK_SEP = "\n\n"
LINE_SEP = "\n"

_FENCE_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
TABLE_DIVIDER = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
# A cell border: a pipe neither escaped ("\\|" in a table row's link alias) nor inside a [[link]].
_CELL_BORDER = re.compile(r"(?<!\\)\|(?![^\[\]]*\]\])")


def table_cells(row: str) -> list[str]:
    r"""Return the cells of a Markdown table row, stripped ("| Salt | 10 g |" -> ["Salt", "10 g"]); "\|" stays."""
    return [cell.strip() for cell in _CELL_BORDER.split(row.strip().strip("|"))]


# A sentence ends at . ! ? … followed by space, or right after a CJK full stop (no space follows those).
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|(?<=[。！？])")


@dataclass(frozen=True, slots=True)
class Piece:
    """A run of section text that the packer keeps whole, with the file line of each of its rows."""

    kind: PieceKind
    rows: tuple[str, ...]
    lines: tuple[int, ...]  # the 1-based file line each row came from
    sep: str = BLOCK_SEP  # what joins this piece to the piece before it in a chunk
    cost: int = -1  # estimated tokens of sep + text, special tokens excluded; -1 until measured

    @property
    def text(self) -> str:
        """Return the rows joined by newlines."""
        return LINE_SEP.join(self.rows)


def parse_blocks(rows: Sequence[str], lines: Sequence[int]) -> list[Piece]:
    """Group rows into blocks: paragraphs between blank lines, whole fenced code blocks, whole tables."""
    blocks: list[Piece] = []
    start = 0
    while start < len(rows):
        if not rows[start].strip():
            start += 1
            continue
        kind, end = _block_at(rows, start)
        while end > start + 1 and not rows[end - 1].strip():  # an unclosed fence ends at the section end
            end -= 1
        blocks.append(Piece(kind, tuple(rows[start:end]), tuple(lines[start:end])))
        start = end
    return blocks


def _block_at(rows: Sequence[str], start: int) -> tuple[PieceKind, int]:
    opening = _opening_fence(rows[start])
    if opening is not None:
        end = start + 1
        while end < len(rows) and not _closes_fence(rows[end], opening):
            end += 1
        return "code", min(end + 1, len(rows))
    end = start + 1
    if _is_table_row(rows[start]):
        while end < len(rows) and _is_table_row(rows[end]):
            end += 1
        return "table", end
    while end < len(rows) and rows[end].strip() and not _is_table_row(rows[end]) and _opening_fence(rows[end]) is None:
        end += 1
    return "prose", end


def _opening_fence(row: str) -> str | None:
    match = _FENCE_OPEN.match(row)
    if match is None or (match["fence"][0] == "`" and "`" in match["info"]):
        return None
    return match["fence"]


def _closes_fence(row: str, fence: str) -> bool:
    stripped = row.strip()
    return len(stripped) >= len(fence) and stripped == fence[0] * len(stripped)


def _is_table_row(row: str) -> bool:
    return row.lstrip().startswith("|")


def _run_cost(items: Sequence[str], start: int, joiner: str, counter: TokenCounter, count: int) -> int:
    return counter.cost(joiner.join(items[start : start + count]))


def _runs(items: Sequence[str], joiner: str, limit: int, counter: TokenCounter) -> Iterator[tuple[int, int, int]]:
    """Yield (start, count, cost) of maximal runs of items within `limit`; count 0 marks an item too big alone."""
    widths = prefix_widths(items, joiner)
    start = 0
    while start < len(items):
        if is_surely_over(items[start], limit):
            count, cost = 0, 0
        else:
            cost_of = partial(_run_cost, items, start, joiner, counter)
            aim = counter.chars_for(limit - limit // 64)
            count, cost = largest_within(cost_of, limit, widths, start=start, first_width=aim)
        yield start, count, cost
        start += max(count, 1)


def _sentences(text: str) -> list[str]:
    return [part for part in _SENTENCE_END.split(text) if part]


def _words(text: str) -> list[str]:
    return text.split()


def _chars(text: str) -> list[str]:
    return list(text)


# Finer and finer ways to cut one line of prose, with the text that joins the parts back.
_LINE_CUTS: tuple[tuple[Callable[[str], list[str]], str], ...] = ((_sentences, " "), (_words, " "), (_chars, ""))


def split_piece(piece: Piece, budget: int, counter: TokenCounter) -> list[Piece]:
    """Split a piece into pieces whose estimated cost fits `budget`.

    Prose is cut at lines, then sentences, then words, then characters. A code block is cut at lines with its
    fence re-opened and closed in every part; a table at rows with its header and divider repeated.
    """
    framed = None
    if piece.kind == "code":
        framed = _split_code(piece, budget, counter)
    elif piece.kind == "table":
        framed = _split_table(piece, budget, counter)
    return framed if framed is not None else _split_prose(piece, budget, counter)


def _split_prose(piece: Piece, budget: int, counter: TokenCounter) -> list[Piece]:
    parts: list[Piece] = []
    sep = piece.sep
    if len(piece.rows) == 1:  # the piece is over the budget, so its one line is: cut it without counting it
        return _split_line(piece.rows[0], piece.lines[0], sep, budget, counter)
    limit = max(1, budget - max(counter.sep_cost(sep), counter.sep_cost(LINE_SEP)))
    for start, count, cost in _runs(piece.rows, LINE_SEP, limit, counter):
        end = start + count
        if count:
            parts.append(
                Piece("prose", piece.rows[start:end], piece.lines[start:end], sep, cost + counter.sep_cost(sep))
            )
        elif piece.rows[start].strip():
            parts.extend(_split_line(piece.rows[start], piece.lines[start], sep, budget, counter))
        sep = LINE_SEP
    return parts


def _split_line(row: str, line: int, sep: str, budget: int, counter: TokenCounter, level: int = 0) -> list[Piece]:
    cut, joiner = _LINE_CUTS[level]
    items = cut(row)
    if len(items) == 1 and level + 1 < len(_LINE_CUTS):  # one sentence or word, as over the budget as the line
        return _split_line(row.strip(), line, sep, budget, counter, level + 1)
    parts: list[Piece] = []
    limit = max(1, budget - max(counter.sep_cost(sep), counter.sep_cost(joiner)))
    for start, count, cost in _runs(items, joiner, limit, counter):
        if count:
            text = joiner.join(items[start : start + count])
            parts.append(Piece("prose", (text,), (line,), sep, cost + counter.sep_cost(sep)))
        elif level + 1 < len(_LINE_CUTS):
            parts.extend(_split_line(items[start], line, sep, budget, counter, level + 1))
        else:  # one character over the budget: kept alone, the chunker's final count decides its fate
            parts.append(
                Piece("prose", (items[start],), (line,), sep, counter.cost(items[start]) + counter.sep_cost(sep))
            )
        sep = joiner
    return parts


def _split_code(piece: Piece, budget: int, counter: TokenCounter) -> list[Piece] | None:
    fence = _opening_fence(piece.rows[0])
    if fence is None or len(piece.rows) < 2:
        return None
    is_closed = len(piece.rows) > 2 and _closes_fence(piece.rows[-1], fence)
    indent = piece.rows[0][: len(piece.rows[0]) - len(piece.rows[0].lstrip())]
    closing = piece.rows[-1] if is_closed else indent + fence
    body_end = len(piece.rows) - 1 if is_closed else len(piece.rows)
    tail_line = piece.lines[-1] if is_closed else None
    frame = _Frame((piece.rows[0],), (piece.lines[0],), (closing,), tail_line, "code")
    return _split_framed(piece, frame, 1, body_end, budget, counter)


def _split_table(piece: Piece, budget: int, counter: TokenCounter) -> list[Piece] | None:
    if len(piece.rows) < 3 or not TABLE_DIVIDER.match(piece.rows[1]):
        return None
    frame = _Frame(piece.rows[:2], piece.lines[:2], (), None, "table")
    return _split_framed(piece, frame, 2, len(piece.rows), budget, counter)


@dataclass(frozen=True, slots=True)
class _Frame:
    """Rows repeated around every part of a split code block (fences) or table (header and divider)."""

    head: tuple[str, ...]
    head_lines: tuple[int, ...]
    tail: tuple[str, ...]
    tail_line: int | None  # None when the closing fence is added by the chunker
    kind: PieceKind


def _split_framed(
    piece: Piece, frame: _Frame, body_start: int, body_end: int, budget: int, counter: TokenCounter
) -> list[Piece] | None:
    rows, lines = piece.rows[body_start:body_end], piece.lines[body_start:body_end]
    frame_cost = counter.cost(LINE_SEP.join((*frame.head, "", *frame.tail)))
    limit = budget - frame_cost - counter.sep_cost(piece.sep)
    if not rows or limit < 1:
        return None  # the frame alone does not fit: the caller cuts the block like prose
    bodies: list[tuple[tuple[str, ...], tuple[int, ...], int]] = []
    for start, count, cost in _runs(rows, LINE_SEP, limit, counter):
        if count:
            bodies.append((rows[start : start + count], lines[start : start + count], cost))
        else:  # one line longer than the budget: hard-split it by characters, each part on its own line
            chars = list(rows[start])
            for part_start, part_count, part_cost in _runs(chars, "", limit, counter):
                text = "".join(chars[part_start : part_start + max(part_count, 1)])
                bodies.append(((text,), (lines[start],), part_cost if part_count else counter.cost(text)))
    parts: list[Piece] = []
    for position, (body, body_lines, cost) in enumerate(bodies):
        head_lines = frame.head_lines if position == 0 else (body_lines[0],) * len(frame.head)
        is_last = position == len(bodies) - 1
        tail_line = frame.tail_line if is_last and frame.tail_line is not None else body_lines[-1]
        sep = piece.sep if position == 0 else BLOCK_SEP
        parts.append(
            Piece(
                frame.kind,
                (*frame.head, *body, *frame.tail),
                (*head_lines, *body_lines, *(tail_line,) * len(frame.tail)),
                sep,
                frame_cost + cost + counter.sep_cost(sep),
            )
        )
    return parts


def trailing_piece(piece: Piece, limit: int, counter: TokenCounter) -> Piece | None:
    """Return the longest tail of a prose piece within `limit` tokens: whole lines, else sentences, else words."""
    if piece.kind != "prose" or limit < 1:
        return None
    count, cost = _longest_tail(piece.rows, LINE_SEP, limit, counter)
    if count:
        return Piece("prose", piece.rows[-count:], piece.lines[-count:], piece.sep, cost)
    for cut, joiner in _LINE_CUTS[:2]:
        items = cut(piece.rows[-1])
        count, cost = _longest_tail(items, joiner, limit, counter)
        if count:
            return Piece("prose", (joiner.join(items[-count:]),), piece.lines[-1:], piece.sep, cost)
    return None


def _longest_tail(items: Sequence[str], joiner: str, limit: int, counter: TokenCounter) -> tuple[int, int]:
    # Every row, sentence or word costs at least a token, so a tail never holds more items than that.
    upper = min(len(items), limit)
    if not items or is_surely_over(items[-1], limit):
        return 0, 0
    widths = prefix_widths(items[len(items) - upper :][::-1], joiner)
    cost_of = partial(_tail_cost, items, joiner, counter)
    return largest_within(cost_of, limit, widths, first_width=counter.chars_for(limit))


def _tail_cost(items: Sequence[str], joiner: str, counter: TokenCounter, count: int) -> int:
    return counter.cost(joiner.join(items[len(items) - count :]))
