"""Task fields: the Tasks plugin's emoji and Dataview inline fields read from a task's text."""

from __future__ import annotations

from datetime import date

import pytest

from rag.notes.markdown import parse_note
from rag.notes.task_fields import find_tasks, parse_task_fields


def test_tasks_plugin_emoji_give_dates_priority_and_recurrence() -> None:
    fields = parse_task_fields("#task Water the seedlings ⏫ 🔁 every day 🛫 2023-04-05 ⏳ 2023-04-06 📅 2023-04-07")
    assert fields.description == "#task Water the seedlings"
    assert (fields.start, fields.scheduled, fields.due) == (date(2023, 4, 5), date(2023, 4, 6), date(2023, 4, 7))
    assert fields.priority == "high" and fields.recurrence == "every day"


def test_created_done_and_cancelled_dates_are_read_and_removed() -> None:
    fields = parse_task_fields("Take out the trash 🔁 every week on Monday ➕ 2024-02-12 📅 2024-02-19 ✅ 2024-02-19")
    assert fields.description == "Take out the trash"
    assert fields.created == date(2024, 2, 12) and fields.done == date(2024, 2, 19)
    assert fields.recurrence == "every week on Monday"
    assert parse_task_fields("Old plan ❌ 2024-01-03").cancelled == date(2024, 1, 3)


@pytest.mark.parametrize(
    ("emoji", "priority"),
    [("🔺", "highest"), ("⏫", "high"), ("🔼", "medium"), ("🔽", "low"), ("⏬", "lowest")],
)
def test_each_priority_emoji_names_its_level(emoji: str, priority: str) -> None:
    fields = parse_task_fields(f"Call the plumber {emoji}")
    assert fields.priority == priority and fields.description == "Call the plumber"


def test_emoji_with_a_variation_selector_and_the_other_due_emoji_are_read() -> None:
    fields = parse_task_fields("Pay rent 📆\ufe0f 2026-01-01 🔼\ufe0f")
    assert fields.due == date(2026, 1, 1) and fields.priority == "medium" and fields.description == "Pay rent"
    assert parse_task_fields("Pay rent 🗓2026-02-01").due == date(2026, 2, 1)
    assert parse_task_fields("Nap ⌛ 2026-02-02").scheduled == date(2026, 2, 2)


def test_dataview_inline_fields_in_brackets_and_parentheses() -> None:
    fields = parse_task_fields(
        "Pay fee [due:: 2026-01-05] (scheduled:: 2025-12-30) [priority:: high] [repeat:: every month]"
    )
    assert fields.description == "Pay fee"
    assert fields.due == date(2026, 1, 5) and fields.scheduled == date(2025, 12, 30)
    assert fields.priority == "high" and fields.recurrence == "every month"
    spaced = parse_task_fields("Write report [due::2021-08-22  ] [start:: 2021-08-01] [completion:: 2021-08-20]")
    assert spaced.due == date(2021, 8, 22) and spaced.start == date(2021, 8, 1) and spaced.done == date(2021, 8, 20)


def test_other_inline_fields_and_plain_parentheses_stay_in_the_text() -> None:
    fields = parse_task_fields("Plant bulbs [project:: Garden] (see the plan) [priority:: urgent]")
    assert fields.description == "Plant bulbs [project:: Garden] (see the plan) [priority:: urgent]"
    assert fields.priority is None and fields.due is None


def test_an_impossible_date_is_no_field_and_stays_in_the_text() -> None:
    fields = parse_task_fields("Leap day party 📅 2026-02-30 [due:: 2026-13-01]")
    assert fields.due is None
    assert fields.description == "Leap day party 📅 2026-02-30 [due:: 2026-13-01]"


def test_a_field_given_twice_keeps_the_last_one() -> None:
    assert parse_task_fields("Moved 📅 2026-01-01 📅 2026-02-01").due == date(2026, 2, 1)


def test_dependency_id_and_reminder_markers_are_removed_from_the_text() -> None:
    fields = parse_task_fields("Ship it ⛔ abc12, def34 🆔 x1 ⏰ 2026-01-01 09:00 🏁 delete")
    assert fields.description == "Ship it"


def test_a_task_without_fields_is_returned_as_written() -> None:
    fields = parse_task_fields("Buy  straw for the garlic mulch")
    assert fields.description == "Buy straw for the garlic mulch"
    assert (fields.due, fields.scheduled, fields.start, fields.priority, fields.recurrence) == (None,) * 5


NOTE = """---
title: Chores
tags: [task]
---
# Chores

- [ ] Sweep 📅 2026-01-01
> - [/] Quoted task
1. [x] Numbered and done
* [-] Cancelled
    - [ ] Nested

```
- [ ] In a code block
```

%% - [ ] In a comment %%
<!--
- [ ] In an HTML comment
-->
- [ ]
Not a task [ ] at all
"""


def test_find_tasks_finds_what_parse_note_finds() -> None:
    found = find_tasks(NOTE)
    assert found == list(parse_note("Chores.md", NOTE).tasks)
    assert [(task.text, task.status, task.line) for task in found] == [
        ("Sweep 📅 2026-01-01", " ", 7),
        ("Quoted task", "/", 8),
        ("Numbered and done", "x", 9),
        ("Cancelled", "-", 10),
        ("Nested", " ", 11),
        ("", " ", 21),
    ]


def test_find_tasks_reads_a_note_whose_frontmatter_is_not_closed_as_body() -> None:
    text = "---\n- [ ] Task under an unclosed frontmatter\n"
    assert find_tasks(text) == list(parse_note("x.md", text).tasks) and len(find_tasks(text)) == 1
