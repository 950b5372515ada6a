"""Links kept working across a move: every link form is rewritten only when the move would break it."""

from __future__ import annotations

import pytest

from edits.text.links import LinkMove, find_written_links, rewrite_links
from rag.notes.links import LinkResolver

VAULT = (
    "Projects/Target.md",
    "Projects/Other.md",
    "Notes/Source.md",
    "Archive/Old.md",
    "Elsewhere/Twin.md",
    "img/pic.png",
)
SOURCE = "Notes/Source.md"


def renamed(new_path: str = "Projects/Renamed.md", *, old_path: str = "Projects/Target.md") -> LinkMove:
    return LinkMove.between(VAULT, old_path, new_path)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("[[Target]]", "[[Renamed]]"),
        ("[[Target#Heading]]", "[[Renamed#Heading]]"),
        ("[[Target#H1#H2]]", "[[Renamed#H1#H2]]"),
        ("[[Target|alias]]", "[[Renamed|alias]]"),
        ("[[Target#^block|alias]]", "[[Renamed#^block|alias]]"),
        ("![[Target]]", "![[Renamed]]"),
        ("![[Target#Heading]]", "![[Renamed#Heading]]"),
        ("[[ Target ]]", "[[ Renamed ]]"),
        ("[[target]]", "[[Renamed]]"),
        ("[[Target.md]]", "[[Renamed.md]]"),
        ("[[Projects/Target]]", "[[Projects/Renamed]]"),
        ("[[Projects/Target#Heading|alias]]", "[[Projects/Renamed#Heading|alias]]"),
        ("[[/Projects/Target]]", "[[/Projects/Renamed]]"),
        ("| [[Target\\|alias]] |", "| [[Renamed\\|alias]] |"),
        ("[text](Projects/Target.md)", "[text](Projects/Renamed.md)"),
        ("[text](Target.md#Heading)", "[text](Renamed.md#Heading)"),
        ("[text](Target)", "[text](Renamed)"),
        ("[text](<Projects/Target.md>)", "[text](<Projects/Renamed.md>)"),
        ("[text](../Projects/Target.md)", "[text](../Projects/Renamed.md)"),
        ('[text](Projects/Target.md "Title")', '[text](Projects/Renamed.md "Title")'),
        ("![alt](Target.md)", "![alt](Renamed.md)"),
        ("[![pic](../img/pic.png)](Target.md)", "[![pic](../img/pic.png)](Renamed.md)"),
        ("> - quoted [[Target]] in a list", "> - quoted [[Renamed]] in a list"),
    ],
)
def test_every_link_form_follows_a_rename(before: str, after: str) -> None:
    assert rewrite_links(f"See {before} here.\n", source=SOURCE, move=renamed()) == f"See {after} here.\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("[t](Projects/Target.md)", "[t](Projects/My%20Plan%20%281%29.md)"),
        ("[t](Target.md#Heading)", "[t](My%20Plan%20%281%29.md#Heading)"),
        ("[t](<Projects/Target.md>)", "[t](<Projects/My Plan (1).md>)"),
        ("[[Target|x]]", "[[My Plan (1)|x]]"),
    ],
)
def test_markdown_destinations_are_url_encoded_unless_in_angle_brackets(before: str, after: str) -> None:
    move = renamed("Projects/My Plan (1).md")
    assert rewrite_links(f"{before}\n", source=SOURCE, move=move) == f"{after}\n"


def test_a_fully_encoded_destination_stays_fully_encoded() -> None:
    move = LinkMove.between([*VAULT, "Projects/Café.md"], "Projects/Café.md", "Projects/Crème.md")
    text = "[c](Projects/Caf%C3%A9.md) and [d](Projects/Caf\u00e9.md)\n"
    assert rewrite_links(text, source=SOURCE, move=move) == "[c](Projects/Cr%C3%A8me.md) and [d](Projects/Crème.md)\n"


def test_frontmatter_links_in_string_values_are_rewritten_with_yaml_quoting() -> None:
    text = (
        "---\n"
        'related: "[[Target]]"\n'
        "list:\n"
        "  - '[[Projects/Target|T]]'\n"
        "  - plain [[Target]] text\n"
        "# a comment [[Target]]\n"
        "title: Target\n"
        "---\n"
        "Body [[Target]]\n"
    )
    move = renamed("Projects/Bob's plan.md")
    assert rewrite_links(text, source=SOURCE, move=move) == (
        "---\n"
        'related: "[[Bob\'s plan]]"\n'
        "list:\n"
        "  - '[[Projects/Bob''s plan|T]]'\n"
        "  - plain [[Bob's plan]] text\n"
        "# a comment [[Target]]\n"
        "title: Target\n"
        "---\n"
        "Body [[Bob's plan]]\n"
    )


def test_single_quoted_frontmatter_links_with_doubled_quotes_follow_a_move() -> None:
    vault = ("People/Bob's Notes.md", "Other/Bob's Notes.md", "Home.md")
    move = LinkMove.between(vault, "People/Bob's Notes.md", "Archive/Bob's Notes.md")
    text = "---\nup: '[[People/Bob''s Notes]]'\nrel: ['[[People/Bob''s Notes#Plans|Bob''s]]', 'it''s [[Home]]']\n---\n"
    assert rewrite_links(text, source="Home.md", move=move) == text.replace("People/", "Archive/")
    [up, rel, home] = find_written_links(text)
    assert (up.span.link.target, rel.span.link.target, rel.span.link.alias) == (
        "People/Bob's Notes",
        "People/Bob's Notes",
        "Bob's",
    )
    assert text.splitlines()[up.line][up.span.path_start : up.span.path_end] == "People/Bob''s Notes"
    assert home.span.link.target == "Home"


def test_unquoted_frontmatter_brackets_are_a_yaml_list_not_a_link() -> None:
    text = "---\nup: [[Target]]\n---\n"
    assert find_written_links(text) == []
    assert rewrite_links(text, source=SOURCE, move=renamed()) == text


CODE_AND_COMMENTS = (
    "Inline `[[Target]]` and ``[x](Target.md)`` stay.\n"
    "```\n[[Target]]\n```\n"
    "~~~markdown\n[[Target]]\n~~~\n"
    "\n    [[Target]] indented code\n\n"
    "%% [[Target]] %% and <!-- [[Target]] --> stay.\n"
    "%%\nblock comment [[Target]]\n%%\n"
    "<!--\n[[Target]]\n-->\n"
    "Math $[[Target]]$ stays.\n"
    "Only [[Target]] changes.\n"
)


def test_links_in_code_math_and_comments_are_never_touched() -> None:
    after = rewrite_links(CODE_AND_COMMENTS, source=SOURCE, move=renamed())
    assert after == CODE_AND_COMMENTS.replace("Only [[Target]]", "Only [[Renamed]]")


def test_a_move_to_another_folder_leaves_unique_names_alone_and_changes_only_path_links() -> None:
    text = "# Links\n[[Target]]\n[[Target#Heading|h]]\n![[Target]]\n[[Projects/Target]]\n[m](Target.md)\nend\n"
    after = rewrite_links(text, source=SOURCE, move=renamed("Archive/2024/Target.md"))
    assert after == text.replace("[[Projects/Target]]", "[[Archive/2024/Target]]")


def test_links_to_other_notes_and_unresolved_links_are_left_alone() -> None:
    text = "[[Other]] [[Missing]] [o](Projects/Other.md) [web](https://example.com/Target.md) [[#Local]]\n"
    assert rewrite_links(text, source=SOURCE, move=renamed()) == text


def test_a_name_that_is_no_longer_unique_becomes_the_full_path() -> None:
    move = renamed("Projects/Twin.md")  # Elsewhere/Twin.md exists
    assert rewrite_links("[[Target]] [t](Target.md)\n", source=SOURCE, move=move) == (
        "[[Projects/Twin]] [t](Projects/Twin.md)\n"
    )


def test_a_link_the_new_name_would_capture_keeps_its_note() -> None:
    # From Archive/, [[Other]] meant Projects/Other.md; a note renamed Archive/Other.md would win (same folder).
    move = renamed("Archive/Other.md")
    assert rewrite_links("[[Other]] and [[Target]]\n", source="Archive/Old.md", move=move) == (
        "[[Projects/Other]] and [[Archive/Other]]\n"
    )


def test_the_moved_note_keeps_its_relative_links_and_its_self_links() -> None:
    text = "# H\n[[Target#H]] [[#H]] [p](../img/pic.png) ![[pic.png]] [o](./Other.md) [[Other]]\n"
    move = renamed("Projects/Deep/Renamed.md")
    assert rewrite_links(text, source="Projects/Target.md", move=move) == (
        "# H\n[[Renamed#H]] [[#H]] [p](../../img/pic.png) ![[pic.png]] [o](../Other.md) [[Other]]\n"
    )


def test_crlf_bom_and_a_missing_final_newline_are_kept() -> None:
    text = '\ufeff---\r\nup: "[[Target]]"\r\n---\r\nLine [[Target]]\r\nlast [[Target]]'
    assert rewrite_links(text, source=SOURCE, move=renamed()) == text.replace("[[Target]]", "[[Renamed]]")


def test_only_the_lines_holding_broken_links_change() -> None:
    text = "".join(f"line {n} [[Other]]\n" for n in range(20)) + "the [[Target]] link\n" + "tail\n"
    after = rewrite_links(text, source=SOURCE, move=renamed())
    changed = [(old, new) for old, new in zip(text.splitlines(), after.splitlines(), strict=True) if old != new]
    assert changed == [("the [[Target]] link", "the [[Renamed]] link")]


def test_every_rewritten_link_resolves_to_the_moved_note() -> None:
    text = "[[Target]] [[Projects/Target|p]] [m](../Projects/Target.md) [n](Target.md#Heading) ![[Target]]\n"
    move = renamed("Elsewhere/Deep/Renamed Plan.md")
    resolver = LinkResolver([path for path in VAULT if path != "Projects/Target.md"] + [move.new_path])
    links = [written.span.link for written in find_written_links(rewrite_links(text, source=SOURCE, move=move))]
    assert len(links) == 5
    assert {resolver.resolve(link.target, source_path=SOURCE).path for link in links} == {move.new_path}


def test_written_links_report_their_exact_place_in_the_text() -> None:
    text = '---\nup: "[[Home|h]]"\n---\nA [x](<My Note.md#H>) and ![[img.png|100]]\n'
    lines = text.split("\n")
    places = [
        (w.line, lines[w.line][w.span.start : w.span.end], lines[w.line][w.span.path_start : w.span.path_end])
        for w in find_written_links(text)
    ]
    assert places == [
        (1, "[[Home|h]]", "Home"),
        (3, "[x](<My Note.md#H>)", "My Note.md"),
        (3, "![[img.png|100]]", "img.png"),
    ]
