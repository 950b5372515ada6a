"""The propose tools' pure text edits: exact resulting text for each operation, and clear refusals."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.errors import InvalidRequest, NotFound
from edits.diffs import unified_diff
from edits.text import body as ops
from edits.text import frontmatter as fm

NOTE = """---
# planning notes
title: "Garden"  # shown in lists
tags:
  - plants
status: draft
---
# Garden
Intro

## Ideas
- one

### Sub
sub text

## Done
- [ ] water
- [x] dig
"""

BODY = "# Garden\nIntro\n\n## Ideas\n- one\n\n### Sub\nsub text\n\n## Done\n- [ ] water\n- [x] dig\n"
FRONT = '---\n# planning notes\ntitle: "Garden"  # shown in lists\ntags:\n  - plants\nstatus: draft\n---\n'

Edit = Callable[[str], str]

BODY_CASES: list[tuple[str, Edit, str]] = [
    # The note ends with a task list: the line is its own paragraph, not more text of the last task.
    ("append to note", lambda t: ops.append_to_note(t, "Last line"), FRONT + BODY + "\nLast line\n"),
    ("prepend after frontmatter", lambda t: ops.prepend_to_note(t, "First"), FRONT + "First\n" + BODY),
    (
        "append to section includes sub-sections",
        lambda t: ops.append_to_section(t, "Ideas", "- two"),
        FRONT + BODY.replace("sub text\n\n## Done", "sub text\n- two\n\n## Done"),
    ),
    (
        "prepend to section",
        lambda t: ops.prepend_to_section(t, "Ideas", "top"),
        FRONT + BODY.replace("## Ideas\n- one", "## Ideas\ntop\n- one"),
    ),
    (
        "replace section keeps heading and spacing",
        lambda t: ops.replace_section(t, "## ideas", "fresh\ntext"),
        FRONT + "# Garden\nIntro\n\n## Ideas\nfresh\ntext\n\n## Done\n- [ ] water\n- [x] dig\n",
    ),
    (
        "nested heading path",
        lambda t: ops.append_to_section(t, "Garden#Ideas#Sub", "more"),
        FRONT + BODY.replace("sub text\n", "sub text\nmore\n"),
    ),
    (
        "last section runs to the end",
        lambda t: ops.append_to_section(t, "Done", "- [ ] rake"),
        FRONT + BODY + "- [ ] rake\n",
    ),
    (
        "add task under heading",
        lambda t: ops.add_task(t, "sow beans", heading="Ideas"),
        FRONT + BODY.replace("sub text\n", "sub text\n- [ ] sow beans\n"),
    ),
    ("add task at end", lambda t: ops.add_task(t, "rake"), FRONT + BODY + "- [ ] rake\n"),
    (
        "toggle task by text",
        lambda t: ops.toggle_task(t, task="water").text,
        NOTE.replace("- [ ] water", "- [x] water"),
    ),
    ("untoggle task by line", lambda t: ops.toggle_task(t, line=19).text, NOTE.replace("- [x] dig", "- [ ] dig")),
]


@pytest.mark.parametrize(("case", "edit", "expected"), BODY_CASES, ids=[c[0] for c in BODY_CASES])
def test_body_edits_produce_exact_text(case: str, edit: Edit, expected: str) -> None:
    assert edit(NOTE) == expected


FRONT_CASES: list[tuple[str, str, Edit, str]] = [
    (
        "set existing property in place",
        NOTE,
        lambda t: fm.set_property(t, "status", "done"),
        NOTE.replace("status: draft", "status: done"),
    ),
    (
        "set new list property last",
        NOTE,
        lambda t: fm.set_property(t, "people", ["Ana", "Bo"]),
        NOTE.replace("status: draft\n", "status: draft\npeople:\n  - Ana\n  - Bo\n"),
    ),
    ("remove property", NOTE, lambda t: fm.remove_property(t, "status"), NOTE.replace("status: draft\n", "")),
    ("add tag", NOTE, lambda t: fm.add_tag(t, "#veg"), NOTE.replace("  - plants\n", "  - plants\n  - veg\n")),
    ("remove tag", NOTE, lambda t: fm.remove_tag(t, "Plants"), NOTE.replace("tags:\n  - plants\n", "")),
    (
        "add alias",
        NOTE,
        lambda t: fm.add_alias(t, "My Garden"),
        NOTE.replace("status: draft\n", "status: draft\naliases:\n  - My Garden\n"),
    ),
    ("create frontmatter", "Body\n", lambda t: fm.set_property(t, "status", "new"), "---\nstatus: new\n---\nBody\n"),
    (
        "tag string becomes list",
        "---\ntags: a b\n---\n",
        lambda t: fm.add_tag(t, "c"),
        "---\ntags:\n  - a\n  - b\n  - c\n---\n",
    ),
    ("empty block is removed", "---\nk: 1\n---\nx\n", lambda t: fm.remove_property(t, "k"), "x\n"),
    ("flush list style kept", "---\nt:\n- a\n---\n", lambda t: fm.set_property(t, "n", 2), "---\nt:\n- a\nn: 2\n---\n"),
    # The text of a number or checkbox, for a property holding one, keeps its type (not "year: '2021'").
    (
        "number stays a number",
        "---\nyear: 2020\n---\n",
        lambda t: fm.set_property(t, "year", "2021"),
        "---\nyear: 2021\n---\n",
    ),
    ("float from text", "---\nkm: 5\n---\n", lambda t: fm.set_property(t, "km", " 5.5"), "---\nkm: 5.5\n---\n"),
    (
        "checkbox from text",
        "---\ndone: false\n---\n",
        lambda t: fm.set_property(t, "done", "True"),
        "---\ndone: true\n---\n",
    ),
    ("literal kept", "---\nv: 1.2\n---\n", lambda t: fm.set_property(t, "v", "1.10"), "---\nv: '1.10'\n---\n"),
    ("no underscores", "---\nn: 5\n---\n", lambda t: fm.set_property(t, "n", "1_000"), "---\nn: '1_000'\n---\n"),
    (
        "text stays text",
        "---\nyear: 2020\n---\n",
        lambda t: fm.set_property(t, "year", "soon"),
        "---\nyear: soon\n---\n",
    ),
    (
        "new text property",
        "---\na: 1\n---\n",
        lambda t: fm.set_property(t, "code", "007"),
        "---\na: 1\ncode: '007'\n---\n",
    ),
]


@pytest.mark.parametrize(("case", "before", "edit", "expected"), FRONT_CASES, ids=[c[0] for c in FRONT_CASES])
def test_frontmatter_edits_produce_exact_text(case: str, before: str, edit: Edit, expected: str) -> None:
    assert edit(before) == expected


def test_frontmatter_round_trip_keeps_comments_quotes_and_order() -> None:
    after = fm.set_property(NOTE, "owner", "me")
    assert after.startswith('---\n# planning notes\ntitle: "Garden"  # shown in lists\ntags:\n  - plants\n')
    assert after.endswith("status: draft\nowner: me\n---\n" + BODY)


def test_crlf_and_bom_are_kept() -> None:
    before = "\ufeff# A\r\nline\r\n"
    assert ops.append_to_section(before, "A", "new") == "\ufeff# A\r\nline\r\nnew\r\n"


REFUSALS: list[tuple[str, Edit, type[Exception]]] = [
    ("missing heading", lambda t: ops.append_to_section(t, "Nope", "x"), NotFound),
    ("empty content", lambda t: ops.append_to_note(t, "  "), InvalidRequest),
    ("line is not a task", lambda t: ops.toggle_task(t, line=2), NotFound),
    ("task text unknown", lambda t: ops.toggle_task(t, task="mow"), NotFound),
    ("duplicate tag", lambda t: fm.add_tag(t, "plants"), InvalidRequest),
    ("bad tag", lambda t: fm.add_tag(t, "two words"), InvalidRequest),
    ("missing property", lambda t: fm.remove_property(t, "nope"), NotFound),
    ("tag only inline", lambda t: fm.remove_tag(t, "garden"), NotFound),
    ("bad yaml", lambda _: fm.set_property("---\na: [\n---\n", "b", 1), InvalidRequest),
]


@pytest.mark.parametrize(("case", "edit", "error"), REFUSALS, ids=[c[0] for c in REFUSALS])
def test_impossible_edits_are_refused_with_a_clear_error(case: str, edit: Edit, error: type[Exception]) -> None:
    with pytest.raises(error):
        edit(NOTE)


MIXED = "line1\nline2 pasted\r\nline3\nline4\n"


@pytest.mark.parametrize(
    ("before", "edit", "expected"),
    [
        (MIXED, lambda t: ops.append_to_note(t, "new"), MIXED + "new\n"),
        (MIXED, lambda t: ops.prepend_to_note(t, "top\r\nnext"), "top\nnext\n" + MIXED),
        ("a\r\nb\r\nc\n", lambda t: ops.append_to_note(t, "d"), "a\r\nb\r\nc\nd\r\n"),  # CRLF is the usual ending
        ("# A\r\nx\n# B\ny\r\n", lambda t: ops.append_to_section(t, "A", "new"), "# A\r\nx\nnew\n# B\ny\r\n"),
        ("# A\r\nx\r\n# B\r\ny\n", lambda t: ops.replace_section(t, "A", "z"), "# A\r\nz\r\n# B\r\ny\n"),
        ("---\r\nk: 1\r\n---\nbody\r\n", lambda t: fm.set_property(t, "k", 2), "---\r\nk: 2\r\n---\nbody\r\n"),
        ("a\n\nb", lambda t: ops.append_to_note(t, "c"), "a\n\nb\nc\n"),
    ],
)
def test_each_line_keeps_its_own_ending_and_new_lines_take_the_usual_one(
    before: str, edit: Edit, expected: str
) -> None:
    assert edit(before) == expected


def test_a_mixed_ending_note_diffs_only_the_real_change() -> None:
    diff = unified_diff("n.md", MIXED, ops.append_to_note(MIXED, "new"))
    assert [line for line in diff.splitlines() if line.startswith(("+", "-"))] == ["--- a/n.md", "+++ b/n.md", "+new"]


TWO_IDEAS = "# Garden\n## Ideas\ng\n# Work\n## Notes\n### Ideas\nw\n"


def test_a_heading_path_picks_the_heading_under_those_parents() -> None:
    assert ops.append_to_section(TWO_IDEAS, "Work#Ideas", "x") == TWO_IDEAS.replace("w\n", "w\nx\n")
    assert ops.append_to_section(TWO_IDEAS, "Ideas", "x") == TWO_IDEAS.replace("g\n", "g\nx\n")


def test_a_heading_path_whose_parents_fit_no_heading_is_not_found_and_names_the_candidates() -> None:
    with pytest.raises(NotFound, match="no heading 'Projects#Ideas'.*'Garden#Ideas', 'Work#Notes#Ideas'"):
        ops.append_to_section(TWO_IDEAS, "Projects#Ideas", "x")


CODE_TASKS = "---\nx:\n  - [ ] in frontmatter\n---\n```\n- [ ] in code\n```\n%%\n- [ ] in a comment\n%%\n- [ ] real\n"


@pytest.mark.parametrize(("line", "where"), [(3, "frontmatter"), (6, "code block"), (9, "comment")])
def test_toggle_by_line_refuses_task_lookalikes_in_code_comments_and_frontmatter(line: int, where: str) -> None:
    with pytest.raises(NotFound, match=f"line {line} is in (the|a) {where}"):
        ops.toggle_task(CODE_TASKS, line=line)
    assert ops.toggle_task(CODE_TASKS, line=11).text == CODE_TASKS.replace("- [ ] real", "- [x] real")


def test_toggle_by_text_ignores_task_lookalikes_in_code_and_comments() -> None:
    with pytest.raises(NotFound, match="no task with the text 'in code'"):
        ops.toggle_task(CODE_TASKS, task="in code")
    with pytest.raises(NotFound, match="no task with the text 'in a comment'"):
        ops.toggle_task(CODE_TASKS, task="in a comment")
