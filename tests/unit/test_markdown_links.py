"""Markdown reader: wikilinks, markdown links, embeds and frontmatter links."""

from __future__ import annotations

import pytest

from core.domain import Link
from rag.notes.markdown import parse_note


def links_of(body: str) -> list[tuple[str, str | None, str | None, str | None, bool, str]]:
    return [
        (link.target, link.heading, link.block, link.alias, link.is_embed, link.kind)
        for link in parse_note("Note.md", body).links
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("[[Note]]", ("Note", None, None, None, False, "wikilink")),
        ("[[Note.md]]", ("Note.md", None, None, None, False, "wikilink")),
        ("[[Folder/Note]]", ("Folder/Note", None, None, None, False, "wikilink")),
        ("[[Note|Alias]]", ("Note", None, None, "Alias", False, "wikilink")),
        ("[[Note#Heading]]", ("Note", "Heading", None, None, False, "wikilink")),
        ("[[Note#H1#H2]]", ("Note", "H1#H2", None, None, False, "wikilink")),
        ("[[Note#Details|Section name]]", ("Note", "Details", None, "Section name", False, "wikilink")),
        ("[[#Heading]]", ("", "Heading", None, None, False, "wikilink")),
        ("[[Note#^abc]]", ("Note", None, "abc", None, False, "wikilink")),
        ("[[#^abc]]", ("", None, "abc", None, False, "wikilink")),
        ("| [[Note\\|Alias]] |", ("Note", None, None, "Alias", False, "wikilink")),
        ("![[Note]]", ("Note", None, None, None, True, "wikilink")),
        ("![[Note#Heading]]", ("Note", "Heading", None, None, True, "wikilink")),
        ("![[img.png|100x200]]", ("img.png", None, None, None, True, "wikilink")),
        ("![[img.png|100]]", ("img.png", None, None, None, True, "wikilink")),
        ("| ![[img.png\\|200]] |", ("img.png", None, None, None, True, "wikilink")),
        ("![[Doc.pdf#page=3]]", ("Doc.pdf", "page=3", None, None, True, "wikilink")),
        ("[text](Folder/Note.md#Heading)", ("Folder/Note.md", "Heading", None, "text", False, "markdown")),
        ("[text](My%20Note.md)", ("My Note.md", None, None, "text", False, "markdown")),
        ("[text](<Path with spaces.md>)", ("Path with spaces.md", None, None, "text", False, "markdown")),
        ("[text](Note.md#^blk)", ("Note.md", None, "blk", "text", False, "markdown")),
        ('[text](Note.md "Title")', ("Note.md", None, None, "text", False, "markdown")),
        ("![](img.png)", ("img.png", None, None, None, True, "markdown")),
        ("![alt|100](img.png)", ("img.png", None, None, "alt", True, "markdown")),
        ("[x](#Local%20Heading)", ("", "Local Heading", None, "x", False, "markdown")),
    ],
)
def test_links_are_parsed_into_target_subpath_and_alias(
    body: str, expected: tuple[str, str | None, str | None, str | None, bool, str]
) -> None:
    assert links_of(body) == [expected]


@pytest.mark.parametrize(
    "body",
    [
        "[x](https://example.com/a.md)",
        "[x](http://a.b/#frag)",
        "[x](mailto:someone@example.com)",
        "[x](obsidian://open?vault=v&file=f)",
        "[x](//cdn.example.com/a.png)",
        "`[[Code]]`",
        "```\n[[Fenced]]\n```",
        "$[[math]]$",
        "%%[[Hidden]]%%",
        "%%\n[[Hidden]]\n%%",
        "[[## editor query]]",
        "[^1] footnote",
        "[]()",
    ],
)
def test_external_and_hidden_links_are_not_vault_links(body: str) -> None:
    assert links_of(body) == []


def test_links_keep_their_order_and_lines() -> None:
    note = parse_note("N.md", "intro\n[a](A.md) then [[B]]\n![[C]]")

    assert [(link.target, link.line) for link in note.links] == [("A.md", 2), ("B", 2), ("C", 3)]


def test_image_inside_a_markdown_link_counts_as_both() -> None:
    assert [target for target, *_ in links_of("[![alt](img.png)](Note.md)")] == ["Note.md", "img.png"]


def test_frontmatter_wikilinks_are_links_with_their_line() -> None:
    text = '---\ntitle: x\nup: "[[Home]]"\nrelated:\n  - "[[A|Alpha]]"\n  - "[[B#Part]]"\n---\nBody [[C]]'
    note = parse_note("N.md", text)

    assert note.links == (
        Link("Home", line=3),
        Link("A", alias="Alpha", line=5),
        Link("B", heading="Part", line=6),
        Link("C", line=8),
    )


def test_unquoted_wikilink_in_yaml_is_a_nested_list_not_a_link() -> None:
    assert parse_note("N.md", "---\nup: [[Home]]\n---\n").links == ()


def test_embeds_property_lists_only_embeds() -> None:
    note = parse_note("N.md", "[[A]] ![[B]]")

    assert [link.target for link in note.embeds] == ["B"]
