"""A list code answers a question with, and how every such list is cut short.

At most so many items, then how many more there are, said the same way in each list (tasks by date, place or done
day, links, tags, notes of a kind …).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_LISTED = 50  # items listed at most, in the list's order; the reply says how many more there are


@dataclass(frozen=True, slots=True)
class ListReply:
    """A list code answers a question with (tasks by date or place, links, tags), and the links it holds."""

    text: str
    anchors: tuple[str, ...]
    is_empty: bool = False  # no open task is of the days asked, nor after them


def capped(lines: Sequence[str], limit: int, *, more: str = "more") -> list[str]:
    """Return the first `limit` of `lines`, then "… and N more." for those left out (`more`: "more folders")."""
    shown = list(lines[:limit])
    left = len(lines) - len(shown)
    return [*shown, f"… and {left} {more}."] if left > 0 else shown
