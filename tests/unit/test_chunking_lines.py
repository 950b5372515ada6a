"""Chunk line ranges point at the note's file lines, and chunk links are the targets written on those lines."""

from __future__ import annotations

from core.domain import Link, Note, Section
from tests.unit.chunk_notes import chunk, lay_out


def test_line_ranges_point_at_the_file_lines_of_the_text() -> None:
    laid = lay_out(
        [
            ((), "Intro line one.\nIntro line two."),
            (("Big",), "\n\n".join("\n".join(f"r{b}_{i} " + "z " * 6 for i in range(4)) for b in range(6))),
            (("Small",), "Tail text."),
        ]
    )

    chunks = chunk(laid.note, max_tokens=40, overlap=6)

    assert (chunks[0].line_start, chunks[0].line_end) == (1, 2)
    assert (chunks[-1].line_start, chunks[-1].line_end) == (len(laid.lines), len(laid.lines))
    big = [c for c in chunks if c.heading == "Big"]
    assert len(big) > 2
    for piece in big:
        source = "\n".join(laid.lines[piece.line_start - 1 : piece.line_end])
        assert all(row.strip() in source for row in piece.text.split("\n"))
        assert piece.text.split("\n")[0].strip() in laid.lines[piece.line_start - 1]
        assert piece.text.split("\n")[-1].strip() in laid.lines[piece.line_end - 1]


def test_links_are_the_targets_written_in_the_chunks_lines() -> None:
    text_one = "See [[Alpha]] and [[Beta|b]].\nAlso [[#Local]] and [[Alpha]] again."
    links = [
        Link(target="Alpha", line=2),
        Link(target="Beta", alias="b", line=2),
        Link(target="", heading="Local", line=3),
        Link(target="Alpha", line=3),
        Link(target="Gamma", line=5),
        Link(target="Pic.png", is_embed=True, line=5),
    ]
    laid = lay_out([(("One",), text_one), (("Two",), "[[Gamma]] ![[Pic.png]]")], links=links)

    one, two = chunk(laid.note)

    assert one.links == ("Alpha", "Beta")
    assert two.links == ("Gamma", "Pic.png")


def test_setext_heading_text_starts_at_the_sections_body_line() -> None:
    lines = ["Multi-line", "setext heading", "--------------", "First body line.", "Second body line."]
    section = Section(("Multi-line setext heading",), 2, 1, 5, "First body line.\nSecond body line.", body_line=4)
    note = Note(path="Note.md", title="Note", sections=(section,), links=(Link(target="X", line=3),))

    (only,) = chunk(note)

    assert (only.line_start, only.line_end) == (4, 5)
    assert lines[only.line_start - 1] == "First body line."
    assert only.links == ()  # the link on the underline's line is not in the text
