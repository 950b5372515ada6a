"""What one note may cost to index: a deadline and a chunk count checked while it is parsed and chunked.

Every step of parsing and chunking is linear in the note's size; the budget is the guard for inputs nobody
has thought of yet (issue 8: one hostile note must not stall the index). A note over it is skipped and
reported, and the rest of the vault indexes.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.errors import AppError

# Measured on a loaded 2-core machine: the slowest of 3,029 real notes (three public vaults) takes 0.4 s to
# parse and chunk, 2 MB of their text (MAX_NOTE_BYTES) as one note 6 s. Ten times that is only a safety net.
NOTE_SECONDS = 60.0
# MAX_NOTE_BYTES (2 MB) of prose makes about 3,700 chunks with the bundled 256-token model, so every note under
# the size limit fits (the largest of 3,029 real notes makes 171); at the README's 42 chunks/s this bounds one
# note's embedding to about 100 s, however its text is built.
MAX_NOTE_CHUNKS = 4_000
# Characters of embedded text one chunk can hold at most (CHARS_PER_TOKEN_CEILING x a 256-token window): text
# its embeds show beyond `max_chunks` times this could never fit, so expanding stops there, before memory goes.
EMBEDDED_CHARS_PER_CHUNK = 2_000
MAX_WARNINGS_PER_NOTE = 20
# C0 controls other than tab, newline, carriage return and form feed, DEL, C1 controls, and U+FFFD (what
# undecodable bytes became): text holds a few of these, random bytes about half.
_NOT_TEXT = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufffd]")
NOT_TEXT_SHARE = 0.3  # text in a legacy 8-bit encoding (Latin-1 French, German) stays well under 10%


class NoteSkipped(AppError):
    """A note the indexer will not index, with the reason the status lists for it."""


class NoteTooCostly(NoteSkipped):
    """A note would take more time or chunks to index than one note may."""


class NotText(NoteSkipped):
    """A `.md` file whose content is not text (random bytes, a binary saved under a note's name)."""


@dataclass(frozen=True, slots=True)
class NoteLimits:
    """The most one note may cost: seconds of parsing and chunking, and chunks."""

    seconds: float = NOTE_SECONDS
    max_chunks: int = MAX_NOTE_CHUNKS


class NoteBudget:
    """A running budget for one note: `check` raises NoteTooCostly once it is spent."""

    def __init__(self, limits: NoteLimits, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._limits = limits
        self._clock = clock
        self._deadline = clock() + limits.seconds
        self._embedded = 0

    def check(self, stage: str) -> None:
        """Raise NoteTooCostly when the note's time is up; `stage` names what it was doing."""
        if self._clock() > self._deadline:
            raise NoteTooCostly(
                f"parsing and chunking took more than {self._limits.seconds:g} s (stopped while {stage})"
            )

    def check_chunks(self, count: int) -> None:
        """Raise NoteTooCostly when the note makes more chunks than it may (MAX_NOTE_CHUNKS)."""
        if count > self._limits.max_chunks:
            raise NoteTooCostly(
                f"the note makes more than {self._limits.max_chunks} chunks, the limit per note (MAX_NOTE_CHUNKS); "
                "split it, or raise the limit"
            )

    def charge_embedded(self, chars: int) -> None:
        """Count text an embed shows; raise NoteTooCostly past what the note's chunks could hold."""
        self._embedded += chars
        limit = self._limits.max_chunks * EMBEDDED_CHARS_PER_CHUNK
        if self._embedded > limit:
            raise NoteTooCostly(
                f"its embeds show more than {limit} characters, more than {self._limits.max_chunks} chunks "
                "(MAX_NOTE_CHUNKS) could hold"
            )

    def metered(self, count_tokens: Callable[[str], int], stage: str) -> Callable[[str], int]:
        """Return `count_tokens` checking the deadline before each call (counting is chunking's costly step)."""

        def count(text: str) -> int:
            self.check(stage)
            return count_tokens(text)

        return count


def check_is_text(text: str) -> None:
    """Raise NotText when much of `text` is NUL, control characters or undecodable bytes.

    NUL padding at the end (left by a crash or a sync tool) is not counted: the note before it is text.
    """
    body = text.rstrip("\x00")
    if not body:
        return
    odd = _NOT_TEXT.subn("", body)[1]
    if odd > NOT_TEXT_SHARE * len(body):
        raise NotText(
            f"not a text file ({odd / len(body):.0%} of its characters are NUL, control characters or invalid UTF-8)"
        )


def cap_warnings(warnings: Sequence[str], limit: int = MAX_WARNINGS_PER_NOTE) -> list[str]:
    """Return at most `limit` warnings, the last one saying how many more there were."""
    if len(warnings) <= limit:
        return list(warnings)
    return [*warnings[: limit - 1], f"... and {len(warnings) - limit + 1} more warnings like these"]
