"""Markdown reader on hostile input (issue 8): YAML alias bombs, lines of thousands of links, many frontmatter links.

A case that was quadratic before its fix fails here through its timeout, never through a timed assertion.
"""

from __future__ import annotations

import pytest

from rag.notes.frontmatter import AliasExpansionError, to_plain
from rag.notes.markdown import parse_note
from tests.hostile_notes import billion_laughs, missing_links

ALIAS_WARNING = "frontmatter ignored: YAML aliases expand to more than 10000 values"


def test_a_billion_laughs_frontmatter_is_ignored_with_a_warning() -> None:
    note = parse_note("Laughs.md", billion_laughs(levels=9, width=9))

    assert note.frontmatter == {}
    assert note.frontmatter_error == ALIAS_WARNING
    assert ALIAS_WARNING in note.warnings
    assert note.headings[0].text == "Laughs"


def test_a_small_alias_bomb_that_would_still_expand_to_half_a_million_values_is_ignored() -> None:
    note = parse_note("Laughs.md", billion_laughs(levels=6, width=9))

    assert note.frontmatter == {}
    assert note.frontmatter_error == ALIAS_WARNING


def test_ordinary_anchors_aliases_and_merge_keys_still_work() -> None:
    text = (
        "---\n"
        "base: &base {status: draft, owner: ana}\n"
        "first:\n  <<: *base\n  title: One\n"
        "tags: &tags [garden, compost]\n"
        "again: *tags\n"
        "---\nBody\n"
    )
    note = parse_note("N.md", text)

    assert note.frontmatter_error is None
    assert note.frontmatter["first"] == {"status": "draft", "owner": "ana", "title": "One"}
    assert note.frontmatter["again"] == ["garden", "compost"]
    assert note.tags == ("garden", "compost")


def test_a_cyclic_alias_that_doubles_at_each_level_is_refused_not_walked() -> None:
    note = parse_note("N.md", "---\nloop: &loop [*loop, *loop]\n---\nBody\n")

    assert note.frontmatter == {}
    assert note.frontmatter_error == ALIAS_WARNING


def test_to_plain_counts_only_what_aliases_repeat() -> None:
    shared = ["x"] * 50
    assert to_plain({"a": shared, "b": shared}, max_alias_values=51) == {"a": shared, "b": shared}
    with pytest.raises(AliasExpansionError, match="more than 50 values"):
        to_plain({"a": shared, "b": shared}, max_alias_values=50)
    assert to_plain(["x"] * 100_000, max_alias_values=10) == ["x"] * 100_000  # written, not repeated


@pytest.mark.timeout(20)
def test_a_line_of_a_hundred_thousand_links_is_read_in_linear_time() -> None:
    note = parse_note("Links.md", missing_links(100_000))  # masking link by link took minutes

    assert len(note.links) == 100_000
    assert note.links[99_999].target == "missing note 99999"
    assert {link.line for link in note.links} == {1}
    assert note.tags == ()


@pytest.mark.timeout(30)
def test_thirty_thousand_escaped_frontmatter_links_are_placed_in_linear_time() -> None:
    # "\x5B" is "[" escaped: the YAML value holds the link, its line does not, so no line is found verbatim.
    rows = "".join(f'  - "\\x5B[missing note {n}]]"\n' for n in range(30_000))
    note = parse_note("N.md", f"---\nrelated:\n{rows}---\nBody\n")

    assert len(note.links) == 30_000
    assert {link.line for link in note.links} == {2}  # the frontmatter's first line


def test_an_anchored_long_string_repeated_by_aliases_counts_its_length() -> None:
    aliases = ", ".join(["*big"] * 200)
    note = parse_note("N.md", f'---\nbig: &big "{"compost " * 10_000}"\nmany: [{aliases}]\n---\nBody\n')

    assert note.frontmatter == {}
    assert note.frontmatter_error == "frontmatter ignored: YAML aliases repeat more than 1000000 characters"


def test_frontmatter_links_keep_the_line_they_are_written_on() -> None:
    text = '---\nup: "[[Home]]"\nrelated:\n  - "[[A]]"\n  - "[[B]]"\n  - "[[A]]"\nnext: "[[Home]]"\n---\nBody\n'
    note = parse_note("N.md", text)

    assert [(link.target, link.line) for link in note.links] == [
        ("Home", 2),
        ("A", 4),
        ("B", 5),
        ("A", 6),
        ("Home", 7),
    ]
