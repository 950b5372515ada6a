"""A section written by a model lists no task under another day's label than its due date gives."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from crews.contract.day_labels import foreign_dates, misplaced_by_day
from crews.contract.outputs import OutputInvalid, bind
from crews.definitions import OutputSpec
from tests.crew_output_cases import BRIEFING_MATERIAL

BRIEFING = OutputSpec(family="section.write", max_chars=3000)
MATERIAL = replace(BRIEFING_MATERIAL, as_of="2026-12-01")  # as tasks.open collects: today is 2026-12-01
PHOTOS = "Get new biometric passport photos taken ([[Renew passport]]; due 2020-03-01, OVERDUE by 2466 day(s))"
RECEIPTS = "Collect the receipts for the home office costs ([[File the tax return]]; due 2026-12-01, TODAY)"
BACKUPS = "Move the backups to the new NAS ([[Home Server Migration]]; due 2026-12-02, in 1 day(s))"
NUMBERS = (
    "Ask the analytics team for the delivery numbers ([[Prepare slides for the quarterly review]]; due 2026-12-03)"
)


def test_overdue_tasks_listed_again_under_due_today_are_sent_back() -> None:
    # The 1.5B over obsidian-tasks-demo (stop 62): its twelve overdue tasks under "Overdue Tasks", then again under
    # "Due Today", each still saying OVERDUE.
    written = f"## Today's Briefing\n\n### Overdue Tasks\n- {PHOTOS}\n\n### Due Today\n- {PHOTOS}\n"

    with pytest.raises(OutputInvalid, match=r'under "### Due Today", but it is due 2020-03-01 \(overdue; today is'):
        bind({"markdown": written}, BRIEFING, MATERIAL)


def test_each_task_under_the_label_its_due_date_gives_binds_as_written() -> None:
    written = (
        f"## Today's Briefing\n\n**Overdue:**\n- {PHOTOS}\n\nDue today:\n- {RECEIPTS}\n\n"
        f"Due tomorrow:\n- {BACKUPS}\n\nLater this week:\n- {NUMBERS}"
    )

    assert bind({"markdown": written}, BRIEFING, MATERIAL).markdown == written


def test_the_check_needs_the_day_the_material_was_collected_on() -> None:
    written = f"Due today:\n- {PHOTOS}"
    assert bind({"markdown": written}, BRIEFING, BRIEFING_MATERIAL).markdown == written  # no as_of: nothing known
    with pytest.raises(OutputInvalid, match="leave out a label with no task"):
        bind({"markdown": written}, BRIEFING, MATERIAL)


@pytest.mark.parametrize(
    ("markdown", "wrong"),
    [
        ("Heute fällig:\n- Steuer (OVERDUE by 3 day(s))", "Steuer"),  # no date, but the material's word for it
        ("### Overdue\n- Bins 📅 2026-12-02", "Bins"),  # the Tasks plugin's due date: tomorrow
        ("Tomorrow\n1. Call the bank [due:: 2026-12-01]", "Call the bank"),  # Dataview's: today
        ("Due today:\n- Dentist (scheduled 2026-11-20)", ""),  # no due date: not judged
        ("## Today's Briefing\n- Dentist (due 2026-11-20)", ""),  # a title names no day
        ("This week:\n- Dentist (due 2026-11-20)", ""),  # nor does a label of days
    ],
)  # fmt: skip
def test_a_label_is_read_by_the_day_it_names(markdown: str, wrong: str) -> None:
    found = misplaced_by_day(markdown, date(2026, 12, 1))
    assert (f'"{wrong}' in found) if wrong else found == ""


def test_a_reply_over_the_limit_is_told_its_misplaced_tasks_too() -> None:
    written = f"Overdue:\n- {PHOTOS}\n\nDue today:\n" + f"- {PHOTOS}\n" * 30

    with pytest.raises(OutputInvalid, match=r"write a shorter text; markdown lists .* under \"Due today:\""):
        bind({"markdown": written}, BRIEFING, MATERIAL)


def test_a_bullet_opening_with_another_day_than_its_due_date_is_sent_back() -> None:
    # The 1.5B, told to list each task under the label its date gives (stop 62): no labels, and every bullet opened
    # with the last day the collector looked at.
    written = f"- 2026-12-08: {PHOTOS}\n- **2026-12-01** - {RECEIPTS}"
    with pytest.raises(OutputInvalid, match=r'under "2026-12-08", but it is due 2020-03-01 \(overdue'):
        bind({"markdown": written}, BRIEFING, MATERIAL)
    # its own due date first, or a day the line gives otherwise (a scheduled one), is no other day
    assert (
        misplaced_by_day(
            f"- 2026-12-01: {RECEIPTS}\n- 2026-11-30: Call (scheduled 2026-11-30, due 2026-12-04)", date(2026, 12, 1)
        )
        == ""
    )


def test_a_task_bullet_giving_a_date_no_task_has_is_sent_back() -> None:
    # The 1.5B once more (stop 62): " - 2026-12-14", the last day the collector's summary names, after every task.
    written = f"- **{PHOTOS}** - 2026-12-08\n- {RECEIPTS}"
    with pytest.raises(OutputInvalid, match=r"the date 2026-12-08, which no task given has"):
        bind({"markdown": written}, BRIEFING, MATERIAL)
    # another task's date, today's, or a date in a line that is no task's are no invention
    assert (
        foreign_dates(f"- {BACKUPS} (before 2026-12-03)\n- {RECEIPTS} 2026-12-01\n- Week of 2026-12-14", MATERIAL) == ""
    )
