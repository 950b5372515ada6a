"""The visible and masked text of a line: comments removed, inline code and math masked, state kept across lines."""

from __future__ import annotations

import re
from functools import lru_cache

MASK = "`"  # a character that can't be part of a tag, so masked spans never merge into one
NORMAL, COMMENT, MATH = 0, 1, 2
_SPECIAL = re.compile(r"[`$%<\\]")
_COMMENT_CLOSE = {"%%": "%%", "<!--": "-->"}  # Obsidian's cache skips HTML comments like %% comments
_INLINE_MATH = re.compile(r"\$(?=[^\s$])(?:\\.|[^$\\])*?(?<=[^\s\\])\$(?!\d)")


@lru_cache(maxsize=32)
def _closing_run(length: int) -> re.Pattern[str]:
    return re.compile(rf"(?<!`)`{{{length}}}(?!`)")


class InlineSplitter:
    """Split one line into visible and masked text while tracking comment and math state across lines.

    Comments are `%%...%%` and `<!--...-->`; either may span lines.
    """

    def __init__(self, *, include_comments: bool, last_math_line: int) -> None:
        self.state = NORMAL
        self.comment_close = "%%"
        self.include_comments = include_comments
        self.last_math_line = last_math_line  # index of the last line holding "$$"; no block opens after it

    def split(self, line: str, index: int) -> tuple[str, str]:
        """Return the visible and masked text of `line`, the `index`-th body line."""
        if self.state == NORMAL and not _SPECIAL.search(line):
            return line, line
        visible: list[str] = []
        masked: list[str] = []
        pos, end = 0, len(line)
        while pos < end:
            if self.state == COMMENT:
                close = line.find(self.comment_close, pos)
                if close < 0:
                    break
                pos, self.state = close + len(self.comment_close), NORMAL
                continue
            if self.state == MATH:
                close = line.find("$$", pos)
                stop = end if close < 0 else close + 2
                visible.append(line[pos:stop])
                masked.append(MASK * (stop - pos))
                pos = stop
                if close >= 0:
                    self.state = NORMAL
                continue
            pos = self._split_normal(line, pos, index, visible, masked)
        return "".join(visible), "".join(masked)

    def _split_normal(self, line: str, pos: int, index: int, visible: list[str], masked: list[str]) -> int:
        found = _SPECIAL.search(line, pos)
        if found is None:
            visible.append(line[pos:])
            masked.append(line[pos:])
            return len(line)
        start = found.start()
        visible.append(line[pos:start])
        masked.append(line[pos:start])
        char = line[start]
        stop = start + 1
        is_masked = False
        if char == "\\":
            stop = min(start + 2, len(line))
        elif char in "%<" and not self.include_comments:
            opener = "%%" if char == "%" else "<!--"
            if line.startswith(opener, start):
                self.state, self.comment_close = COMMENT, _COMMENT_CLOSE[opener]
                return start + len(opener)
        elif char == "`":
            stop, is_masked = self._code_span(line, start)
        elif char == "$":
            stop, is_masked = self._math(line, start, index)
        visible.append(line[start:stop])
        masked.append(MASK * (stop - start) if is_masked else line[start:stop])
        return stop

    @staticmethod
    def _code_span(line: str, start: int) -> tuple[int, bool]:
        run_end = start
        while run_end < len(line) and line[run_end] == "`":
            run_end += 1
        close = _closing_run(run_end - start).search(line, run_end)
        if close is None:
            return run_end, False
        return close.end(), True

    def _math(self, line: str, start: int, index: int) -> tuple[int, bool]:
        if line.startswith("$$", start):
            close = line.find("$$", start + 2)
            if close >= 0:
                return close + 2, True
            if index < self.last_math_line:
                self.state = MATH
                return len(line), True
            return start + 2, False
        inline = _INLINE_MATH.match(line, start)
        if inline is None:
            return start + 1, False
        return inline.end(), True
