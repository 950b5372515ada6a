"""What one note may cost to index: a deadline for parsing and chunking, and a cap on its chunks.

Every step of parsing and chunking is linear in the note's size; the deadline is the guard for inputs nobody
has thought of yet (issue 8: one hostile note must not stall the index), and a note over it is skipped and
reported. Embedding costs the same for every chunk, so the chunk cap is what bounds its time: a note that makes
more chunks is indexed up to the cap (its beginning stays findable) and reported as cut (issue 15).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from core.errors import AppError
from core.settings import MAX_NOTE_CHUNKS

# Measured on a loaded 2-core machine: the slowest of 3,029 real notes (three public vaults) takes 0.4 s to
# parse and chunk, 2 MB of their text (MAX_NOTE_BYTES) as one note 6 s. Ten times that is only a safety net.
NOTE_SECONDS = 60.0
# Characters of embedded text one chunk can hold at most (CHARS_PER_TOKEN_CEILING x a 256-token window): text
# its embeds show beyond `max_chunks` times this lies past the last chunk kept, so embeds are no longer read.
EMBEDDED_CHARS_PER_CHUNK = 2_000
MAX_WARNINGS_PER_NOTE = 20
# C0 controls other than tab, newline, carriage return and form feed, DEL, C1 controls, and U+FFFD (what
# undecodable bytes became): text holds a few of these, random bytes about half.
_NOT_TEXT = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufffd]")
NOT_TEXT_SHARE = 0.3  # text in a legacy 8-bit encoding (Latin-1 French, German) stays well under 10%


T = TypeVar("T")


class NoteSkipped(AppError):
    """A note the indexer will not index, with the reason the status lists for it."""


class NoteTooCostly(NoteSkipped):
    """A note would take more time to parse and chunk than one note may."""


class NotText(NoteSkipped):
    """A `.md` file whose content is not text (random bytes, a binary saved under a note's name)."""


@dataclass(frozen=True, slots=True)
class NoteLimits:
    """The most one note may cost: seconds of parsing and chunking, and chunks indexed."""

    seconds: float = NOTE_SECONDS
    max_chunks: int = MAX_NOTE_CHUNKS


@dataclass(frozen=True, slots=True)
class ChunkCut:
    """A note indexed only up to its chunk cap: how many chunks it made before chunking stopped."""

    kept: int
    made: int
    is_count_whole: bool  # False: chunking stopped early, the note makes `made` chunks or more

    def warning(self, *, last_line: int, lines: int) -> str:
        """Return what the status says of the note: how much of it is indexed, and what to do."""
        made = f"{self.made}" if self.is_count_whole else f"at least {self.made}"
        # Lines say how far the index reaches, except in a note of one long line.
        reach = f", to line {last_line} of {lines}" if lines > 1 else ""
        return (
            f"indexed only its first {self.kept} of {made} chunks (MAX_NOTE_CHUNKS){reach}: the rest is not "
            "searchable; split the note or raise the limit"
        )


class NoteBudget:
    """A running budget for one note: `check` raises NoteTooCostly once its time is spent."""

    def __init__(self, limits: NoteLimits, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._limits = limits
        self._clock = clock
        self._deadline = clock() + limits.seconds
        self._embedded = 0
        self.cut: ChunkCut | None = None  # set when the note makes more chunks than it may

    @property
    def max_chunks(self) -> int:
        """Return the most chunks the note may keep (MAX_NOTE_CHUNKS)."""
        return self._limits.max_chunks

    @property
    def is_embeds_full(self) -> bool:
        """Return True once embeds showed more text than the note's kept chunks can hold."""
        return self._embedded > self._limits.max_chunks * EMBEDDED_CHARS_PER_CHUNK

    def check(self, stage: str) -> None:
        """Raise NoteTooCostly when the note's time is up; `stage` names what it was doing."""
        if self._clock() > self._deadline:
            raise NoteTooCostly(
                f"parsing and chunking took more than {self._limits.seconds:g} s (stopped while {stage})"
            )

    def charge_embedded(self, chars: int) -> None:
        """Count text an embed shows (see `is_embeds_full`)."""
        self._embedded += chars

    def keep_within(self, drafts: list[T], *, is_last: bool) -> list[T] | None:
        """Return the first `max_chunks` drafts once there are more (recording the cut), else None.

        Args:
            drafts: the note's drafts so far, in order.
            is_last: no section is left to chunk, so `drafts` is all the note makes.

        """
        if len(drafts) <= self._limits.max_chunks:
            return None
        self.cut = ChunkCut(
            kept=self._limits.max_chunks, made=len(drafts), is_count_whole=is_last and not self.is_embeds_full
        )
        return drafts[: self._limits.max_chunks]

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
