"""Diffs as shown in a reply or a tool result: shortened to a readable length, fenced so no note closes the fence."""

from __future__ import annotations

import re

_BACKTICKS = re.compile(r"`{3,}")

SHOWN_DIFF_LINES = 160  # per proposal in the reply: a whole 2,000-line note would flood the chat and its history
MODEL_DIFF_LINES = 60  # per proposal in the tool result: the model needs the gist, not every line
MAX_DIFF_LINE_CHARS = 400


def shorten_diff(diff: str, *, max_lines: int) -> str:
    """Return `diff` with at most `max_lines` lines (its start and end) and long lines cut, saying what is left out.

    Proposals store and apply the whole change; only what is shown is shortened, and it says so.
    """
    lines = diff.splitlines(keepends=True)
    cut = [line if len(line) <= MAX_DIFF_LINE_CHARS else line[:MAX_DIFF_LINE_CHARS] + " …\n" for line in lines]
    if len(cut) <= max_lines:
        return "".join(cut)
    head, tail = cut[: max_lines * 3 // 4], cut[len(cut) - max_lines // 4 :]
    hidden = len(cut) - len(head) - len(tail)
    return "".join([*head, f"… {hidden} more lines of this diff are not shown here …\n", *tail])


def diff_fence(diff: str) -> str:
    """Return a backtick fence longer than any run in `diff`, so a note's own code fences cannot close it."""
    longest = max((len(run) for run in _BACKTICKS.findall(diff)), default=2)
    return "`" * max(3, longest + 1)
