"""Single-pass line scanner for Obsidian markdown: code, math and comment regions, and headings.

Every body line comes out with two views:
- `visible`: what a reader sees, `%%comments%%` and `<!-- comments -->` removed (code lines verbatim);
- `masked`: `visible` with inline code and math overwritten by MASK, same length as `visible`, so regexes
  for tags, links, block ids can run on `masked` and slice `visible` at the same offsets. It is "" for code
  lines, which hold no tags or links.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rag.notes.budget import NoteBudget
from rag.notes.line_views import COMMENT, NORMAL, InlineSplitter

BUDGET_CHECK_LINES = 512  # a clock read per line would cost more than most lines do
LineKind = Literal["text", "code"]

_FENCE_OPEN = re.compile(r"^[ \t]*(?:>[ \t]?)*(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_FENCE_CLOSE = re.compile(r"^[ \t]*(?:>[ \t]?)*(`{3,}|~{3,})[ \t]*$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_HR = re.compile(r"^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_QUOTE = re.compile(r"^ {0,3}>")


@dataclass(frozen=True, slots=True)
class ScannedLine:
    """One body line with its region kind and its visible and masked text."""

    number: int  # 1-based line in the file
    kind: LineKind  # "code" for fenced (fence lines included) and indented code
    visible: str
    masked: str
    is_continued: bool = False  # starts inside a block comment or math block


@dataclass(frozen=True, slots=True)
class HeadingSpan:
    """A heading found by the scanner; setext headings span their paragraph and underline."""

    level: int
    text: str
    first: int  # index into Scan.lines of the heading's first line
    last: int  # index of its last line (the underline for setext headings)


@dataclass(frozen=True, slots=True)
class Scan:
    """The scanned body of a note."""

    lines: tuple[ScannedLine, ...]
    headings: tuple[HeadingSpan, ...]
    warnings: tuple[str, ...]


def split_lines(text: str) -> list[str]:
    """Split note text into lines, tolerating a BOM and CRLF; a final newline adds no line."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def indent_width(line: str) -> int:
    """Return the width of a line's leading whitespace, tabs counting to the next multiple of four."""
    return len(line[: len(line) - len(line.lstrip(" \t"))].expandtabs(4))


def _heading_text(raw: str | None) -> str:
    return _ATX_CLOSE.sub("", raw or "").strip()


class _BlockScanner:
    """Classify lines into blocks: fences, indented code, headings, paragraphs and lists."""

    def __init__(
        self, lines: Sequence[str], *, first_line: int, include_comments: bool, budget: NoteBudget | None
    ) -> None:
        self.raw = lines
        self.budget = budget
        self.first_line = first_line
        last_math = max((i for i, line in enumerate(lines) if "$$" in line), default=-1)
        self.inline = InlineSplitter(include_comments=include_comments, last_math_line=last_math)
        self.out: list[ScannedLine] = []
        self.headings: list[HeadingSpan] = []
        self.warnings: list[str] = []
        self.fence: tuple[str, int, int] | None = None  # (char, length, opening line number)
        self.in_indented_code = False
        self.may_start_code = True  # after a blank line, heading, rule or fence: indented code may start
        self.is_prev_blank = True
        self.para_start: int | None = None  # index of the first line of an open top-level paragraph
        self.in_list = False
        self.comment_line = 0

    def run(self) -> Scan:
        for index, line in enumerate(self.raw):
            if self.budget is not None and index % BUDGET_CHECK_LINES == 0:
                self.budget.check("scanning lines")
            self._line(index, line)
        if self.fence is not None:
            self.warnings.append(f"code fence opened on line {self.fence[2]} is not closed")
        if self.inline.state == COMMENT:
            self.warnings.append(f"comment opened on line {self.comment_line} is not closed")
        return Scan(tuple(self.out), tuple(self.headings), tuple(self.warnings))

    def _emit(self, kind: LineKind, visible: str, masked: str, *, is_continued: bool = False) -> None:
        self.out.append(ScannedLine(self.first_line + len(self.out), kind, visible, masked, is_continued))

    def _code(self, line: str) -> None:
        self._emit("code", line, "")
        self.is_prev_blank = False
        self.para_start = None

    def _line(self, index: int, line: str) -> None:
        if self.fence is not None:
            close = _FENCE_CLOSE.match(line)
            if close and close[1][0] == self.fence[0] and len(close[1]) >= self.fence[1]:
                self.fence = None
                self.may_start_code = True
            self._code(line)
            return
        if self.inline.state != NORMAL:
            self._continued(index, line)
            return
        if not line.strip():
            self._emit("text", line, line)
            self.is_prev_blank = self.may_start_code = True
            self.para_start = None
            return
        indent = indent_width(line)
        if indent >= 4 and (self.in_indented_code or (self.may_start_code and not self.in_list)):
            self.in_indented_code = True
            self._code(line)
            return
        self.in_indented_code = False
        fence = _FENCE_OPEN.match(line)
        if fence and (fence["fence"][0] == "~" or "`" not in fence["info"]):
            self.fence = (fence["fence"][0], len(fence["fence"]), self.first_line + index)
            self.in_list = self.in_list and indent > 0  # an unindented fence ends a list
            self._code(line)
            return
        self._text(index, line, indent)

    def _continued(self, index: int, line: str) -> None:
        visible, masked = self._split(index, line)
        self._emit("text", visible, masked, is_continued=True)
        self.is_prev_blank = not visible.strip()
        if self.is_prev_blank:
            self.para_start = None

    def _split(self, index: int, line: str) -> tuple[str, str]:
        before = self.inline.state
        visible, masked = self.inline.split(line, index)
        if self.inline.state == COMMENT and before != COMMENT:
            self.comment_line = self.first_line + index
        return visible, masked

    def _text(self, index: int, line: str, indent: int) -> None:
        visible, masked = self._split(index, line)
        self._emit("text", visible, masked)
        was_blank, self.is_prev_blank, self.may_start_code = self.is_prev_blank, False, False
        atx = _ATX.match(visible)
        if atx and _heading_text(atx[2]):
            self.headings.append(HeadingSpan(len(atx[1]), _heading_text(atx[2]), index, index))
            self._break_block()
        elif self.para_start is not None and _SETEXT.match(visible):
            paragraph = " ".join(scanned.visible.strip() for scanned in self.out[self.para_start : index])
            level = 1 if visible.strip()[0] == "=" else 2
            self.headings.append(HeadingSpan(level, paragraph, self.para_start, index))
            self._break_block()
        elif _HR.match(visible):
            self._break_block()
        elif _LIST_ITEM.match(visible):
            self.in_list = True
            self.para_start = None
        elif _QUOTE.match(visible):
            self.para_start = None
        elif self.in_list and not (was_blank and indent == 0):
            self.para_start = None  # a lazy or indented continuation of a list item
        elif self.para_start is None:
            self.in_list = False
            self.para_start = index

    def _break_block(self) -> None:
        self.para_start = None
        self.in_list = False
        self.may_start_code = True


def scan_lines(
    lines: Sequence[str], *, first_line: int = 1, include_comments: bool = False, budget: NoteBudget | None = None
) -> Scan:
    """Scan body lines once, classifying code, math and comments and finding headings.

    Args:
        lines: the body lines (frontmatter already removed).
        first_line: the 1-based file line of `lines[0]`.
        include_comments: keep `%%comments%%` and `<!-- -->` as ordinary text instead of removing them.
        budget: what the note may cost; checked every BUDGET_CHECK_LINES lines.

    """
    return _BlockScanner(lines, first_line=first_line, include_comments=include_comments, budget=budget).run()
