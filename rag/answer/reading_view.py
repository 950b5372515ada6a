"""Note text as Obsidian's reading view shows it: `%%comments%%` and `<!-- comments -->` removed, code kept.

What a note hides from its reader is no text for the model either: an instruction planted in a comment must not
reach a prompt as note text, nor be quoted back. Indexed chunks are already made of visible text; this is for
text read from the vault as it is (a note a tool reads whole).
"""

from __future__ import annotations

from rag.notes.frontmatter import find_frontmatter_end
from rag.notes.scanner import scan_lines, split_lines


def visible_text(markdown: str) -> str:
    """Return `markdown` without its comments; lines that held only a comment go, the frontmatter stays as written.

    Comments inside code (fenced, indented or inline) are code, shown as written, as in reading view.
    """
    if "%%" not in markdown and "<!--" not in markdown:
        return markdown
    lines = split_lines(markdown)
    end = find_frontmatter_end(lines)
    start = 0 if end is None else end + 1
    body = lines[start:]
    scan = scan_lines(body, first_line=start + 1)
    pairs = zip(body, scan.lines, strict=True)
    shown = [scanned.visible for raw, scanned in pairs if scanned.visible.strip() or not raw.strip()]
    return "\n".join([*lines[:start], *shown])
