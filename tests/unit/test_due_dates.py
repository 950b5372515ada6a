"""The due date a change request gives a new task, read by code (agent/change_contract/due_dates.py)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from agent.change_contract.due_dates import due_date, due_marker, with_due_date, without_due_date
from agent.tools.snapshot import VaultSnapshot, build_snapshot
from rag.notes.markdown import parse_note
from rag.notes.vault import FileStat

TODAY = date(2026, 12, 6)  # a Sunday


@pytest.mark.parametrize(
    ("request_", "day", "rest"),
    [
        (
            "Add a task to ACME: renew the insurance due Friday",
            date(2026, 12, 11),
            "Add a task to ACME: renew the insurance",
        ),
        ("Add a task: taxes by next Monday", date(2026, 12, 7), "Add a task: taxes"),
        ("Add a task to call Bob due Friday next week.", date(2026, 12, 11), "Add a task to call Bob."),
        (
            "add a task to pay rent, due on 2026-12-10, to the Finance note",
            date(2026, 12, 10),
            "add a task to pay rent, to the Finance note",
        ),
        (
            "Add a task to ACME: submit report due December 10 to Alice",
            date(2026, 12, 10),
            "Add a task to ACME: submit report to Alice",
        ),
        (
            "Add a task: file taxes by the 15th of January",
            date(2027, 1, 15),
            "Add a task: file taxes",
        ),  # the coming one
        (
            "Add a task: pay the 2026 bill by 2026-01-15",
            date(2026, 1, 15),
            "Add a task: pay the 2026 bill",
        ),  # as written
        (
            "Aufgabe zu ACME hinzufügen: Steuer fällig am Freitag",
            date(2026, 12, 11),
            "Aufgabe zu ACME hinzufügen: Steuer",
        ),
    ],
)
def test_the_words_making_a_day_a_deadline_give_the_due_date_and_leave_the_task(
    request_: str, day: date, rest: str
) -> None:
    found = due_date(request_, TODAY)

    assert found is not None
    assert found.day == day
    assert without_due_date(request_, found) == rest


@pytest.mark.parametrize(
    "request_",
    [
        "Add a task for tomorrow: buy milk",  # tomorrow's daily note, no deadline
        "Add a task to ACME to call Bob tomorrow",
        "Add a task to ACME to call Bob by phone tomorrow",  # "by phone" is no day
        "Add a task to ACME: ship it by next week",  # a week is no due date
        "Add a task to ACME: read the book by Ursula Le Guin",
    ],
)
def test_a_day_not_given_as_a_deadline_is_no_due_date(request_: str) -> None:
    assert due_date(request_, TODAY) is None


def test_a_task_gets_the_marker_once() -> None:
    assert with_due_date("Renew the insurance", "📅 2026-12-11") == "Renew the insurance 📅 2026-12-11"
    assert with_due_date("Renew it 📅 2026-12-12", "📅 2026-12-11") == "Renew it 📅 2026-12-12"
    assert with_due_date("Renew it [due:: 2026-12-12]", "📅 2026-12-11") == "Renew it [due:: 2026-12-12]"
    assert with_due_date("Renew it", "") == "Renew it"


def snapshot_of(notes: dict[str, str]) -> VaultSnapshot:
    parsed = {path: parse_note(path, text) for path, text in notes.items()}
    return build_snapshot(Path("/vault"), parsed, {path: FileStat(0, len(text)) for path, text in notes.items()}, ())


def test_the_due_date_is_written_as_most_of_the_vaults_dated_tasks_write_theirs() -> None:
    day = date(2026, 12, 11)
    dataview = snapshot_of(
        {"Chores.md": "- [ ] Sweep [due:: 2026-01-02]\n- [ ] Mop [due::2026-01-03]\n- [ ] Dust 📅 2026-01-04\n"}
    )
    emoji = snapshot_of({"Chores.md": "- [ ] Sweep 📅 2026-01-02\n- [ ] Mop [due:: 2026-01-03]\n"})
    undated = snapshot_of({"Chores.md": "- [ ] Sweep\n"})

    assert due_marker(dataview, day) == "[due:: 2026-12-11]"
    assert due_marker(emoji, day) == "📅 2026-12-11"
    assert due_marker(undated, day) == "📅 2026-12-11"  # the Tasks plugin's, the most used
