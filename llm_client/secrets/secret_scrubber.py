"""Configured secrets taken out of model replies, whole or streamed, even when one arrives split over deltas."""

from __future__ import annotations

import re
from collections.abc import Iterable


class SecretScrubber:
    """Replace configured secrets in streamed text, also when one arrives split over several deltas.

    Only the tail that could be the start of a secret is held back, so ordinary text streams without delay.
    """

    def __init__(self, secrets: Iterable[str], *, replacement: str) -> None:
        self._secrets = sorted(set(secrets), key=len, reverse=True)  # longest first: remove a secret whole
        self._pattern = re.compile("|".join(re.escape(s) for s in self._secrets)) if self._secrets else None
        self._replacement = replacement
        self._pending = ""

    def feed(self, text: str) -> str:
        """Return the text that is safe to show now; a possible start of a secret waits for the next delta."""
        if self._pattern is None:
            return text
        buffer = self._pending + text
        shown: list[str] = []
        start = 0
        for match in self._pattern.finditer(buffer):
            shown += (buffer[start : match.start()], self._replacement)
            start = match.end()
        tail = buffer[start:]
        held = self._held_length(tail)
        self._pending = tail[len(tail) - held :] if held else ""
        shown.append(tail[: len(tail) - held])
        return "".join(shown)

    def flush(self) -> str:
        """Return what is still held back (the stream ended, so it cannot become a secret any more)."""
        rest, self._pending = self._pending, ""
        return rest

    def scrub(self, text: str) -> str:
        """Return a whole text with every secret replaced."""
        return self._pattern.sub(self._replacement, text) if self._pattern else text

    def _held_length(self, tail: str) -> int:
        longest = min(len(tail), len(self._secrets[0]) - 1) if self._secrets else 0
        for length in range(longest, 0, -1):
            if any(secret.startswith(tail[-length:]) for secret in self._secrets):
                return length
        return 0
