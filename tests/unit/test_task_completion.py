"""toggle_task with the Tasks plugin: the done date and a recurring task's next occurrence, line by line.

The expected lines follow the plugin's own docs (docs/Getting Started/Recurring Tasks.md) where they give one.
"""

from __future__ import annotations

from datetime import date

import pytest

from edits.text.body import toggle_task
from edits.text.task_completion import TasksPlugin
from edits.text.task_fields import read_task_fields
from rag.notes.obsidian_config import TasksPluginSettings

TODAY = date(2024, 3, 6)  # a Wednesday
DEFAULTS = TasksPluginSettings()
DATAVIEW = TasksPluginSettings(is_dataview_format=True)


def toggled(line: str, settings: TasksPluginSettings = DEFAULTS, today: date = TODAY) -> list[str]:
    """Return the lines a note holding only `line` has after toggle_task."""
    return toggle_task(line + "\n", line=1, plugin=TasksPlugin(settings, today)).text.splitlines()


CASES = [
    ("done date on completion", "- [ ] water", ["- [x] water ✅ 2024-03-06"]),
    ("done date before a block link", "- [ ] water ^abc1", ["- [x] water ✅ 2024-03-06 ^abc1"]),
    ("stale done/cancelled dates go", "- [ ] water ✅ 2020-01-01 ❌ 2020-01-02", ["- [x] water ✅ 2024-03-06"]),
    ("reopening drops the done date", "- [x] water 📅 2024-03-01 ✅ 2024-03-02", ["- [ ] water 📅 2024-03-01"]),
    ("reopening drops a cancelled date", "- [-] water ❌ 2024-03-02 ^id", ["- [ ] water ^id"]),
    ("a date in the text stays", "- [x] the ✅ 2024-01-01 party notes", ["- [ ] the ✅ 2024-01-01 party notes"]),
    ("dataview done date", "- [ ] a  [due:: 2024-03-06]", ["- [x] a  [due:: 2024-03-06]  [completion:: 2024-03-06]"]),
    ("dataview reopening", "- [x] a (due:: 2024-03-06)  [completion:: 2024-03-06]", ["- [ ] a (due:: 2024-03-06)"]),
    (
        "the plugin's docs: every Sunday",
        "- [ ] take out the trash 🔁 every Sunday 📅 2021-04-25",
        ["- [ ] take out the trash 🔁 every Sunday 📅 2021-05-02",
         "- [x] take out the trash 🔁 every Sunday 📅 2021-04-25 ✅ 2024-03-06"],
    ),
    (
        "the reference date is due, then scheduled, then start; every date keeps its distance to it",
        "  * [ ] Mow the lawn #garden ⏫ 🔁 every 2 weeks 🛫 2021-10-20 ⏳ 2021-10-28 📅 2021-10-30",
        ["  * [ ] Mow the lawn #garden ⏫ 🔁 every 2 weeks 🛫 2021-11-03 ⏳ 2021-11-11 📅 2021-11-13",
         "  * [x] Mow the lawn #garden ⏫ 🔁 every 2 weeks 🛫 2021-10-20 ⏳ 2021-10-28 📅 2021-10-30 ✅ 2024-03-06"],
    ),
    (
        "scheduled only",
        "- [ ] sweep 🔁 every week ⏳ 2021-02-06",
        ["- [ ] sweep 🔁 every week ⏳ 2021-02-13", "- [x] sweep 🔁 every week ⏳ 2021-02-06 ✅ 2024-03-06"],
    ),
    (
        "when done: from today, keeping the other dates' distance",
        "- [ ] sweep 🔁 every week when done 🛫 2021-02-05 ⏳ 2021-02-06",
        ["- [ ] sweep 🔁 every week when done 🛫 2024-03-12 ⏳ 2024-03-13",
         "- [x] sweep 🔁 every week when done 🛫 2021-02-05 ⏳ 2021-02-06 ✅ 2024-03-06"],
    ),
    (
        "month clamped; id, dependency, block link and created date stay with the done task",
        "> - [ ] pay rent 🆔 rent1 ⛔ bank2 🔁 every month ➕ 2024-01-01 📅 2024-01-31 ^rent",
        ["> - [ ] pay rent 🔁 every month 📅 2024-02-29",
         "> - [x] pay rent 🆔 rent1 ⛔ bank2 🔁 every month ➕ 2024-01-01 📅 2024-01-31 ✅ 2024-03-06 ^rent"],
    ),
    (
        "no dates: the next occurrence is a copy",
        "- [ ] stretch 🔁 every day",
        ["- [ ] stretch 🔁 every day", "- [x] stretch 🔁 every day ✅ 2024-03-06"],
    ),
    (
        "on completion delete: only the next occurrence is left",
        "- [ ] stretch 🔁 every weekday 🏁 delete 📅 2024-03-08",
        ["- [ ] stretch 🔁 every weekday 🏁 delete 📅 2024-03-11"],
    ),
    ("on completion delete, not recurring: the task goes", "- [ ] once 🏁 delete", []),
    (
        "dataview recurrence",
        "1. [ ] review  [repeat:: every Monday]  [due:: 2024-03-04]",
        ["1. [ ] review  [repeat:: every Monday]  [due:: 2024-03-11]",
         "1. [x] review  [repeat:: every Monday]  [due:: 2024-03-04]  [completion:: 2024-03-06]"],
    ),
    (
        "reopening a recurring task adds no occurrence",
        "- [x] stretch 🔁 every day 📅 2024-03-06 ✅ 2024-03-06",
        ["- [ ] stretch 🔁 every day 📅 2024-03-06"],
    ),
]  # fmt: skip


@pytest.mark.parametrize(("case", "line", "expected"), CASES, ids=[c[0] for c in CASES])
def test_toggle_writes_what_the_tasks_plugin_writes(case: str, line: str, expected: list[str]) -> None:
    settings = DATAVIEW if "dataview" in case else DEFAULTS
    assert toggled(line, settings) == expected


def test_settings_place_the_next_occurrence_and_set_its_dates() -> None:
    settings = TasksPluginSettings(
        sets_done_date=False, sets_created_date=True, is_recurrence_on_next_line=True, removes_scheduled_date=True
    )
    line = "- [ ] trash 🔁 every week ➕ 2024-02-01 🛫 2024-03-01 ⏳ 2024-03-03 📅 2024-03-04"
    assert toggled(line, settings) == [
        "- [x] trash 🔁 every week ➕ 2024-02-01 🛫 2024-03-01 ⏳ 2024-03-03 📅 2024-03-04",
        "- [ ] trash 🔁 every week ➕ 2024-03-06 🛫 2024-03-08 📅 2024-03-11",
    ]
    # With the scheduled date dropped, start comes before it as the reference date.
    assert toggled("- [ ] trash 🔁 every week 🛫 2024-03-01 ⏳ 2024-03-03", settings)[1] == (
        "- [ ] trash 🔁 every week ➕ 2024-03-06 🛫 2024-03-08"
    )


def test_a_created_date_is_added_after_the_rule_when_the_task_had_none() -> None:
    settings = TasksPluginSettings(sets_created_date=True)
    assert toggled("- [ ] trash 🔁 every day 📅 2024-03-04", settings)[0] == (
        "- [ ] trash 🔁 every day ➕ 2024-03-06 📅 2024-03-05"
    )


def test_without_done_dates_or_the_global_filter_only_the_mark_changes() -> None:
    assert toggled("- [ ] water ✅ 2020-01-01", TasksPluginSettings(sets_done_date=False)) == ["- [x] water"]
    filtered = TasksPluginSettings(global_filter="#task")
    assert toggled("- [ ] water 🔁 every day", filtered) == ["- [x] water 🔁 every day"]  # no task to the plugin
    assert toggled("- [ ] #task water", filtered) == ["- [x] #task water ✅ 2024-03-06"]


def test_an_in_progress_task_is_completed_and_a_cancelled_one_reopened_as_the_plugin_does() -> None:
    # The plugin's default statuses: "/" (in progress) goes to done; "x", "X" and "-" (cancelled) back to todo.
    assert toggled("- [/] water") == ["- [x] water ✅ 2024-03-06"]
    assert toggled("- [X] water ✅ 2024-03-01") == ["- [ ] water"]
    assert toggled("- [-] water ❌ 2024-03-01") == ["- [ ] water"]


def test_without_the_plugin_toggle_is_a_plain_flip() -> None:
    line = "- [ ] trash 🔁 every week 📅 2024-03-04"
    flipped = toggle_task(line + "\n", line=1)
    assert (flipped.text, flipped.remark) == ("- [x] trash 🔁 every week 📅 2024-03-04\n", "")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (
            "- [ ] do stuff 🔁 every month on the last 📅 2022-01-31",
            "its rule 'every month on the last' is not supported",
        ),
        ("- [ ] do stuff 🔁 every year 📅 2024-02-30", "its due date 2024-02-30 does not exist"),
    ],
)
def test_an_occurrence_that_cannot_be_computed_is_not_guessed_and_the_summary_says_so(line: str, reason: str) -> None:
    result = toggle_task(line + "\n", line=1, plugin=TasksPlugin(DEFAULTS, TODAY))
    assert result.text == line.replace("[ ]", "[x]") + " ✅ 2024-03-06\n"  # completed all the same
    assert result.remark.startswith(f"next occurrence not created: {reason}")
    assert "add it in Obsidian" in result.remark


def test_a_task_to_delete_on_completion_stays_when_its_next_occurrence_is_not_created() -> None:
    line = "- [ ] pay rent 🔁 every month on the last 🏁 delete 📅 2024-02-29"
    assert toggled(line) == [line.replace("[ ]", "[x]") + " ✅ 2024-03-06"]  # the recurring task must not vanish


def test_a_recurring_task_says_its_next_occurrence_was_added_and_keeps_the_notes_line_endings() -> None:
    note = "# Chores\r\n- [ ] trash 🔁 every day 📅 2024-03-06\r\nend\r\n"
    result = toggle_task(note, task="trash 🔁 every day 📅 2024-03-06", plugin=TasksPlugin(DEFAULTS, TODAY))
    assert result.remark == "next occurrence added"
    assert result.text == (
        "# Chores\r\n- [ ] trash 🔁 every day 📅 2024-03-07\r\n"
        "- [x] trash 🔁 every day 📅 2024-03-06 ✅ 2024-03-06\r\nend\r\n"
    )


def test_fields_are_read_from_the_end_in_any_order_and_tags_among_them_are_passed_over() -> None:
    text = " call Bob 📅 2024-01-01 about it 📅 2024-03-04 #home 🔁 every week ⏫ ^blk"
    fields = read_task_fields(text, is_dataview=False)
    assert [(field.kind, field.value) for field in fields.fields] == [
        ("priority", "⏫"), ("recurrence", "every week"), ("tag", "#home"), ("due", "2024-03-04"),
    ]  # fmt: skip
    assert text[fields.fields_end :] == " ^blk"
    due = fields.first("due")
    assert due is not None and text[due.start : due.end] == " 📅 2024-03-04"
