"""Markdown reader: block ids and tasks."""

from __future__ import annotations

import pytest

from core.domain import BlockId, Task
from rag.notes.markdown import parse_note


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
