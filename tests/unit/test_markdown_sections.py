"""Markdown reader: ATX and setext headings, sections split by headings, note title and folder."""

from __future__ import annotations

import pytest

from core.domain import Heading, Section
from rag.notes.markdown import parse_note


@pytest.mark.parametrize(
    ("body", "headings"),
    [
        ("# One", [(1, "One")]),
        ("###### Six", [(6, "Six")]),
        ("####### Seven", []),
        ("## Closed ##", [(2, "Closed")]),
        ("## Keep# ", [(2, "Keep#")]),
        ("#tag", []),
        ("#", []),
        ("   # Indented three", [(1, "Indented three")]),
        ("    # Indented four", []),
        ("# Title %%note%%", [(1, "Title")]),
        ("```\n# not\n```", []),
        ("%%\n# not\n%%", []),
        ("Setext one\n===", [(1, "Setext one")]),
        ("Setext two\n---", [(2, "Setext two")]),
        ("Two line\nparagraph\n---", [(2, "Two line paragraph")]),
        ("- item\n---", []),
        ("> quote\n---", []),
        ("\n---\n", []),
        ("# A\n---", [(1, "A")]),
    ],
)
def test_headings_are_atx_or_setext(body: str, headings: list[tuple[int, str]]) -> None:
    assert [(h.level, h.text) for h in parse_note("N.md", body).headings] == headings


def test_heading_lines_are_one_based_file_lines() -> None:
    note = parse_note("N.md", "---\na: 1\n---\n# A\ntext\n\nSetext\n---\n")

    assert note.headings == (Heading(1, "A", 4), Heading(2, "Setext", 7))


def test_sections_split_by_headings_with_a_level_stack() -> None:
    text = (
        "---\ntags: [x]\n---\n"  # lines 1-3
        "Preamble\n"  # 4
        "# Top\n"  # 5
        "top text\n"  # 6
        "### Skipped level\n"  # 7
        "deep\n"  # 8
        "## Second\n"  # 9
        "\n"  # 10
        "second text\n"  # 11
        "\n"  # 12
        "# Other\n"  # 13
    )
    note = parse_note("N.md", text)

    assert note.sections == (
        Section((), 0, 4, 4, "Preamble", body_line=4),
        Section(("Top",), 1, 5, 6, "top text", body_line=6),
        Section(("Top", "Skipped level"), 3, 7, 8, "deep", body_line=8),
        Section(("Top", "Second"), 2, 9, 12, "\nsecond text", body_line=10),
        Section(("Other",), 1, 13, 13, "", body_line=14),
    )


def test_blank_preamble_is_omitted() -> None:
    note = parse_note("N.md", "---\na: 1\n---\n\n  \n# H\nx")

    assert [section.heading_path for section in note.sections] == [("H",)]


def test_code_is_kept_in_section_text_and_hides_headings() -> None:
    body = "# H\n```\n# not a heading\n```\nafter"
    assert parse_note("N.md", body).sections == (
        Section(("H",), 1, 1, 5, "```\n# not a heading\n```\nafter", body_line=2),
    )


def test_setext_heading_section_text_starts_after_the_underline() -> None:
    note = parse_note("N.md", "Title\n=====\nbody")

    assert note.sections == (Section(("Title",), 1, 1, 3, "body", body_line=3),)


def test_empty_note_has_no_sections() -> None:
    note = parse_note("Empty.md", "")

    assert note.sections == ()
    assert note.title == "Empty"


def test_title_is_the_file_stem_and_folder_is_kept() -> None:
    note = parse_note("Projects/v1.2 Plan.md", "x")

    assert (note.title, note.folder) == ("v1.2 Plan", "Projects")
