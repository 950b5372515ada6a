"""Unified diffs of a whole note before and after an edit, and the content hash proposals are bound to."""

from __future__ import annotations

import difflib
import hashlib

_NO_NEWLINE = "\\ No newline at end of file\n"


def content_hash(text: str) -> str:
    """Return the sha256 hex digest of the note's UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def unified_diff(path: str, before: str | None, after: str | None, *, new_path: str | None = None) -> str:
    """Return a git-style unified diff of the whole note (`/dev/null` on the side where the note does not exist).

    Args:
        path: the note's path before the edit.
        before: its text, or None when it did not exist.
        after: its text after the edit, or None when it is deleted.
        new_path: where a move puts the note.

    """
    old_label = "/dev/null" if before is None else f"a/{path}"
    new_label = "/dev/null" if after is None else f"b/{new_path or path}"
    lines = [f"--- {old_label}\n", f"+++ {new_label}\n"]
    hunks = difflib.unified_diff(
        (before or "").splitlines(keepends=True), (after or "").splitlines(keepends=True), n=3, lineterm="\n"
    )
    for line in list(hunks)[2:]:  # difflib's own header lines are replaced by the labels above
        lines.append(line if line.endswith("\n") else line + "\n" + _NO_NEWLINE)
    return "".join(lines)
