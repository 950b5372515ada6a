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
    # Nothing of what was asked is there (no open task of the days asked, nor after them; no task worked on): the
    # caller may leave the question to the search, where the notes may say it in words.
    is_empty: bool = False


def capped(lines: Sequence[str], limit: int, *, more: str = "more") -> list[str]:
    """Return the first `limit` of `lines`, then "… and N more." for those left out (`more`: "more folders")."""
    shown = list(lines[:limit])
    left = len(lines) - len(shown)
    return [*shown, f"… and {left} {more}."] if left > 0 else shown


def links_listed(header: str, lines: Sequence[tuple[str, str]], limit: int, anchors: tuple[str, ...] = ()) -> ListReply:
    """Return the reply of `header` and `lines` (a link, and what follows it), capped at `limit` lines.

    Its links: `anchors`, then those listed that name a note of the vault.
    """
    text = [header, *capped([f"- {link}{after}" for link, after in lines], limit)]
    links = (link for link, _ in lines[:limit] if link.startswith("[[") and "(no such note" not in link)
    return ListReply("\n".join(text), tuple(dict.fromkeys((*anchors, *links))))
