"""What Obsidian shows for an embed: a whole note, a heading's section, or one block."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.notes.frontmatter import find_frontmatter_end
from rag.notes.inline import BLOCK_ID
from rag.notes.links import heading_key
from rag.notes.markdown import heading_paths, join_text
from rag.notes.scanner import HeadingSpan, Scan, ScannedLine, indent_width, scan_lines, split_lines

_LIST_ITEM = re.compile(r"^[ \t]*(?:>[ \t]*)*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_LEADING_BLANK_LINES = re.compile(r"^(?:[ \t]*\n)+")
_STANDALONE_ID = re.compile(r"^\s*\^[A-Za-z0-9_-]+\s*$")


def _scan(text: str) -> Scan:
    lines = split_lines(text)
    end = find_frontmatter_end(lines)
    start = 0 if end is None else end + 1
    return scan_lines(lines[start:], first_line=start + 1)


def _render(lines: Sequence[ScannedLine]) -> str:
    return _LEADING_BLANK_LINES.sub("", join_text(lines))


def _is_blank(line: ScannedLine) -> bool:
    return line.kind != "code" and not line.visible.strip()


def _find_heading(scan: Scan, heading: str) -> HeadingSpan | None:
    """Return the heading matching the last component of "H1#H2", preferring one under the given parents."""
    wanted = [heading_key(part) for part in heading.split("#") if part.strip()]
    if not wanted:
        return None
    paths = heading_paths(scan.headings)
    matches = [i for i, span in enumerate(scan.headings) if heading_key(span.text) == wanted[-1]]
    for index in matches:
        parents = iter(heading_key(text) for text in paths[index][:-1])
        if all(parent in parents for parent in wanted[:-1]):  # parents appear in order (skipping allowed)
            return scan.headings[index]
    return scan.headings[matches[0]] if matches else None


def _heading_section(scan: Scan, span: HeadingSpan) -> str:
    later = [other.first for other in scan.headings if other.first > span.first and other.level <= span.level]
    end = later[0] if later else len(scan.lines)
    return _render(scan.lines[span.first : end])


def _block_bounds(scan: Scan, index: int) -> tuple[int, int]:
    """Return [start, end) of the block that the `^id` on line `index` names."""
    lines = scan.lines
    line = lines[index]
    if _STANDALONE_ID.match(line.masked):  # names the block above it
        end = index
        while end > 0 and _is_blank(lines[end - 1]):
            end -= 1
    elif _LIST_ITEM.match(line.visible):  # a list item: the item and its nested children
        end, base = index + 1, indent_width(line.visible)
        while end < len(lines) and (_is_blank(lines[end]) or indent_width(lines[end].visible) > base):
            end += 1
        while end > index + 1 and _is_blank(lines[end - 1]):
            end -= 1
        return index, end
    else:  # the paragraph whose last line carries " ^id"
        end = index + 1
    heading_lines = {i for span in scan.headings for i in range(span.first, span.last + 1)}
    start = end - 1
    while start > 0 and not _is_blank(lines[start - 1]) and start - 1 not in heading_lines:
        start -= 1
    return max(start, 0), end


def _block(scan: Scan, block: str) -> str | None:
    for index, line in enumerate(scan.lines):
        found = BLOCK_ID.search(line.masked) if line.kind == "text" and "^" in line.masked else None
        if found is None or found[1] != block:
            continue
        start, end = _block_bounds(scan, index)
        if start >= end:
            return None
        shown = [scanned.visible for scanned in scan.lines[start:end]]
        if index < end:  # drop the marker itself, as reading view does
            shown[index - start] = line.visible[: found.start()].rstrip()
        return _LEADING_BLANK_LINES.sub("", "\n".join(shown).rstrip())
    return None


def extract_embedded_text(text: str, *, heading: str | None = None, block: str | None = None) -> str | None:
    """Return what Obsidian shows for `![[note]]`, `![[note#Heading]]` or `![[note#^block]]`, None if absent.

    Args:
        text: the embedded note's markdown.
        heading: the heading subpath; nested headings are joined with '#' ("H1#H2" means H2 under H1).
        block: a block id without the caret; it wins over `heading` when both are given.

    """
    scan = _scan(text)
    if block:
        return _block(scan, block)
    if heading and heading.strip():
        span = _find_heading(scan, heading)
        return None if span is None else _heading_section(scan, span)
    return _render(scan.lines)
