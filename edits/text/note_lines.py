"""A note as lines for the text edits: parsed keeping its BOM and each line's own ending, rendered back the same.

A BOM and every untouched line's own ending (LF or CRLF) are kept, new lines take the note's most common ending,
and a note without a final newline (as Obsidian writes notes) keeps none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rag.notes.frontmatter import find_frontmatter_end
from rag.notes.scanner import Scan, scan_lines


@dataclass(slots=True)
class NoteLines:
    """A note split into lines, with what rendering it back needs (BOM, each line's own ending, the usual ending)."""

    lines: list[str]
    bom: str
    eol: str  # the note's most common line ending, for new lines
    original: list[tuple[str, str]] = field(default_factory=list)  # each parsed line and its own ending

    @classmethod
    def parse(cls, text: str) -> NoteLines:
        """Split `text` into lines (as `split_lines` does), remembering its BOM and each line's ending."""
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        parts = text.removeprefix("\ufeff").split("\n")
        last = parts.pop()  # the text after the final newline: "" or a last line without an ending
        original = [(part[:-1], "\r\n") if part.endswith("\r") else (part, "\n") for part in parts]
        if last:
            original.append((last, ""))
        crlf = sum(ending == "\r\n" for _, ending in original)
        eol = "\r\n" if crlf > len(original) - crlf else "\n"
        return cls([line for line, _ in original], bom, eol, original)

    def render(self) -> str:
        """Return the note's text; it ends with a newline unless the parsed note was one without it."""
        return self.bom + "".join(line + ending for line, ending in zip(self.lines, self._endings(), strict=True))

    def _endings(self) -> list[str]:
        """Return each line's ending: its own for lines kept from the parsed note, the usual one for the rest.

        Every edit here changes one run of lines, so the lines before and after it match the parsed note's
        by position from either end (linear, unlike a full diff, for notes of any size).
        """
        old, new = self.original, self.lines
        head = 0
        while head < min(len(old), len(new)) and old[head][0] == new[head]:
            head += 1
        tail = 0
        while tail < min(len(old), len(new)) - head and old[-1 - tail][0] == new[-1 - tail]:
            tail += 1
        kept = [ending for _, ending in old[:head]] + [self.eol] * (len(new) - head - tail)
        kept += [ending for _, ending in old[len(old) - tail :]]
        endings = [ending or self.eol for ending in kept]
        # A note without a final newline keeps none, so a diff holds only the edit, not a last line "changed" by a
        # newline. Text appended after that line is the exception: the old last line needs an ending to keep the
        # text off it anyway, and ending the text with one lets the next append (a plugin's, a script's) join too.
        is_appended = head == len(old) < len(new)
        if endings and old and not old[-1][1] and not is_appended:
            endings[-1] = ""
        return endings

    @property
    def body_start(self) -> int:
        """Return the index of the first line after the frontmatter block (0 without one)."""
        end = find_frontmatter_end(self.lines)
        return 0 if end is None else end + 1

    def scan(self) -> Scan:
        """Scan the body (after the frontmatter); scanned line numbers are 1-based file lines."""
        start = self.body_start
        return scan_lines(self.lines[start:], first_line=start + 1)
