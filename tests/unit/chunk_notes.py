"""Notes laid out on file lines, a chunking shortcut and token counters shared by the test_chunking_* modules."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.domain import Chunk, Heading, Link, Note, Section
from rag.chunks.chunking import chunk_note


def count_words(text: str) -> int:
    """Whitespace words plus [CLS] and [SEP]."""
    return len(text.split()) + 2


def count_chars(text: str) -> int:
    """About four characters a token, rounded up, plus two special tokens."""
    return math.ceil(len(text) / 4) + 2


@dataclass
class Laid:
    """A note laid out on file lines, with the lines, so tests can check chunk line ranges."""

    note: Note
    lines: list[str]


def lay_out(
    parts: Sequence[tuple[tuple[str, ...], str]],
    *,
    title: str = "Note",
    path: str | None = None,
    links: Sequence[Link] = (),
    tags: tuple[str, ...] = (),
    aliases: tuple[str, ...] = (),
) -> Laid:
    """Build a Note whose sections sit on consecutive lines: a heading line (if any), then the text."""
    sections: list[Section] = []
    headings: list[Heading] = []
    lines: list[str] = []
    for heading_path, text in parts:
        level = len(heading_path)
        if heading_path:
            lines.append("#" * level + " " + heading_path[-1])
            start = len(lines)
            headings.append(Heading(level, heading_path[-1], start))
        else:
            start = len(lines) + 1
        if text:
            lines.extend(text.split("\n"))
        sections.append(Section(heading_path, level, start, max(len(lines), start), text))
    note = Note(
        path=path or f"{title}.md",
        title=title,
        sections=tuple(sections),
        headings=tuple(headings),
        links=tuple(links),
        tags=tags,
        aliases=aliases,
    )
    return Laid(note, lines)


def chunk(
    note: Note,
    *,
    count: Callable[[str], int] = count_words,
    max_tokens: int = 256,
    overlap: int = 32,
    link_text: str = "Note",
    embedded: Callable[[Link], str | None] | None = None,
) -> list[Chunk]:
    return chunk_note(
        note,
        link_text=link_text,
        count_tokens=count,
        max_tokens=max_tokens,
        overlap_tokens=overlap,
        embedded_text=embedded,
    )


def squeeze(text: str) -> str:
    return "".join(text.split())


def paragraph(seed: int, words: int) -> str:
    return " ".join(f"w{seed}x{i}" for i in range(words)) + "."
