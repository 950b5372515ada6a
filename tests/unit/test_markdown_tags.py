"""Markdown reader: inline #tags and where they are ignored (code, math, comments, links)."""

from __future__ import annotations

import pytest

from rag.notes.markdown import parse_note


def tags_of(body: str) -> tuple[str, ...]:
    return parse_note("Note.md", body).tags


@pytest.mark.parametrize(
    ("body", "tags"),
    [
        ("#tag", ("tag",)),
        ("text #tag more", ("tag",)),
        ("#nested/tag", ("nested/tag",)),
        ("#tag.", ("tag",)),
        ("#tag, #other;", ("tag", "other")),
        ("#123", ()),
        ("#1a", ("1a",)),
        ("#y1984", ("y1984",)),
        ("#with_under-score", ("with_under-score",)),
        ("#émoji🎉", ("émoji🎉",)),
        ("foo#bar", ()),
        ("\\#escaped", ()),
        ("# Heading", ()),
        ("## Heading #in-heading", ("in-heading",)),
        ("`#code`", ()),
        ("``a ` #code``", ()),
        ("text `x` #after-code", ("after-code",)),
        ("$#math$", ()),
        ("cost $5 and #tag $10", ("tag",)),
        ("$$#block$$ #after", ("after",)),
        ("%%#hidden%% #shown", ("shown",)),
        ("[x](http://a.b/#frag)", ()),
        ("[x](Note.md#heading)", ()),
        ("see https://x.com/#anchor", ()),
        ("see https://x.com/ #real", ("real",)),
        ("[[Note#Heading]]", ()),
        ("[[#Heading]]", ()),
        ("| #in-table | x |", ("in-table",)),
        ("- [ ] task #todo", ("todo",)),
        ("> quoted #q", ("q",)),
        ("#a#b", ("a",)),
        ("#tag\u2014dash", ("tag",)),
    ],
)
def test_inline_tags_follow_obsidian_rules(body: str, tags: tuple[str, ...]) -> None:
    assert tags_of(body) == tags


@pytest.mark.parametrize(
    "body",
    [
        "```\n#fenced\n```",
        "~~~md\n#fenced\n~~~",
        "````\n```\n#inner\n```\n````",
        "```\n#a\n~~~\n#b\n```",
        "```\n#a\n``\n#b\n```",
        "para\n\n    #indented-code",
        "$$\n#math-block\n$$",
        "%%\n#comment-block\n%%",
        "text %% start\n#inside\nend %%",
    ],
)
def test_tags_in_code_math_and_comment_blocks_are_ignored(body: str) -> None:
    assert tags_of(body) == ()


def test_tag_after_a_closed_fence_counts() -> None:
    assert tags_of("```\n#no\n```\n#yes") == ("yes",)


def test_indented_list_items_are_not_code() -> None:
    body = "- item\n\n    - nested #four-spaces\n\t- tabbed #tab"
    assert tags_of(body) == ("four-spaces", "tab")


def test_indented_line_inside_a_paragraph_is_not_code() -> None:
    assert tags_of("para\n    continued #tag") == ("tag",)


def test_fenced_code_inside_a_callout_hides_tags() -> None:
    assert tags_of("> [!note]\n> ```\n> #hidden\n> ```\n> #shown") == ("shown",)


def test_unclosed_dollar_pair_is_plain_text() -> None:
    assert tags_of("price $$ 5\n#tag") == ("tag",)
