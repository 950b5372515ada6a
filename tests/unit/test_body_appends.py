"""Added text stays its own block where Markdown would swallow it, and a note keeps its final newline state."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from edits.diffs import unified_diff
from edits.text import body as ops
from edits.text import frontmatter as fm

TART = """# Brown butter nectarine tart

## Tips

- If your oven doesn't have a convection fan, the baking times will take a little longer.
- This tart goes very well with homemade whipped cream.

## Notes
Some notes
"""


def test_a_line_appended_to_a_section_ending_in_a_list_is_its_own_paragraph() -> None:
    after = ops.append_to_section(TART, "Tips", "Use less sugar next time")
    assert after == TART.replace("whipped cream.\n", "whipped cream.\n\nUse less sugar next time\n")


@pytest.mark.parametrize("item", ["- Use less sugar", "* Use less sugar", "1. Use less sugar", "- [ ] Buy nectarines"])
def test_a_list_item_appended_to_a_section_ending_in_a_list_continues_the_list(item: str) -> None:
    after = ops.append_to_section(TART, "Tips", item)
    assert after == TART.replace("whipped cream.\n", f"whipped cream.\n{item}\n")


@pytest.mark.parametrize(
    ("before", "content", "expected"),
    [
        ("# A\n- one\n  more of one\n", "text", "# A\n- one\n  more of one\n\ntext\n"),  # an item's own paragraph
        ("# A\n- one\nlazy\n", "text", "# A\n- one\nlazy\n\ntext\n"),  # already a lazy line of the item
        ("# A\n> quoted\n", "text", "# A\n> quoted\n\ntext\n"),
        ("# A\n> quoted\n", "> more", "# A\n> quoted\n> more\n"),
        ("# A\n| a | b |\n| - | - |\n| 1 | 2 |\n", "text", "# A\n| a | b |\n| - | - |\n| 1 | 2 |\n\ntext\n"),
        ("# A\n| a | b |\n| - | - |\n| 1 | 2 |\n", "| 3 | 4 |", "# A\n| a | b |\n| - | - |\n| 1 | 2 |\n| 3 | 4 |\n"),
        ("# A\nplain text\n", "text", "# A\nplain text\ntext\n"),  # a paragraph goes on as before
        ("# A\n- one\n\n", "text", "# A\n- one\n\ntext\n"),  # a blank line is there already
        ("# A\n```\n- code\n```\n", "text", "# A\n```\n- code\n```\ntext\n"),  # a closed fence keeps nothing open
    ],
)
def test_append_to_note_separates_text_from_a_block_that_would_swallow_it(
    before: str, content: str, expected: str
) -> None:
    assert ops.append_to_note(before, content) == expected


def test_append_to_note_looks_at_the_body_not_the_frontmatter() -> None:
    before = "---\ntags:\n  - a\n---\n"
    assert ops.append_to_note(before, "text") == before + "text\n"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda t: ops.prepend_to_note(t, "- first"), "- first\n\nIntro\n- one\n"),
        (lambda t: ops.prepend_to_note(t, "> quote"), "> quote\n\nIntro\n- one\n"),
        (lambda t: ops.prepend_to_note(t, "top"), "top\nIntro\n- one\n"),
        (lambda t: ops.prepend_to_section("# H\nIntro\n", "H", "- first"), "# H\n- first\n\nIntro\n"),
        (lambda t: ops.prepend_to_section("# H\n- one\n", "H", "- first"), "# H\n- first\n- one\n"),
    ],
)
def test_prepended_list_or_quote_does_not_swallow_the_line_under_it(edit: Callable[[str], str], expected: str) -> None:
    assert edit("Intro\n- one\n") == expected


# Notes/Minimal Theme.md of the kepano-obsidian vault ends without a newline, as Obsidian writes notes.
NO_FINAL_NEWLINE = "---\nyear: 2020\n---\n## To-do\n\n- [x] Color schemes\n- [x] Mobile support"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda t: fm.set_property(t, "year", 2021), NO_FINAL_NEWLINE.replace("2020", "2021")),
        (lambda t: ops.toggle_task(t, line=7).text, NO_FINAL_NEWLINE.replace("[x] Mobile", "[ ] Mobile")),
        (lambda t: ops.prepend_to_section(t, "To-do", "top"), NO_FINAL_NEWLINE.replace("To-do\n", "To-do\ntop\n")),
        (lambda t: ops.replace_section(t, "To-do", "- [ ] Docs"), "---\nyear: 2020\n---\n## To-do\n- [ ] Docs"),
    ],
)
def test_an_edit_keeps_a_note_without_a_final_newline_without_one(edit: Callable[[str], str], expected: str) -> None:
    assert edit(NO_FINAL_NEWLINE) == expected


@pytest.mark.parametrize(
    "edit",
    [lambda t: ops.append_to_note(t, "- [ ] Docs"), lambda t: ops.add_task(t, "Docs", heading="To-do")],
)
def test_text_appended_after_the_last_line_ends_with_a_newline(edit: Callable[[str], str]) -> None:
    # The old last line gains its ending either way; the new one ends with one so a later append joins right.
    assert edit(NO_FINAL_NEWLINE) == NO_FINAL_NEWLINE + "\n- [ ] Docs\n"


def test_the_diff_of_an_edit_of_a_note_without_a_final_newline_shows_only_the_change() -> None:
    diff = unified_diff("n.md", NO_FINAL_NEWLINE, fm.set_property(NO_FINAL_NEWLINE, "year", 2021))
    assert [line for line in diff.splitlines() if line.startswith(("+", "-", "\\"))] == [
        "--- a/n.md",
        "+++ b/n.md",
        "-year: 2020",
        "+year: 2021",
    ]


def test_a_note_with_a_final_newline_keeps_it() -> None:
    assert ops.append_to_note("a\n", "b") == "a\nb\n"
    assert ops.append_to_note("", "b") == "b\n"
