"""Unit tests for the Obsidian-flavoured markdown reader (rag.markdown and the scanner under it)."""

from __future__ import annotations

import pytest

from core.domain import BlockId, Heading, Link, Section, Task
from rag.markdown import parse_note


def tags_of(body: str) -> tuple[str, ...]:
    return parse_note("Note.md", body).tags


def links_of(body: str) -> list[tuple[str, str | None, str | None, str | None, bool, str]]:
    return [
        (link.target, link.heading, link.block, link.alias, link.is_embed, link.kind)
        for link in parse_note("Note.md", body).links
    ]


# --- frontmatter ---------------------------------------------------------------------------------------------


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


# --- inline tags ---------------------------------------------------------------------------------------------


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


# --- headings ------------------------------------------------------------------------------------------------


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


# --- links ---------------------------------------------------------------------------------------------------


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


# --- block ids and tasks -------------------------------------------------------------------------------------


def test_block_ids_end_a_line_or_stand_alone() -> None:
    body = "Paragraph text ^para-1\n\n- item ^item_2\n\n| a |\n\n^table\n\nno^inside\n`code ^x`\n```\nx ^fenced\n```"
    assert parse_note("N.md", body).block_ids == (BlockId("para-1", 1), BlockId("item_2", 3), BlockId("table", 7))


def test_footnote_is_not_a_block_id() -> None:
    assert parse_note("N.md", "Text[^1]\n\n[^1]: note").block_ids == ()


@pytest.mark.parametrize(
    ("body", "task"),
    [
        ("- [ ] open", Task("open", " ", 1)),
        ("- [x] done", Task("done", "x", 1)),
        ("* [X] done", Task("done", "X", 1)),
        ("+ [/] half", Task("half", "/", 1)),
        ("1. [-] cancelled", Task("cancelled", "-", 1)),
        ("2) [?] question", Task("question", "?", 1)),
        ("- parent\n    - [>] nested", Task("nested", ">", 2)),
        ("- parent\n\t- [ ] tabbed", Task("tabbed", " ", 2)),
        ("> - [ ] in callout", Task("in callout", " ", 1)),
        (">     - [ ] indented in callout", Task("indented in callout", " ", 1)),
        ("- [ ] with id ^t1", Task("with id", " ", 1)),
        ("- [ ]", Task("", " ", 1)),
    ],
)
def test_tasks_accept_any_status_character(body: str, task: Task) -> None:
    assert parse_note("N.md", body).tasks == (task,)


@pytest.mark.parametrize(
    "body",
    ["```\n- [ ] code\n```", "%%\n- [ ] comment\n%%", "- [] no status", "-[ ] no space", "x - [ ] text", "[ ] bare"],
)
def test_non_tasks_are_ignored(body: str) -> None:
    assert parse_note("N.md", body).tasks == ()


def test_task_completion_flag() -> None:
    tasks = parse_note("N.md", "- [x] a\n- [/] b").tasks
    assert [task.is_done for task in tasks] == [True, False]


# --- comments ------------------------------------------------------------------------------------------------


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


# --- sections ------------------------------------------------------------------------------------------------


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
