"""Markdown reader: %% and HTML comments, include_comments, and unclosed-block warnings."""

from __future__ import annotations

import pytest

from core.domain import Section
from rag.notes.markdown import parse_note


def test_comments_are_removed_from_section_text_keeping_lines() -> None:
    body = "# H\nkeep %%inline%% this\n%%\nhidden\n\nstill hidden\n%%\nafter"
    note = parse_note("N.md", body)

    assert note.sections == (Section(("H",), 1, 1, 8, "keep  this\n\n\n\n\n\nafter", body_line=2),)


def test_comment_spanning_lines_mid_text_hides_only_its_content() -> None:
    note = parse_note("N.md", "a %% one\ntwo %% b #tag")

    assert note.sections[0].text == "a \n b #tag"
    assert note.tags == ("tag",)


@pytest.mark.parametrize(
    "body",
    [
        "<!--\n- [ ] hidden task #hidden [[Hidden]]\n-->",
        "- [ ] shown <!-- #hidden [[Hidden]] -->",
    ],
)
def test_html_comments_hide_tags_links_and_tasks(body: str) -> None:
    note = parse_note("N.md", body)

    assert (note.tags, note.links) == ((), ())
    assert [task.text for task in note.tasks] == ([] if body.startswith("<!--") else ["shown"])


def test_html_comment_is_removed_from_section_text() -> None:
    assert parse_note("N.md", "a <!-- b\nc --> d").sections[0].text == "a \n d"


def test_angle_brackets_that_are_not_comments_stay() -> None:
    assert parse_note("N.md", "a <b> c -> d <!- e").sections[0].text == "a <b> c -> d <!- e"


def test_comment_markers_inside_code_are_literal() -> None:
    note = parse_note("N.md", "`%%` #shown\n```\n%%\n```\n#also")

    assert note.tags == ("shown", "also")
    assert note.warnings == ()


def test_include_comments_keeps_comment_text_and_tags() -> None:
    note = parse_note("N.md", "%% #hidden [[Link]] %%", include_comments=True)

    assert note.tags == ("hidden",)
    assert [link.target for link in note.links] == ["Link"]


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("```\ncode", "code fence opened on line 1 is not closed"),
        ("text\n%% open\nmore", "comment opened on line 2 is not closed"),
    ],
)
def test_unclosed_blocks_are_reported(body: str, fragment: str) -> None:
    assert fragment in parse_note("N.md", body).warnings
