"""The tasks done in a period or lately, listed by code from their done dates (agent/tools/done_tasks.py)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.tools import ToolRegistry
from agent.tools.reader import VaultReader
from agent.tools.task_lists import TaskLists
from app.http.main import create_app
from app.wiring import Services
from core.errors import InvalidRequest
from core.settings import Settings
from tests.code_list_vault import templates_vault
from tests.edit_fakes import NoSearch
from tests.integration.tool_calls import call
from tests.vault_state import write_notes

NOTES = {
    "Projects/ACME.md": (
        "# ACME\n\n## Steps\n\n"
        "- [x] Write the brief ✅ 2021-11-16\n"
        "- [x] Call the printer [completion:: 2021-11-19]\n"
        "- [ ] Profit 📅 2021-11-23\n"
    ),
    "Home.md": (
        "# Home\n\n"
        "- [x] Fix the tap ⏫ ✅ 2021-11-18\n"
        "- [x] Paint the fence\n"  # done, no done date
        "- [-] Sell the bike ✅ 2021-11-17\n"  # cancelled: not done
        "- [x] Clean the gutters ✅ 2021-10-02\n"
    ),
    "Tasks/Renew passport.md": "---\ntags: [task]\nstatus: done\ncompletedDate: 2021-11-20\n---\n# Renew passport\n",
    "Templates/Daily.md": "# {{date}}\n\n- [x] Placeholder ✅ 2021-11-20\n",
}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return templates_vault(tmp_path, NOTES)


def lines(settings: Settings, question: str) -> list[str] | None:
    reader = VaultReader(settings.vault, NoSearch(), clock=lambda: datetime(2021, 11, 22, 9, 0))  # a Monday
    found = TaskLists(reader).reply_for(question)
    return None if found is None else found.text.splitlines()


def test_the_tasks_done_in_a_period_are_listed_latest_first_from_their_done_dates(settings: Settings) -> None:
    found = lines(settings, "Which tasks did I finish last week?")

    assert found == [
        "4 tasks done from 2021-11-15 to 2021-11-21, latest first (by their done dates; 1 done task has none):",
        "- [done] Renew passport (done 2021-11-20) [[Renew passport]]",  # a task note's completedDate
        "- [x] Call the printer [completion:: 2021-11-19] [[ACME#Steps]]",  # Dataview's field
        "- [x] Fix the tap ⏫ ✅ 2021-11-18 [[Home#Home]]",
        "- [x] Write the brief ✅ 2021-11-16 [[ACME#Steps]]",
    ]  # not the cancelled bike, nor October's gutters, nor the template's placeholder
    assert lines(settings, "What tasks did I complete on 2021-11-18?") == [
        "1 task done on 2021-11-18 (by their done dates; 1 done task has none):",
        "- [x] Fix the tap ⏫ ✅ 2021-11-18 [[Home#Home]]",
    ]
    assert lines(settings, "Welche Aufgaben habe ich letzte Woche erledigt?") == found


def test_asked_what_was_done_lately_the_last_ones_done_are_listed(settings: Settings) -> None:
    found = lines(settings, "What have I completed lately?")

    assert found is not None
    assert found[0] == "The 5 tasks done last, latest first (by their done dates; 1 done task has none):"
    assert found[1] == "- [done] Renew passport (done 2021-11-20) [[Renew passport]]"
    assert found[-1] == "- [x] Clean the gutters ✅ 2021-10-02 [[Home#Home]]"


def test_a_place_named_beside_the_period_narrows_the_list_to_it(settings: Settings) -> None:
    assert lines(settings, "Which tasks did I complete in ACME last week?") == [
        "2 tasks done in [[ACME]] from 2021-11-15 to 2021-11-21, latest first (by their done dates):",
        "- [x] Call the printer [completion:: 2021-11-19] [[ACME#Steps]]",
        "- [x] Write the brief ✅ 2021-11-16 [[ACME#Steps]]",
    ]
    assert lines(settings, "Which high priority tasks did I finish last week?") == [
        "1 task of highest or high priority done from 2021-11-15 to 2021-11-21 (by their done dates):",
        "- [x] Fix the tap ⏫ ✅ 2021-11-18 [[Home#Home]]",
    ]
    # A topic no note is named by is the search's: the list would not be what was asked.
    assert lines(settings, "Which tasks did I finish for the garden last week?") is None


def test_none_done_in_the_period_is_said_with_the_last_one_done_before(settings: Settings) -> None:
    assert lines(settings, "Which tasks did I finish in September?") == [
        "No task was done from 2021-09-01 to 2021-09-30 (by their done dates; 1 done task has none)."
    ]
    assert lines(settings, "Which tasks did I finish on 2021-11-01?") == [
        "No task was done on 2021-11-01 (by their done dates; 1 done task has none). The last one before:",
        "- [x] Clean the gutters ✅ 2021-10-02 [[Home#Home]]",
    ]
    # Not naming tasks, the question may be a day's note's to answer: no list, and the search goes on.
    assert lines(settings, "What did I get done on 2021-11-01?") is None
    assert lines(settings, "What did I get done yesterday?") is None


def test_the_vaults_done_tasks_are_listed_latest_done_first(settings: Settings) -> None:
    found = lines(settings, "Which tasks are done?")

    assert found is not None and found[0] == "6 done tasks in the vault (8 tasks in all, 1 open):"
    assert found[1:] == [
        "- [done] Renew passport (done 2021-11-20) [[Renew passport]]",
        "- [x] Call the printer [completion:: 2021-11-19] [[ACME#Steps]]",
        "- [x] Fix the tap ⏫ ✅ 2021-11-18 [[Home#Home]]",
        "- [x] Write the brief ✅ 2021-11-16 [[ACME#Steps]]",
        "- [x] Clean the gutters ✅ 2021-10-02 [[Home#Home]]",
        "- [x] Paint the fence [[Home#Home]]",  # no done date: after those that have one
    ]


def test_a_vault_writing_no_done_dates_leaves_the_question_to_the_search(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", {"Home.md": "# Home\n\n- [x] Fix the tap\n- [ ] Paint the fence\n"})
    settings = Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data")

    assert lines(settings, "Which tasks did I finish last week?") is None


def test_questions_about_days_or_books_are_no_done_list(settings: Settings) -> None:
    assert lines(settings, "What did I do yesterday?") is None  # a day's notes
    assert lines(settings, "What did I finish reading last week?") is None
    assert lines(settings, "Which tasks are due next week?") != lines(settings, "Which tasks did I finish last week?")


def test_without_a_model_the_chat_answers_with_the_list(settings: Settings, services: Services) -> None:
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"watch": False}), services)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        message = {"role": "user", "content": "What have I ticked off lately?"}
        response = client.post("/v1/chat/completions", json={"model": "vault-librarian", "messages": [message]})

    assert response.status_code == 200
    reply = response.json()["choices"][0]["message"]["content"]
    assert reply.startswith("The 5 tasks done last, latest first")
    assert "[[Renew passport]]" in reply


def test_the_tasks_tool_lists_those_done_in_the_days_given_for_a_model_calling_tools(settings: Settings) -> None:
    # What an MCP client or a model making structured tool calls asks: the same list as a chat question gets.
    tools = ToolRegistry(VaultReader(settings.vault, NoSearch(), clock=lambda: datetime(2021, 11, 22, 9, 0)))

    week = call(tools, "tasks", command="done", date="2021-11-15", until="2021-11-21")
    assert "4 tasks done from 2021-11-15 to 2021-11-21, latest first" in week.text
    assert "[[Renew passport]]" in week.anchors and "Clean the gutters" not in week.text
    in_acme = call(tools, "tasks", command="done", date="2021-11-16", folder="Projects")
    assert "1 task done in the folder Projects on 2021-11-16" in in_acme.text
    every_done = call(tools, "tasks", command="done")  # no date: every done task, by note, as before
    assert "Clean the gutters" in every_done.text and "Paint the fence" in every_done.text
    with pytest.raises(InvalidRequest, match=r"until \(2021-11-01\) is before date \(2021-11-22\)"):
        call(tools, "tasks", command="done", date="2021-11-22", until="2021-11-01")
