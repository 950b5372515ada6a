"""The proposals a reply shows: id, operation, path and the lines the diff adds, read back from the reply's text.

The edit gate writes each proposal as "`id` · operation · `path`" (a move: "`old` → `new`"), then its diff in a
```diff fence. The eval reads what the user reads, so a proposal that the reply does not show does not count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Each part is a code span: a run of backticks, padded with one space when the text starts or ends with a backtick.
_ENTRY = re.compile(
    r"^(?P<t1>`+) ?(?P<id>[^`\s]+) ?(?P=t1) · (?P<operation>.+?) · (?P<t2>`+) ?(?P<path>.+?) ?(?P=t2)"
    r"(?: → (?P<t3>`+) ?(?P<new_path>.+?) ?(?P=t3))?(?: \(after .+\))?$",
    re.MULTILINE,
)
_FENCE = re.compile(r"^(`{3,}|~{3,})diff$")


@dataclass(frozen=True, slots=True)
class ShownProposal:
    """One proposal as the reply shows it."""

    id: str
    operation: str
    path: str
    new_path: str | None
    added: tuple[str, ...]  # the diff's "+" lines without the "+" (the "+++" header excluded)


def shown_proposals(reply: str) -> list[ShownProposal]:
    """Return every proposal entry of a reply, in order."""
    entries = list(_ENTRY.finditer(reply))
    shown = []
    for number, entry in enumerate(entries):
        end = entries[number + 1].start() if number + 1 < len(entries) else len(reply)
        shown.append(
            ShownProposal(
                id=entry["id"],
                operation=entry["operation"],
                path=entry["path"],
                new_path=entry["new_path"],
                added=_added_lines(reply[entry.end() : end]),
            )
        )
    return shown


def _added_lines(section: str) -> tuple[str, ...]:
    added: list[str] = []
    fence: str | None = None
    for line in section.splitlines():
        if fence is None:
            opening = _FENCE.match(line)
            fence = opening[1] if opening else None
        elif line.strip() == fence:
            fence = None
        elif line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
    return tuple(added)
