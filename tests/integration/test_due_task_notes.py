"""Task notes (one note per task, the TaskNotes plugin's way) among the open tasks a question asks for by date."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from agent.tools.reader import VaultReader
from agent.tools.task_lists import TaskLists
from core.settings import Settings
from tests.edit_fakes import NoSearch
from tests.vault_state import write_notes


def task(title: str, *rows: str, tags: str = "[task]") -> str:
    return "---\n" + f"title: {title}\ntags: {tags}\n" + "".join(f"{row}\n" for row in rows) + "---\n\nNotes.\n"


NOTES = {
    "TaskNotes/Renew passport.md": task("Renew passport", "status: open", "priority: high", "due: 2020-03-15")
    + "- [ ] Get photos taken 📅 2020-03-01 ⏫\n",
    "TaskNotes/Slides.md": task("Prepare slides", "status: in-progress", "due: 2099-01-15", "scheduled: 2099-01-12"),
    "TaskNotes/Cancel streaming.md": task("Cancel streaming", "status: done", "due: 2020-01-01"),
    "TaskNotes/Old.md": task("Old errand", "status: open", "due: 2020-01-02", tags="[task, archived]"),
    "Templates/Task.md": task("{{title}}", "status: open", "due: 2020-01-03"),
    "Projects/Garden.md": task("Garden", "status: open", "due: 2020-01-04", tags="[project]")
    + "- [ ] Book flights ⏳ 2099-01-12 📅 2099-01-20\n",
    "Daily/2099-01-12.md": "# 2099-01-12\n\n- [ ] Water the plants\n",
}


@pytest.fixture
def tasks(tmp_path: Path) -> TaskLists:
    vault = write_notes(tmp_path / "vault", NOTES)
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "templates.json").write_text('{"folder": "Templates"}', encoding="utf-8")
    (vault / ".obsidian" / "daily-notes.json").write_text('{"folder": "Daily"}', encoding="utf-8")
    settings = Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data")
    return TaskLists(VaultReader(settings.vault, NoSearch(), clock=lambda: datetime(2026, 12, 6, 9, 0)))


def test_an_open_task_note_past_its_due_date_is_overdue_beside_the_checkbox_tasks(tasks: TaskLists) -> None:
    reply = tasks.reply_for("What's overdue?")

    assert reply is not None
    assert reply.text.splitlines() == [
        "2 open tasks due before 2026-12-06 (overdue):",
        "- [ ] Get photos taken 📅 2020-03-01 ⏫ [[Renew passport]]",
        "- [open] Renew passport (due 2020-03-15, priority high) [[Renew passport]]",
    ]  # not the done, the archived, the template's or a project note's
    assert reply.anchors == ("[[Renew passport]]",)


def test_a_task_note_narrows_by_priority_and_counts_on_its_scheduled_day(tasks: TaskLists) -> None:
    high = tasks.reply_for("Which overdue tasks are high priority?")
    assert high is not None and "Renew passport (due 2020-03-15, priority high)" in high.text

    todo = tasks.reply_for("What do I have to do on 2099-01-12?")
    assert todo is not None
    assert todo.text.splitlines()[1:] == [
        "- [ ] Water the plants [[2099-01-12#2099-01-12]]",
        "- [ ] Book flights ⏳ 2099-01-12 📅 2099-01-20 [[Garden]]",  # scheduled then, due later: a checkbox too
        "- [in-progress] Prepare slides (due 2099-01-15, scheduled 2099-01-12) [[Slides]]",
    ]
    due = tasks.reply_for("What is due on 2099-01-12?")  # scheduled is not due
    assert due is not None and due.text.splitlines()[0] == "No open task is due on 2099-01-12. The next one:"
