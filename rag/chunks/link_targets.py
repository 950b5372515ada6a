"""Which of a note's link targets each chunk holds, found by line without a pass over every link per chunk."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from core.domain import Link
from rag.notes.inline import find_links

# No link is shorter than `[[x]]` or `[](x)`: a chunk whose lines hold more links than its text has room for
# is a part of one long line, whose own links are read from its text.
_SHORTEST_LINK = 5


class LinkTargets:
    """The link targets of a note by line, to hand each chunk the targets written on its lines."""

    def __init__(self, links: Sequence[Link]) -> None:
        kept = sorted((link for link in links if link.target), key=lambda link: link.line)
        self._targets = [link.target for link in kept]
        self._lines = [link.line for link in kept]
        self._by_line: dict[int, set[str]] = {}
        for link in kept:
            self._by_line.setdefault(link.line, set()).add(link.target)

    def for_lines(self, line_start: int, line_end: int, text: str) -> tuple[str, ...]:
        """Return the distinct targets of the links on lines `line_start`..`line_end`, in file order.

        A chunk cut from one line of thousands of links (issue 8: 60,000 on one line) holds only those its
        `text` shows, not every link of the line: that would be chunks x links in time and payload.
        """
        first, last = bisect_left(self._lines, line_start), bisect_right(self._lines, line_end)
        if line_start == line_end and last - first > len(text) // _SHORTEST_LINK:
            written = self._by_line.get(line_start, set())
            shown = (link.target for link in find_links(text, text, line_start)[0])
            return tuple(dict.fromkeys(target for target in shown if target in written))
        return tuple(dict.fromkeys(self._targets[first:last]))
