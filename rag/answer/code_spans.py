"""Where a markdown answer holds code (fenced blocks and inline spans), so links there are left alone."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.MULTILINE)
_BACKTICKS = re.compile(r"`+")


def code_ranges(text: str) -> list[tuple[int, int]]:
    """Return the (start, end) offsets of fenced code blocks and inline code spans, in order.

    A fence closes at the next fence line of the same character and at least its length, or at the end of
    the text (as CommonMark does). An inline span runs from a backtick run to the next run of the same
    length; a run without a partner is literal text.
    """
    ranges: list[tuple[int, int]] = []
    pos = 0
    while pos < len(text):
        fence = _FENCE.search(text, pos)
        stop = fence.start() if fence else len(text)
        ranges.extend(_inline_spans(text, pos, stop))
        if fence is None:
            break
        end = _fence_end(text, fence)
        ranges.append((fence.start(), end))
        pos = end
    return ranges


def is_inside(ranges: list[tuple[int, int]], start: int, end: int) -> bool:
    """Return True when [start, end) overlaps any of `ranges`."""
    return any(low < end and start < high for low, high in ranges)


def _fence_end(text: str, fence: re.Match[str]) -> int:
    marker = fence[1]
    closing = re.compile(rf"^[ \t]{{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$", re.MULTILINE)
    line_end = text.find("\n", fence.end())
    if line_end < 0:
        return len(text)
    close = closing.search(text, line_end + 1)
    return close.end() if close else len(text)


def _inline_spans(text: str, start: int, stop: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = start
    while True:
        opening = _BACKTICKS.search(text, pos, stop)
        if opening is None:
            return spans
        partner = next((run for run in _BACKTICKS.finditer(text, opening.end(), stop) if run[0] == opening[0]), None)
        if partner is None:
            pos = opening.end()  # literal backticks; a shorter or longer run may still open a span
            continue
        spans.append((opening.start(), partner.end()))
        pos = partner.end()
