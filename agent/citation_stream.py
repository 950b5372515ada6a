"""Checking the answer while it streams: text flows at once, a link is held until it can be verified.

`[[citations]]` are checked against what the turn read; images and links to web hosts the user did not name are
made plain text (`rag.answer.external_links`), however the model's tokens cut them.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Collection, Sequence
from typing import Literal

from rag.answer.citations import note_path, verify_citations
from rag.answer.external_links import neutralise_prose
from rag.notes.links import LinkResolver

MAX_LINK_CHARS = 400  # a "[[" not closed within this many characters is not a link; let it through
MAX_HELD_CHARS = 2_000  # an image, link, tag or URL still open after this many characters is checked as it is

_FENCE_OPENING = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
_FENCE_PREFIX = re.compile(r"[ \t]{0,3}(`*|~*)")  # all of the text so far could still open a fence
_PROSE_MARK = re.compile(r"!?\[\[|!?\[|`+|\n|<|(?<![\w/@.-])(?:https?://|www\.)", re.IGNORECASE)
_CODE_MARK = re.compile(r"`+|\n")
_URL_END = re.compile(r"[\s<>\"'`]")
_URL_STARTS = ("https://", "http://", "www.")
_WORDLIKE = re.compile(r"[\w/@.-]")

SegmentKind = Literal["text", "link", "external"]  # external: may hold an image, link, tag or URL
Segment = tuple[SegmentKind, str]


class CitationChecker:
    """Verifies links against what this turn retrieved or read and against the vault.

    `check` may read note headings from the docstore: call it off the event loop.
    """

    def __init__(
        self, resolver: LinkResolver, headings: Callable[[str], Sequence[str]], allowed: Collection[str]
    ) -> None:
        self._resolver = resolver
        self._headings = headings
        self.allowed: set[str] = set(allowed)
        self.cited: list[str] = []

    def note_path(self, link: str) -> str | None:
        """Return the path of the note `link` ("[[Note#Heading]]" or "Note") names, None when it names none."""
        return note_path(self._resolver, link)

    def check(self, text: str) -> str:
        """Return `text` with each link kept, fixed or unlinked; remember the anchors it cites."""
        report = verify_citations(text, allowed=self.allowed, resolver=self._resolver, headings=self._headings)
        self.cited.extend(anchor for anchor in report.cited if anchor not in self.cited)
        return report.text


class CitationStream:
    """Feeds streamed text through a CitationChecker without holding back more than an open link.

    Code passes through untouched, as the final check leaves it: fenced blocks (``` or ~~~ at a line start, to
    the closing fence) and inline spans (a backtick run to the next run of the same length). An inline span
    still open at a blank line was literal backticks (CommonMark), so links after the blank line are checked.
    """

    def __init__(self, checker: CitationChecker, *, allowed_hosts: Collection[str] = ()) -> None:
        """Check with `checker`; links and images may point only at `allowed_hosts` (those the user named)."""
        self._checker = checker
        self._allowed_hosts = frozenset(allowed_hosts)
        self._start_reply()

    def _start_reply(self) -> None:
        # A reply starts outside code, at a line start.
        self._pending = ""
        self._fence: str | None = None  # the marker of the open fenced block
        self._on_opening_line = False  # inside a fence, still on its opening (info string) line
        self._fence_line = ""  # the current line inside a fence, to spot the closing fence
        self._ticks = 0  # length of the backtick run that opened the current inline code span
        self._at_line_start = True

    async def feed(self, text: str) -> str:
        """Return what can be shown now; an unfinished `[[link` stays pending. Links are checked in a thread."""
        segments = self._scan(self._pending + text)
        if any(kind != "text" for kind, _ in segments):
            return await asyncio.to_thread(self._render, segments)
        return "".join(part for _, part in segments)

    def flush(self, *, is_cut: bool = False) -> str:
        """Return whatever is pending at the end of a reply (an unclosed `[[` is shown as typed); reset for the next.

        `is_cut`: the reply was cut short (a loop stopped, the token cap): an unclosed `[[Bl` pending is where the cut
        fell, not what the model wrote, and is dropped (shown, it read as a name "Bl" no note holds).
        """
        pending = self._pending
        opened = pending.rfind("[[")
        if is_cut and opened >= 0 and "]]" not in pending[opened:]:
            pending = pending[:opened].removesuffix("!")
        rest = neutralise_prose(pending, self._allowed_hosts)
        self._start_reply()
        return rest

    def _render(self, segments: list[Segment]) -> str:
        return "".join(self._render_one(kind, part) for kind, part in segments)

    def _render_one(self, kind: SegmentKind, part: str) -> str:
        if kind == "text":
            return part
        if kind == "external":  # a held run may hold citations too
            part = neutralise_prose(part, self._allowed_hosts)
        return self._checker.check(part)

    def _scan(self, buffer: str) -> list[Segment]:
        segments: list[Segment] = []
        pos, is_more = 0, True
        while is_more and pos < len(buffer):
            if self._fence is not None:
                pos, is_more = self._scan_fence(buffer, pos, segments)
            elif self._ticks:
                pos, is_more = self._scan_inline_code(buffer, pos, segments)
            else:
                pos, is_more = self._scan_prose(buffer, pos, segments)
        self._pending = buffer[pos:]
        return segments

    def _emit(self, segments: list[Segment], text: str, *, kind: SegmentKind = "text") -> None:
        if text:
            segments.append((kind, text))
            self._at_line_start = text.endswith("\n")

    def _scan_fence(self, buffer: str, pos: int, segments: list[Segment]) -> tuple[int, bool]:
        newline = buffer.find("\n", pos)
        end = len(buffer) if newline == -1 else newline + 1
        line = self._fence_line + buffer[pos:end]
        self._emit(segments, buffer[pos:end])
        if newline == -1:
            self._fence_line = "" if self._on_opening_line else line
            return end, True
        if not self._on_opening_line and self._closes_fence(line.rstrip("\n")):
            self._fence = None
        self._on_opening_line, self._fence_line = False, ""
        return end, True

    def _closes_fence(self, line: str) -> bool:
        marker = self._fence or ""
        closing = rf"[ \t]{{0,3}}{re.escape(marker[:1])}{{{len(marker)},}}[ \t]*"
        return re.fullmatch(closing, line) is not None

    def _scan_inline_code(self, buffer: str, pos: int, segments: list[Segment]) -> tuple[int, bool]:
        mark = _CODE_MARK.search(buffer, pos)
        if mark is None:
            self._emit(segments, buffer[pos:])
            return len(buffer), True
        self._emit(segments, buffer[pos : mark.start()])
        if mark[0] == "\n":
            if self._at_line_start:  # a blank line ends the paragraph: the opening run was literal text
                self._ticks = 0
            self._emit(segments, "\n")
            return mark.end(), True
        if mark.end() == len(buffer):
            return mark.start(), False  # the run may go on in the next piece
        if len(mark[0]) == self._ticks:
            self._ticks = 0
        self._emit(segments, mark[0])
        return mark.end(), True

    def _scan_prose(self, buffer: str, pos: int, segments: list[Segment]) -> tuple[int, bool]:
        if self._at_line_start:
            if _FENCE_PREFIX.fullmatch(buffer, pos):
                return pos, False  # wait: this may become a fence, and its length matters
            fence = _FENCE_OPENING.match(buffer, pos)
            if fence:
                self._emit(segments, buffer[pos : fence.end()])
                self._fence, self._on_opening_line, self._fence_line = fence[1], True, ""
                return fence.end(), True
        mark = _PROSE_MARK.search(buffer, pos)
        if mark is None:
            keep = _held_tail(buffer[pos:])  # maybe the start of an image or a URL
            self._emit(segments, buffer[pos : len(buffer) - keep])
            return len(buffer) - keep, False
        if mark[0] == "\n":
            self._emit(segments, buffer[pos : mark.end()])
            return mark.end(), True
        if mark[0].endswith("[["):
            return self._scan_link(buffer, pos, mark.end() - 2, segments)
        if mark[0][0] == "`":
            self._emit(segments, buffer[pos : mark.start()])
            if mark.end() == len(buffer):
                return mark.start(), False  # the backtick run may go on in the next piece
            self._emit(segments, mark[0])
            self._ticks = len(mark[0])
            return mark.end(), True
        return self._scan_external(buffer, pos, mark, segments)

    def _scan_external(self, buffer: str, pos: int, mark: re.Match[str], segments: list[Segment]) -> tuple[int, bool]:
        start = mark.start()
        self._emit(segments, buffer[pos:start])
        end = _external_end(buffer, start, mark[0])
        if end is None:
            if len(buffer) - start <= MAX_HELD_CHARS:
                return start, False
            end = len(buffer)
        self._emit(segments, buffer[start:end], kind="external")
        return end, True

    def _scan_link(self, buffer: str, pos: int, start: int, segments: list[Segment]) -> tuple[int, bool]:
        link_start = start - 1 if start > pos and buffer[start - 1] == "!" else start
        end = buffer.find("]]", start + 2)
        newline = buffer.find("\n", start + 2)
        is_cut = newline != -1 and (end == -1 or newline < end)  # a link never spans lines
        if is_cut or (end == -1 and len(buffer) - start > MAX_LINK_CHARS):
            self._emit(segments, buffer[pos : start + 2])
            return start + 2, True
        self._emit(segments, buffer[pos:link_start])
        if end == -1:
            return link_start, False
        self._emit(segments, buffer[link_start : end + 2], kind="link")
        return end + 2, True


def _held_tail(text: str) -> int:
    """Return how many final characters of prose may begin an image (`!`) or a URL (`htt`, `www`): hold them."""
    for size in range(min(len(text), 7), 0, -1):
        tail = text[-size:].lower()
        is_start = size == len(text) or not _WORDLIKE.match(text[-size - 1])
        if is_start and any(word.startswith(tail) and word != tail for word in _URL_STARTS):
            return size
    return 1 if text.endswith("!") else 0


def _external_end(buffer: str, start: int, mark: str) -> int | None:
    """Return where the image, link, tag or URL opening at `start` ends (None: not known yet).

    The held run is checked whole, so it may end early (at a line end): whatever URL it holds is still found.
    """
    if mark.endswith("["):
        return _bracket_end(buffer, start + len(mark))
    if mark == "<":
        if start + 1 >= len(buffer):
            return None
        if not (buffer[start + 1].isalpha() or buffer[start + 1] in "/!"):
            return start + 1  # "a < b": no tag
        close = re.compile(r"[>\n]").search(buffer, start)
        return None if close is None else close.end() if close[0] == ">" else close.start()
    url_end = _URL_END.search(buffer, start)
    return None if url_end is None else url_end.start()


def _bracket_end(buffer: str, index: int) -> int | None:
    """Return the end of `[label]` or `[label](destination)` from the label's first character."""
    depth = 0
    while index < len(buffer) and buffer[index] != "\n":
        char = buffer[index]
        if char == "]" and depth == 0:
            if index + 1 >= len(buffer):
                return None
            return _paren_end(buffer, index + 1) if buffer[index + 1] == "(" else index + 1
        depth += {"[": 1, "]": -1}.get(char, 0)
        index += 2 if char == "\\" else 1
    return None if index >= len(buffer) else index


def _paren_end(buffer: str, index: int) -> int | None:
    depth = 0
    for position in range(index, len(buffer)):
        char = buffer[position]
        if char == "\n":
            return position
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return position + 1
    return None
