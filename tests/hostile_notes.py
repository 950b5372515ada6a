"""Generated hostile notes (issue 8): each is written beside ordinary notes to show it cannot stall the index."""

from __future__ import annotations

import random
from pathlib import Path


def billion_laughs(levels: int = 9, width: int = 9) -> str:
    """Return a note whose frontmatter anchors nest `levels` deep, each a list of `width` aliases (width^levels)."""
    rows = ['a0: &a0 ["lol"]']
    rows.extend(f"a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * width)}]" for level in range(1, levels + 1))
    return "---\n" + "\n".join(rows) + "\n---\n# Laughs\n\nThe body after a frontmatter bomb.\n"


def random_bytes(size: int = 1_000_000, *, seed: int = 8, has_nul: bool = True) -> bytes:
    """Return `size` random bytes (NUL and invalid UTF-8 among them), optionally without any NUL."""
    data = random.Random(seed).randbytes(size)
    return data if has_nul else data.replace(b"\x00", b"\x01")


def missing_links(count: int = 60_000, *, per_line: int = 0) -> str:
    """Return a note of `count` links to notes that do not exist: all on one line, or `per_line` a line."""
    links = [f"[[missing note {number}]]" for number in range(count)]
    if not per_line:
        return " ".join(links) + "\n"
    return "\n".join(" ".join(links[start : start + per_line]) for start in range(0, count, per_line)) + "\n"


def quote_tower(depth: int = 100_000) -> str:
    """Return a note whose one line is a blockquote nested `depth` levels deep."""
    return ">" * depth + " the bottom of the tower\n"


def repeated_embeds(count: int = 60_000, target: str = "Big") -> str:
    """Return a note that embeds the same note `count` times, one embed a line."""
    return f"![[{target}]]\n" * count


def big_note(paragraphs: int = 400) -> str:
    """Return an ordinary but long note (about 60 characters a paragraph) to be embedded."""
    return "".join(f"Paragraph {number} of a long note about compost and worms.\n\n" for number in range(paragraphs))


def write_hostile_vault(root: Path, name: str, content: str | bytes) -> Path:
    """Write `content` as `name` beside two ordinary notes in a vault at `root`; return the hostile note's path."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "Ordinary.md").write_text("# Ordinary\n\nA plain note about the allotment's rhubarb.\n", encoding="utf-8")
    (root / "Second.md").write_text("# Second\n\nAnother plain note, about [[Ordinary]] beans.\n", encoding="utf-8")
    path = root / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path
