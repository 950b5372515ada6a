"""Heading-aware chunking: one chunk a section, heading paths, anchors, note metadata and empty notes."""

from __future__ import annotations

from datetime import date

import pytest

from core.domain import Link, Note
from rag.chunks.chunking import heading_link_text
from tests.unit.chunk_notes import chunk, lay_out


def test_each_section_becomes_a_chunk_with_its_heading_path() -> None:
    laid = lay_out([((), "Intro text."), (("Alpha",), "Alpha text."), (("Alpha", "Beta"), "Beta text.")])

    chunks = chunk(laid.note)

    assert [(c.heading_path, c.text) for c in chunks] == [
        ((), "Intro text."),
        (("Alpha",), "Alpha text."),
        (("Alpha", "Beta"), "Beta text."),
    ]
    assert chunks[2].embed_text == "Note > Alpha > Beta\nBeta text."
    assert [c.index for c in chunks] == [0, 1, 2]


def test_a_section_of_empty_list_items_makes_no_chunk_and_an_all_empty_note_is_named_by_its_headings() -> None:
    # kepano-obsidian's Recipe Template: "## Ingredients" then "- ", whose chunk "-" ranked 5th for "evergreen notes".
    laid = lay_out([(("Ingredients",), "- "), (("Directions",), "- [ ]"), (("Notes",), "Taste first.")])
    skeleton = lay_out([(("Ingredients",), "- "), (("Directions",), "-")], title="Recipe Template")

    assert [(c.heading_path, c.text) for c in chunk(laid.note)] == [(("Notes",), "Taste first.")]
    (only,) = chunk(skeleton.note)
    assert only.text == "Recipe Template\n# Ingredients\n# Directions"


def test_anchors_name_the_preamble_the_innermost_heading_and_colliding_notes() -> None:
    laid = lay_out([((), "Intro."), (("Top",), "Top."), (("Top", "Deep"), "Deep.")], path="Folder/Note.md")

    plain = chunk(laid.note)
    colliding = chunk(laid.note, link_text="Folder/Note")

    assert [c.anchor for c in plain] == ["[[Note]]", "[[Note#Top]]", "[[Note#Deep]]"]
    assert [c.anchor for c in colliding] == ["[[Folder/Note]]", "[[Folder/Note#Top]]", "[[Folder/Note#Deep]]"]


def test_anchor_strips_characters_obsidian_cannot_link() -> None:
    laid = lay_out([(("Q: what [is] #this | that^%%x%%?",), "Body.")])

    (only,) = chunk(laid.note)

    assert only.anchor == "[[Note#Q what is this that x ?]]"
    assert only.heading_path == ("Q: what [is] #this | that^%%x%%?",)


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("Plain heading", "Plain heading"),
        ("Time: 10:30", "Time 10 30"),
        ("See [[Other note]]", "See Other note"),
        ("a#b|c^d", "a b c d"),
        ("100%% done %%", "100 done"),
        ("50% off", "50% off"),
        ("  spaced   out  ", "spaced out"),
    ],
)
def test_heading_link_text_replaces_unlinkable_characters(heading: str, expected: str) -> None:
    assert heading_link_text(heading) == expected


def test_chunks_carry_note_tags_path_and_title() -> None:
    laid = lay_out([((), "Text.")], title="Alpha", path="Projects/Alpha.md", tags=("project", "area/work"))

    (only,) = chunk(laid.note, link_text="Alpha")

    assert (only.path, only.title, only.tags) == ("Projects/Alpha.md", "Alpha", ("project", "area/work"))


def test_heading_without_text_yields_no_chunk() -> None:
    laid = lay_out([(("Empty",), ""), (("Full",), "Some text."), (("Also empty",), "")])

    chunks = chunk(laid.note)

    assert [(c.heading_path, c.text) for c in chunks] == [(("Full",), "Some text.")]


def test_note_of_headings_only_yields_one_chunk_naming_title_and_headings() -> None:
    laid = lay_out([(("Ideas",), ""), (("Ideas", "Later"), "")], title="Inbox")

    (only,) = chunk(laid.note, link_text="Inbox")

    assert only.text == "Inbox\n# Ideas\n## Later"
    assert (only.heading_path, only.anchor, only.index) == ((), "[[Inbox]]", 0)
    assert (only.line_start, only.line_end) == (1, 2)


def test_empty_note_yields_one_chunk_with_title_aliases_and_tags() -> None:
    related = Link(target="Other", line=3)
    note = Note(path="People/Ann.md", title="Ann", aliases=("Ann B.", "AB"), tags=("person",), links=(related,))

    (only,) = chunk(note, link_text="Ann")

    assert only.text == "Ann\nAliases: Ann B., AB\nTags: #person"
    assert only.embed_text.startswith("Ann\n")
    assert (only.anchor, only.links, only.line_start, only.line_end) == ("[[Ann]]", ("Other",), 1, 3)


def test_whitespace_is_trimmed_and_blank_sections_yield_nothing() -> None:
    laid = lay_out([((), "\n\n   \n"), (("H",), "\n\nText here.\n\n\n   ")])

    chunks = chunk(laid.note)

    assert [c.text for c in chunks] == ["Text here."]
    assert (chunks[0].line_start, chunks[0].line_end) == (8, 8)  # heading on 5, text from 6


def test_a_note_of_only_properties_is_chunked_with_them() -> None:
    # kepano-obsidian's movies are all properties: "What rating did I give Blade Runner?" found only the title.
    frontmatter = {
        "categories": ["[[Movies]]"],
        "director": ["[[Ridley Scott]]"],
        "rating": 7,
        "seen": True,
        "last": date(2023, 9, 14),
        "tags": ["movie"],
        "cssclasses": ["wide"],
        "empty": None,
        "nested": {"a": 1},
        "maps": [{"a": 1}, "kept", [2, 3]],
        "plot": "word " * 60,
    }
    note = Note(path="Blade Runner.md", title="Blade Runner", tags=("movie",), frontmatter=frontmatter)

    (only,) = chunk(note, link_text="Blade Runner")

    rows = only.text.splitlines()
    assert rows[:7] == [
        "Blade Runner",
        "Tags: #movie",
        "categories: [[Movies]]",
        "director: [[Ridley Scott]]",
        "rating: 7",
        "seen: true",
        "last: 2023-09-14",
    ]
    assert rows[7] == "maps: kept"
    assert rows[8].startswith("plot: word word") and rows[8].endswith(" …") and len(rows[8]) <= 210
    assert len(rows) == 9
