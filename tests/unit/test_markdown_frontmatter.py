"""Markdown reader: YAML frontmatter, aliases and frontmatter tags (rag.notes.markdown)."""

from __future__ import annotations

import pytest

from core.domain import Heading, Section
from rag.notes.markdown import parse_note


def test_frontmatter_is_parsed_as_plain_json_like_values() -> None:
    text = "---\ntitle: Alpha\ncount: 3\nratio: 0.5\ndone: true\nnothing:\ncreated: 2024-01-02\nlist: [a, 1]\n---\nBody"
    note = parse_note("Projects/Alpha.md", text)

    assert note.frontmatter == {
        "title": "Alpha",
        "count": 3,
        "ratio": 0.5,
        "done": True,
        "nothing": None,
        "created": "2024-01-02",
        "list": ["a", 1],
    }
    assert note.frontmatter_error is None
    assert note.sections == (Section((), 0, 10, 10, "Body", body_line=10),)


def test_frontmatter_uses_yaml_1_2_so_yes_and_on_stay_strings() -> None:
    note = parse_note("N.md", "---\nanswer: yes\nswitch: on\noctal: 017\n---\n")

    assert note.frontmatter == {"answer": "yes", "switch": "on", "octal": 17}


def test_frontmatter_datetime_and_impossible_date_become_strings() -> None:
    note = parse_note("N.md", "---\nat: 2020-08-21T10:30:00\nbad: 2020-02-30\n---\n")

    assert note.frontmatter == {"at": "2020-08-21T10:30:00", "bad": "2020-02-30"}
    assert note.frontmatter_error is None


def test_frontmatter_tolerates_crlf_line_endings() -> None:
    text = "---\r\ntags: [a]\r\n---\r\n# Head\r\nText #b\r\n"
    note = parse_note("N.md", text)

    assert note.frontmatter == {"tags": ["a"]}
    assert note.tags == ("a", "b")
    assert note.headings == (Heading(1, "Head", 4),)
    assert note.sections == (Section(("Head",), 1, 4, 5, "Text #b", body_line=5),)


def test_empty_frontmatter_block_is_valid() -> None:
    note = parse_note("N.md", "---\n---\nBody")

    assert note.frontmatter == {}
    assert note.frontmatter_error is None
    assert note.warnings == ()
    assert note.sections == (Section((), 0, 3, 3, "Body", body_line=3),)


def test_broken_yaml_keeps_the_body_and_reports_the_line() -> None:
    text = "---\ntitle: ok\nbad: [unclosed\n---\n# Kept\nbody #still-tagged"
    note = parse_note("N.md", text)

    assert note.frontmatter == {}
    assert note.frontmatter_error is not None
    assert "line" in note.frontmatter_error
    assert note.warnings == (note.frontmatter_error,)
    assert note.headings == (Heading(1, "Kept", 5),)
    assert note.tags == ("still-tagged",)


def test_a_templates_placeholders_are_its_text_not_broken_yaml() -> None:
    # kepano-obsidian's templates: 28 of them were reported as "invalid YAML frontmatter ... unhashable key".
    text = '---\ncreated: {{date}}\ntags:\n  - {{tag}}\ntitle: "{{title}}"\nday: {{date:YYYY-MM-DD}}\n---\nBody'
    note = parse_note("Templates/Daily.md", text)

    assert note.frontmatter_error is None and note.warnings == ()
    assert note.frontmatter == {
        "created": "{{date}}",
        "tags": ["{{tag}}"],
        "title": "{{title}}",
        "day": "{{date:YYYY-MM-DD}}",
    }
    commented = parse_note("N.md", "---\ncreated: {{date}} # stamp\nnotes: |\n  key: {{x}}\n---\nBody")
    assert commented.frontmatter == {"created": "{{date}}", "notes": "key: {{x}}"}  # a block scalar's text as is
    broken = parse_note("N.md", "---\ncreated: {{date}}\nbad: [unclosed\n---\nBody")
    assert broken.frontmatter == {} and broken.frontmatter_error is not None
    assert "did not find expected" in broken.frontmatter_error  # the real error, not the placeholder


def test_broken_yaml_message_points_at_the_file_line() -> None:
    note = parse_note("N.md", "---\na: 1\nb: c: d\n---\n")

    assert note.frontmatter_error is not None
    assert note.frontmatter_error.startswith("invalid YAML frontmatter on line 3: mapping values are not allowed")


def test_frontmatter_that_is_not_a_mapping_is_an_error() -> None:
    note = parse_note("N.md", "---\n- a\n- b\n---\nBody")

    assert note.frontmatter == {}
    assert note.frontmatter_error is not None
    assert note.sections[0].text == "Body"


def test_dashes_after_the_first_line_are_never_frontmatter() -> None:
    text = "Intro\n\n---\ntags: [x]\n---\n"
    note = parse_note("N.md", text)

    assert note.frontmatter == {}
    assert note.tags == ()
    assert note.sections[0].text == "Intro\n\n---"  # a thematic break
    assert note.headings == (Heading(2, "tags: [x]", 4),)  # "---" under a paragraph line is a setext heading


def test_unclosed_frontmatter_is_read_as_body_with_a_warning() -> None:
    note = parse_note("N.md", "---\ntitle: x\n#tag")

    assert note.frontmatter == {}
    assert note.tags == ("tag",)
    assert any("not closed" in warning for warning in note.warnings)


@pytest.mark.parametrize(
    ("yaml", "aliases"),
    [
        ("aliases: [One, Two]", ("One", "Two")),
        ("aliases:\n  - One\n  - 2024", ("One", "2024")),
        ("aliases: Just one", ("Just one",)),
        ("aliases: One, Two", ("One", "Two")),
        ("alias: Legacy", ("Legacy",)),
        ("aliases: [One, one, null]", ("One",)),
        ("aliases:", ()),
    ],
)
def test_aliases_come_from_the_aliases_property(yaml: str, aliases: tuple[str, ...]) -> None:
    assert parse_note("N.md", f"---\n{yaml}\n---\n").aliases == aliases


@pytest.mark.parametrize(
    ("yaml", "tags"),
    [
        ("tags: [a, b/c]", ("a", "b/c")),
        ("tags:\n  - a\n  - '#b'", ("a", "b")),
        ("tags: a, b c", ("a", "b", "c")),
        ("tags: '#a #b'", ("a", "b")),
        ("tag: legacy", ("legacy",)),
        ("tags:\n  - #looks-like-a-tag-but-is-a-yaml-comment\n  - real", ("real",)),
        ("tags: [2024, y2024]", ("y2024",)),
        ("tags:", ()),
        ("tags: [A, a]", ("A",)),
    ],
)
def test_frontmatter_tags_accept_lists_and_strings(yaml: str, tags: tuple[str, ...]) -> None:
    assert parse_note("N.md", f"---\n{yaml}\n---\n").tags == tags


def test_frontmatter_tags_come_first_then_body_tags_deduplicated_case_insensitively() -> None:
    note = parse_note("N.md", "---\ntags: [Project]\n---\n#inbox #project #Inbox #later")

    assert note.tags == ("Project", "inbox", "later")


def test_hashtags_in_text_properties_are_not_tags() -> None:
    assert parse_note("N.md", "---\nsummary: 'about #stuff'\n---\n").tags == ()
