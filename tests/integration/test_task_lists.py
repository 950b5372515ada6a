"""The tasks of the note or folder a question names, listed by code (agent/tools/task_lists.py), over chat too."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import openai
import pytest
from fastapi.testclient import TestClient

from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from agent.tools.task_lists import TaskLists, named_place
from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from tests.code_list_vault import templates_vault
from tests.edit_fakes import NoSearch
from tests.live_server import agent_app, serve_in_thread
from tests.scripted_llm import ScriptedLLMServer

NOTES = {
    "Important Project.md": (
        "# Important Project\n\n"
        "- [ ] #task Something about interwebs 📅 2021-11-22\n"
        "- [x] #task Something about s.th. ✅ 2021-11-21\n\n"
        "## Trash is important\n\n"
        "- [ ] #task Also: take out the trash! ⏫\n"
        "  - [/] #task Throw the trash away 📅 2021-11-20\n"
        "- [-] #task Dropped\n"
    ),
    "Projects/ACME.md": "---\naliases: [Acme Corp]\n---\n# ACME\n\n## Steps\n\n- [ ] Profit 📅 2021-11-23\n",
    "Projects/Project.md": "# Project\n\nNo tasks here, only words.\n",
    "Projects/Renew passport.md": (
        "---\ntags: [task]\nstatus: open\ndue: 2021-11-25\n---\n# Renew passport\n\n- [ ] Get photos taken\n"
    ),
    "Tasks.md": "# Tasks\n\n- [ ] A task in the note called Tasks\n",
    "Templates/Daily.md": "# {{date}}\n\n- [ ] Placeholder\n",
}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return templates_vault(tmp_path, NOTES)


def reader(settings: Settings) -> VaultReader:
    return VaultReader(settings.vault, NoSearch(), clock=lambda: datetime(2021, 11, 22, 9, 0))


def lines(settings: Settings, question: str, earlier: tuple[str, ...] = ()) -> list[str] | None:
    found = TaskLists(reader(settings)).reply_for(question, earlier)
    return None if found is None else found.text.splitlines()


def test_the_tasks_of_a_named_note_are_listed_each_with_a_link_to_its_section(settings: Settings) -> None:
    found = TaskLists(reader(settings)).reply_for("What tasks are in my Important Project note?")

    assert found is not None
    assert found.text.splitlines() == [
        "5 tasks in [[Important Project]], 3 open:",
        "- [ ] #task Something about interwebs 📅 2021-11-22 [[Important Project#Important Project]]",
        "- [x] #task Something about s.th. ✅ 2021-11-21 [[Important Project#Important Project]]",
        "- [ ] #task Also: take out the trash! ⏫ [[Important Project#Trash is important]]",
        "- [/] #task Throw the trash away 📅 2021-11-20 [[Important Project#Trash is important]]",
        "- [-] #task Dropped [[Important Project#Trash is important]]",
    ]
    # The links the reply holds are what the citation check lets through.
    assert set(found.anchors) == {
        "[[Important Project]]",
        "[[Important Project#Important Project]]",
        "[[Important Project#Trash is important]]",
    }


def test_the_state_priority_or_due_date_asked_for_narrows_the_list(settings: Settings) -> None:
    assert lines(settings, "Which open tasks are in Important Project?") == [
        "3 open tasks in [[Important Project]] (5 tasks in all, 3 open):",
        "- [ ] #task Something about interwebs 📅 2021-11-22 [[Important Project#Important Project]]",
        "- [ ] #task Also: take out the trash! ⏫ [[Important Project#Trash is important]]",
        "- [/] #task Throw the trash away 📅 2021-11-20 [[Important Project#Trash is important]]",
    ]
    assert lines(settings, "What tasks did I finish in Important Project?") == [
        "1 done task in [[Important Project]] (5 tasks in all, 3 open):",
        "- [x] #task Something about s.th. ✅ 2021-11-21 [[Important Project#Important Project]]",
    ]
    assert lines(settings, "Which tasks are in progress in Important Project?") == [
        "1 task in progress in [[Important Project]] (5 tasks in all, 3 open):",
        "- [/] #task Throw the trash away 📅 2021-11-20 [[Important Project#Trash is important]]",
    ]
    # "on" after "working" names no place: the vault's tasks in progress, not a search for "working"
    assert lines(settings, "What tasks am I working on right now?") == [
        "1 task in progress in the vault (9 tasks in all, 7 open):",
        "- [/] #task Throw the trash away 📅 2021-11-20 [[Important Project#Trash is important]]",
    ]
    # "in progress" names no place either (obsidian-tasks-demo, stop 58: the 0.5B answered it with a done task)
    assert lines(settings, "Which tasks are in progress?") == lines(settings, "What tasks am I working on right now?")
    # with none in progress in a place asked of, so it is said; asked what is worked on, the notes may say it in words
    assert lines(settings, "Which tasks are in progress in ACME?") == [
        "No tasks in progress in [[ACME]] (1 task in all, 1 open)."
    ]
    high = lines(settings, "What are the high priority tasks in Important Project?")
    assert high is not None and high[1:] == [
        "- [ ] #task Also: take out the trash! ⏫ [[Important Project#Trash is important]]"
    ]
    due = lines(settings, "Which tasks in Important Project are due?")  # earliest first, the dated open ones
    assert (
        due is not None and due[0] == "2 open tasks with a due date in [[Important Project]] (5 tasks in all, 3 open):"
    )
    assert [line.split(" [[")[0] for line in due[1:]] == [
        "- [/] #task Throw the trash away 📅 2021-11-20",
        "- [ ] #task Something about interwebs 📅 2021-11-22",
    ]
    # with none marked in progress in the vault, "What am I working on?" is the search's: the notes may say it
    (settings.vault_path / "Important Project.md").unlink()
    assert lines(settings, "What tasks am I working on right now?") is None


def test_a_note_named_by_link_alias_or_as_a_note_and_a_folder_named_as_a_folder_are_places(settings: Settings) -> None:
    snapshot = reader(settings).snapshot()

    def place(question: str) -> tuple[str, bool] | None:
        found = named_place(snapshot, question)
        return None if found is None else (found.path, found.is_folder)

    assert place("Which tasks are in [[ACME]]?") == ("Projects/ACME.md", False)
    assert place("List the tasks from Acme Corp") == ("Projects/ACME.md", False)  # an alias
    assert place("What tasks does the ACME note have?") == ("Projects/ACME.md", False)
    assert place("Show the open tasks in the Projects folder") == ("Projects", True)
    assert place("What tasks are in Important Project?") == ("Important Project.md", False)  # not "Project"
    assert place("Which tasks mention ACME?") is None  # named, but not as the tasks' place
    assert place("What are the tasks in ACME and in Important Project?") is None  # two places: not one list
    assert place("Which of the tasks are open?") is None  # "the tasks" is no note called Tasks
    assert place("What tasks are in [[Tasks]]?") == ("Tasks.md", False)  # linked, it is


def test_a_folders_tasks_hold_its_task_notes_and_leave_its_templates_out(settings: Settings) -> None:
    assert lines(settings, "Show the open tasks in the Projects folder") == [
        "3 open tasks in the folder Projects (3 tasks in all, 3 open):",  # the earliest due first, then the undated
        "- [ ] Profit 📅 2021-11-23 [[ACME#Steps]]",
        "- [open] Renew passport (due 2021-11-25) [[Renew passport]]",
        "- [ ] Get photos taken [[Renew passport#Renew passport]]",
    ]
    assert lines(settings, "What tasks are in the Templates folder?") == ["No tasks in the folder Templates."]


def test_a_note_without_tasks_or_without_those_asked_for_is_said_to_have_none(settings: Settings) -> None:
    assert lines(settings, "What tasks are in the Project note?") == ["No tasks in [[Project]]."]
    assert lines(settings, "Which tasks did I finish in ACME?") == [
        "No done tasks in [[ACME]] (1 task in all, 1 open)."
    ]


def test_follow_ups_ask_again_of_the_list_before(settings: Settings) -> None:
    first = "What tasks are in Important Project?"
    done = lines(settings, "Which of them are done?", (first,))
    elsewhere = lines(settings, "And in ACME?", (first, "Which of them are done?"))

    assert done is not None and done[0] == "1 done task in [[Important Project]] (5 tasks in all, 3 open):"
    assert elsewhere == ["No done tasks in [[ACME]] (1 task in all, 1 open)."]  # the state asked before, there
    assert lines(settings, "And what about the weather?", (first,)) is None
    assert lines(settings, "Which of them are done?") is None  # no list before it


def test_a_question_by_date_naming_a_place_lists_that_places_tasks_alone(settings: Settings) -> None:
    assert lines(settings, "What's overdue in Important Project?") == [
        "1 open task in [[Important Project]] due before 2021-11-22 (overdue):",
        "- [/] #task Throw the trash away 📅 2021-11-20 [[Important Project#Trash is important]]",
    ]
    assert lines(settings, "What's overdue in ACME?") == [
        "No open task in [[ACME]] is overdue. The next one:",
        "- [ ] Profit 📅 2021-11-23 [[ACME#Steps]]",
    ]
    across = lines(settings, "What's overdue?")
    assert across is not None and across[0] == "1 open task due before 2021-11-22 (overdue):"


def test_a_list_asked_of_no_place_is_the_vaults_open_tasks_unless_a_state_is_asked(settings: Settings) -> None:
    found = lines(settings, "What are my open tasks?")
    done = lines(settings, "Which of my tasks are done?")

    assert found is not None and found[0] == "7 open tasks in the vault (9 tasks in all, 7 open):"
    assert found[1:4] == [  # the earliest due first (across the vault, the list is capped), templates left out
        "- [/] #task Throw the trash away 📅 2021-11-20 [[Important Project#Trash is important]]",
        "- [ ] #task Something about interwebs 📅 2021-11-22 [[Important Project#Important Project]]",
        "- [ ] Profit 📅 2021-11-23 [[ACME#Steps]]",
    ]
    assert "- [ ] A task in the note called Tasks [[Tasks#Tasks]]" in found
    assert lines(settings, "What tasks do I have?") == found
    assert done == [
        "1 done task in the vault (9 tasks in all, 7 open):",
        "- [x] #task Something about s.th. ✅ 2021-11-21 [[Important Project#Important Project]]",
    ]


def test_questions_that_ask_no_list_are_left_to_the_model(settings: Settings) -> None:
    assert lines(settings, "How do I group tasks in the Important Project note?") is None
    assert lines(settings, "What is the trash task in Important Project about?") is None
    assert lines(settings, "What tasks do I have about the trash?") is None  # a topic: the search's


def test_over_chat_the_tasks_of_a_note_are_listed_without_asking_the_model(
    settings: Settings, services: Services, llm: ScriptedLLMServer
) -> None:
    services.reindexer.run_once()
    messages = [
        {"role": "user", "content": "What tasks are in my Important Project note?"},
        {"role": "assistant", "content": "5 tasks in [[Important Project]], 3 open: …"},
        {"role": "user", "content": "Which of them are done?"},
    ]
    with serve_in_thread(agent_app(settings, services, llm.base_url)) as base_url:
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        pieces = client.chat.completions.create(
            model="vault-librarian",
            messages=messages,  # type: ignore[arg-type]
            stream=True,
        )
        reply = "".join(chunk.choices[0].delta.content or "" for chunk in pieces if chunk.choices)
    app = create_app(settings.model_copy(update={"watch": False}), services)  # no model configured
    with TestClient(app, base_url="http://127.0.0.1") as plain:
        response = plain.post("/v1/chat/completions", json={"model": "vault-librarian", "messages": messages[:1]})

    assert llm.chat_requests == []
    assert reply.splitlines() == [
        "1 done task in [[Important Project]] (5 tasks in all, 3 open):",
        "- [x] #task Something about s.th. ✅ 2021-11-21 [[Important Project#Important Project]]",
    ]
    assert response.json()["choices"][0]["message"]["content"].startswith("5 tasks in [[Important Project]], 3 open:")


class CountingReader(VaultReader):
    """A reader counting the vault scans (`snapshot`): each walks the vault and parses what changed."""

    scans = 0

    def snapshot(self) -> VaultSnapshot:
        CountingReader.scans += 1
        return super().snapshot()


def test_a_question_about_no_list_does_not_scan_the_vault(settings: Settings) -> None:
    # Every chat question passes through the code lists first: a vault of thousands of notes is walked (and, the
    # first time, parsed) only for a question about tasks, links or tags.
    from agent.tools.code_lists import CodeLists

    CountingReader.scans = 0
    reader = CountingReader(settings.vault, NoSearch(), clock=lambda: datetime(2021, 11, 22, 9, 0))
    lists = CodeLists(reader)

    for question in ("What hydration does my sourdough use?", "Who did I meet on Monday?", "Summarize ACME."):
        assert lists.reply_for(question, ("What is in ACME?",)) is None
    assert CountingReader.scans == 0
    assert lists.reply_for("What tasks are in ACME?") is not None
    assert CountingReader.scans == 1
