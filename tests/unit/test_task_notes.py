"""Task notes (the TaskNotes plugin's one note per task): which notes are tasks, and what their properties say."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from core.domain import Note
from rag.notes.task_notes import TaskNotesConfig, task_note, task_notes_config


def note(path: str, tags: tuple[str, ...] = ("task",), **frontmatter: object) -> Note:
    """Return a note whose `tags` property holds `tags` (so do its tags, as parsing gives them)."""
    return Note(path=path, title=Path(path).stem, frontmatter={"tags": list(tags), **frontmatter}, tags=tags)


def test_a_task_tag_in_the_body_alone_makes_no_task_note() -> None:
    # obsidian-tasks-demo's "Important Project": "- [ ] #task …" checkboxes (the Tasks plugin's global filter). The
    # plugin reads the `tags` property only.
    project = Note(path="Important Project.md", title="Important Project", frontmatter={}, tags=("task",))

    assert task_note(project, TaskNotesConfig()) is None
    assert task_note(note("T/Call.md", tags=("Task",)), TaskNotesConfig()) is not None  # any case, as a property


def test_a_note_tagged_task_is_a_task_with_its_status_priority_and_dates() -> None:
    found = task_note(
        note(
            "TaskNotes/Renew passport.md", title="Renew passport", status="open", priority="high", due=date(2020, 3, 15)
        ),
        TaskNotesConfig(),
    )

    assert found is not None
    assert (found.title, found.status, found.is_done, found.priority) == ("Renew passport", "open", False, "high")
    assert (found.due, found.scheduled) == (date(2020, 3, 15), None)


def test_done_normal_archived_and_untagged_notes_read_as_the_plugin_reads_them() -> None:
    config = TaskNotesConfig()
    done = task_note(note("T/Cancel.md", status="done", completedDate="2026-11-01"), config)
    normal = task_note(note("T/Slides.md", priority="normal", scheduled="2099-01-12T09:00"), config)

    assert done is not None and done.is_done and done.done == date(2026, 11, 1)
    assert normal is not None and normal.priority is None  # the plugin's default priority is no priority
    assert normal.scheduled == date(2099, 1, 12) and normal.title == "Slides"  # no title property: the file name
    assert task_note(note("T/Old.md", tags=("task", "archived"), status="open"), config) is None
    assert task_note(note("Projects/Plan.md", tags=("project",), due=date(2026, 1, 1)), config) is None


def test_the_plugins_settings_name_the_tag_the_fields_and_the_completed_statuses(tmp_path: Path) -> None:
    settings = {
        "taskTag": "todo",
        "excludedFolders": "Archive, Old/",
        "fieldMapping": {"due": "deadline", "status": "state", "archiveTag": "shelved"},
        "customStatuses": [{"value": "open", "isCompleted": False}, {"value": "Finished", "isCompleted": True}],
    }
    (tmp_path / ".obsidian" / "plugins" / "tasknotes").mkdir(parents=True)
    (tmp_path / ".obsidian" / "plugins" / "tasknotes" / "data.json").write_text(json.dumps(settings), "utf-8")
    config = task_notes_config(tmp_path)

    found = task_note(note("Work/Ship.md", tags=("todo",), state="finished", deadline="2026-12-01"), config)
    assert found is not None and found.is_done and found.due == date(2026, 12, 1)
    assert task_note(note("Work/Tagged task.md", tags=("task",), state="open"), config) is None  # another tag
    assert task_note(note("Old/Ship.md", tags=("todo",)), config) is None  # an excluded folder
    assert task_note(note("Work/Shelved.md", tags=("todo", "shelved")), config) is None


def test_tasks_identified_by_a_property_instead_of_a_tag(tmp_path: Path) -> None:
    settings = {"taskIdentificationMethod": "property", "taskPropertyName": "type", "taskPropertyValue": "Task"}
    (tmp_path / ".obsidian" / "plugins" / "tasknotes").mkdir(parents=True)
    (tmp_path / ".obsidian" / "plugins" / "tasknotes" / "data.json").write_text(json.dumps(settings), "utf-8")
    config = task_notes_config(tmp_path)

    assert task_note(note("A.md", tags=(), type="task", status="open"), config) is not None
    assert task_note(note("B.md", tags=("task",), type="project"), config) is None


def test_no_settings_or_broken_settings_are_the_plugins_defaults(tmp_path: Path) -> None:
    assert task_notes_config(tmp_path) == TaskNotesConfig()
    (tmp_path / ".obsidian" / "plugins" / "tasknotes").mkdir(parents=True)
    (tmp_path / ".obsidian" / "plugins" / "tasknotes" / "data.json").write_text("{not json", "utf-8")
    assert task_notes_config(tmp_path) == TaskNotesConfig()
