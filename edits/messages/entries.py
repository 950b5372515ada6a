"""How one proposal is shown to the user: its id, operation and path, then its diff or what a delete or move does.

A delete's diff is the whole note as removed lines and a move's is often only its `---`/`+++` lines, which says
nothing. So a delete shows where the note goes, its size and its first lines; a move shows both paths and the notes
whose links change with it; a diff is shown only when it has changed lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.edits import ProposedEdit
from edits.messages.diff_display import SHOWN_DIFF_LINES, diff_fence, shorten_diff

# The whole reply stays far below MAX_BODY_BYTES (1 MB by default): chat apps resend it with every later message.
MAX_BLOCK_CHARS = 120_000
PREVIEW_LINES = 5  # of a note to delete
PREVIEW_LINE_CHARS = 120
_NO_NEWLINE = "\\ No newline at end of file"


def code(text: str) -> str:
    """Return `text` as a Markdown code span that its own backticks cannot break (note names may hold them)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{ticks}{padded}{ticks}"


def _target(proposal: ProposedEdit) -> str:
    return f"{code(proposal.path)} → {code(proposal.new_path)}" if proposal.new_path else code(proposal.path)


def proposal_entries(proposals: Sequence[ProposedEdit]) -> list[str]:
    """Return each proposal's entry, with shorter diffs when all of them together would be too long to resend."""
    entries = [_entry(proposal, proposals, max_lines=SHOWN_DIFF_LINES) for proposal in proposals]
    total = sum(len(entry) for entry in entries)
    if total <= MAX_BLOCK_CHARS:
        return entries
    lines = max(12, SHOWN_DIFF_LINES * MAX_BLOCK_CHARS // total)
    return [_entry(proposal, proposals, max_lines=lines) for proposal in proposals]


def _entry(proposal: ProposedEdit, shown: Sequence[ProposedEdit], *, max_lines: int) -> str:
    after = f" (after {code(proposal.depends_on)})" if proposal.depends_on else ""
    head = f"{code(proposal.id)} · {proposal.operation} · {_target(proposal)}{after}"
    if proposal.kind == "delete":
        return f"{head}\n{deleted_note_summary(proposal)}"
    summary = move_summary(proposal, shown) if proposal.kind == "move" else change_summary(proposal)
    diff = fenced_diff(proposal.diff, max_lines=max_lines) if has_changed_lines(proposal.diff) else None
    return "\n".join(part for part in (head, summary, diff) if part)


def fenced_diff(diff: str, *, max_lines: int) -> str:
    """Return `diff`, shortened to `max_lines`, in a Markdown code block no line of the note can close."""
    shown = shorten_diff(diff, max_lines=max_lines)
    fence = diff_fence(shown)
    return f"{fence}diff\n{shown}{fence}"


def described_change(proposal: ProposedEdit, *, max_lines: int) -> str:
    """Return what a proposal changes, for a tool result: the line its diff cannot say, then the diff if it has one.

    A move whose text stays the same, or an empty note created or deleted, has a diff of only its `---`/`+++` lines.
    """
    summary = change_summary(proposal)
    diff = fenced_diff(proposal.diff, max_lines=max_lines) if has_changed_lines(proposal.diff) else ""
    return "\n".join(part for part in (summary, diff) if part)


def change_summary(proposal: ProposedEdit) -> str | None:
    """Return the line saying what a move, or a create or delete of an empty note, does; None for other changes."""
    if proposal.kind == "move":
        return move_headline(proposal.path, proposal.new_path or proposal.path, proposal.diff)
    if has_changed_lines(proposal.diff):
        return None
    if proposal.kind == "create":
        return f"Creates {code(proposal.path)} as an empty note."
    if proposal.kind == "delete":
        return f"Moves {code(proposal.path)} to `.trash/` (undo brings it back). The note is empty."
    return None


def move_headline(path: str, new_path: str, diff: str) -> str:
    """Return what a move does to the note itself: where it goes, and whether its own text changes."""
    text = "its links change as shown below" if has_changed_lines(diff) else "its text stays the same"
    return f"Moves {code(path)} to {code(new_path)}; {text}."


def has_changed_lines(diff: str) -> bool:
    """Return True when a unified diff has more than its `---`/`+++` header lines."""
    return len(diff.splitlines()) > 2


def deleted_text(diff: str) -> str:
    """Return the text of the note a delete's diff removes (all of it: a delete's diff removes every line)."""
    lines: list[str] = []
    for line in diff.splitlines(keepends=True)[2:]:
        if line.rstrip("\n") == _NO_NEWLINE and lines:
            lines[-1] = lines[-1].removesuffix("\n")
        elif line.startswith("-"):
            lines.append(line[1:])
    return "".join(lines)


def _size(text: str) -> str:
    size = len(text.encode("utf-8"))
    count = len(text.splitlines())
    amount = f"{size} bytes" if size < 1024 else f"{size / 1024:.1f} KB"
    return f"{count} line{'s' if count != 1 else ''}, {amount}"


def deleted_note_summary(proposal: ProposedEdit) -> str:
    """Return what a delete does: the note goes to `.trash/`, with its size and first lines."""
    text = deleted_text(proposal.diff)
    moved = f"Moves {code(proposal.path)} to `.trash/` (undo brings it back)."
    if not text.strip():
        return f"{moved} The note is empty."
    lines = text.splitlines()
    preview = [line if len(line) <= PREVIEW_LINE_CHARS else line[:PREVIEW_LINE_CHARS] + " …" for line in lines]
    shown = "\n".join(preview[:PREVIEW_LINES]) + "\n"
    more = len(lines) - PREVIEW_LINES
    if more > 0:
        shown += f"… {more} more line{'s' if more != 1 else ''}\n"
    fence = diff_fence(shown)
    return f"{moved} The note has {_size(text)}; it begins:\n{fence}text\n{shown}{fence}"


def move_summary(proposal: ProposedEdit, shown: Sequence[ProposedEdit]) -> str:
    """Return what a move does: both paths, whether its own text changes, and the notes whose links change."""
    summary = move_headline(proposal.path, proposal.new_path or proposal.path, proposal.diff)
    followers = [p.path for p in shown if p.depends_on == proposal.id and p.path != proposal.new_path]
    if not followers:
        return f"{summary} No other note's links change."
    count = len(followers)
    notes = ", ".join(code(path) for path in followers)
    return f"{summary} Links to it change in {count} note{'s' if count != 1 else ''} (each shown below): {notes}."
