"""Checking [[citations]] while the answer streams: text flows at once, a link is held until it can be verified."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from rag.answer.citations import verify_citations
from rag.notes.links import LinkResolver

MAX_LINK_CHARS = 400  # a "[[" not closed within this many characters is not a link; let it through


class CitationChecker:
    """Verifies links against what this turn retrieved or read and against the vault."""

    def __init__(
        self, resolver: LinkResolver, headings: Callable[[str], Sequence[str]], allowed: Collection[str]
    ) -> None:
        self._resolver = resolver
        self._headings = headings
        self.allowed: set[str] = set(allowed)
        self.cited: list[str] = []

    def check(self, text: str) -> str:
        """Return `text` with each link kept, fixed or unlinked; remember the anchors it cites."""
        report = verify_citations(text, allowed=self.allowed, resolver=self._resolver, headings=self._headings)
        self.cited.extend(anchor for anchor in report.cited if anchor not in self.cited)
        return report.text


class CitationStream:
    """Feeds streamed text through a CitationChecker without holding back more than an open link."""

    def __init__(self, checker: CitationChecker) -> None:
        self._checker = checker
        self._pending = ""

    def feed(self, text: str) -> str:
        """Return what can be shown now; an unfinished `[[link` stays pending."""
        buffer = self._pending + text
        shown: list[str] = []
        while True:
            start = buffer.find("[[")
            if start == -1:
                keep = 1 if buffer.endswith(("[", "!")) else 0
                shown.append(buffer[: len(buffer) - keep])
                self._pending = buffer[len(buffer) - keep :]
                break
            link_start = start - 1 if start > 0 and buffer[start - 1] == "!" else start
            end = buffer.find("]]", start + 2)
            if end == -1:
                if len(buffer) - start > MAX_LINK_CHARS:
                    shown.append(buffer[: start + 2])
                    buffer = buffer[start + 2 :]
                    continue
                shown.append(buffer[:link_start])
                self._pending = buffer[link_start:]
                break
            shown.append(buffer[:link_start])
            shown.append(self._checker.check(buffer[link_start : end + 2]))
            buffer = buffer[end + 2 :]
        return "".join(shown)

    def flush(self) -> str:
        """Return whatever is still pending at the end of the answer (an unclosed `[[` is shown as typed)."""
        rest, self._pending = self._pending, ""
        return self._checker.check(rest) if "]]" in rest else rest
