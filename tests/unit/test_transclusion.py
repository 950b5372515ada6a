"""Unit tests for what an embed shows: whole notes, heading sections and blocks (rag.notes.transclusion)."""

from __future__ import annotations

import pytest

from rag.notes.transclusion import extract_embedded_text

NOTE = """---
tags: [x]
---

Intro line %%secret%%

# Alpha
alpha text
## Details
details text
### Deeper
deeper text
## Other
other text
# Beta
beta text
## Details
beta details
```
# Not a heading
```
"""


def test_whole_note_excludes_frontmatter_and_comments() -> None:
    text = extract_embedded_text(NOTE, heading=None, block=None)

    assert text is not None
    assert text.startswith("Intro line \n\n# Alpha")
    assert "secret" not in text
    assert "tags:" not in text
    assert text.endswith("```\n# Not a heading\n```")


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("Alpha", "# Alpha\nalpha text\n## Details\ndetails text\n### Deeper\ndeeper text\n## Other\nother text"),
        ("Details", "## Details\ndetails text\n### Deeper\ndeeper text"),
        ("details", "## Details\ndetails text\n### Deeper\ndeeper text"),
        ("Deeper", "### Deeper\ndeeper text"),
        ("Other", "## Other\nother text"),
        ("Beta#Details", "## Details\nbeta details\n```\n# Not a heading\n```"),
        ("Alpha#Details", "## Details\ndetails text\n### Deeper\ndeeper text"),
        ("Alpha#Deeper", "### Deeper\ndeeper text"),
    ],
)
def test_heading_embed_includes_sub_sections_up_to_the_next_peer(heading: str, expected: str) -> None:
    assert extract_embedded_text(NOTE, heading=heading, block=None) == expected


@pytest.mark.parametrize("heading", ["Missing", "Not a heading", "Beta#Deeper#Nope"])
def test_heading_not_found_is_none(heading: str) -> None:
    assert extract_embedded_text(NOTE, heading=heading, block=None) is None


def test_heading_match_ignores_punctuation_obsidian_strips_from_links() -> None:
    note = "# Q&A: Why?\nanswer\n# Next\n"

    assert extract_embedded_text(note, heading="Q&A Why?", block=None) == "# Q&A: Why?\nanswer"


def test_setext_heading_can_be_embedded() -> None:
    note = "Title\n=====\nbody\n\nSub\n---\nsub body"

    assert extract_embedded_text(note, heading="Title", block=None) == "Title\n=====\nbody\n\nSub\n---\nsub body"
    assert extract_embedded_text(note, heading="Sub", block=None) == "Sub\n---\nsub body"


BLOCKS = """# Notes

First paragraph
spans two lines ^para

- item one
- item two ^item
    - child of two
    - another child
- item three

| a | b |
| - | - |
| 1 | 2 |

^table

> quoted
> lines

^quote

```
x ^in-code
```
"""


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ("para", "First paragraph\nspans two lines"),
        ("item", "- item two\n    - child of two\n    - another child"),
        ("table", "| a | b |\n| - | - |\n| 1 | 2 |"),
        ("quote", "> quoted\n> lines"),
    ],
)
def test_block_embed_returns_the_block_carrying_the_id(block: str, expected: str) -> None:
    assert extract_embedded_text(BLOCKS, heading=None, block=block) == expected


@pytest.mark.parametrize("block", ["missing", "in-code", "PARA"])
def test_block_not_found_is_none(block: str) -> None:
    assert extract_embedded_text(BLOCKS, heading=None, block=block) is None


def test_block_wins_over_heading() -> None:
    assert extract_embedded_text(BLOCKS, heading="Notes", block="para") == "First paragraph\nspans two lines"


def test_paragraph_directly_under_a_heading_stops_at_the_heading() -> None:
    note = "# H\nline one\nline two ^p"

    assert extract_embedded_text(note, heading=None, block="p") == "line one\nline two"


def test_standalone_id_right_after_a_paragraph_names_that_paragraph() -> None:
    note = "intro\n\nthe paragraph\n^p\n\nafter"

    assert extract_embedded_text(note, heading=None, block="p") == "the paragraph"


def test_crlf_note_embeds_without_carriage_returns() -> None:
    note = "# A\r\ntext\r\n# B\r\n"

    assert extract_embedded_text(note, heading="A", block=None) == "# A\ntext"
