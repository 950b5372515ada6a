"""The open tasks a question asks for by date, found by code in every note and sent first among the passages."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import openai
import pytest
from fastapi.testclient import TestClient

from agent.tools import ToolRegistry
from agent.tools.list_reply import ListReply
from agent.tools.reader import VaultReader
from agent.tools.task_lists import TaskLists
from app.http.main import create_app
from app.wiring import Services
from core.errors import InvalidRequest
from core.settings import Settings
from tests.edit_fakes import NoSearch
from tests.integration.tool_calls import call
from tests.live_server import agent_app, serve_in_thread
from tests.scripted_llm import ScriptedLLMServer
from tests.vault_state import write_notes

NOTES = {
    "ACME.md": (
        "# ACME\n\n## Steps to world domination\n\n"
        "- [ ] Take out the trash 📅 2024-03-04\n"
        "- [ ] ==Profit== 📅 2021-11-22\n"
        "- [x] Something done ✅ 2021-11-21 📅 2021-11-22\n"
        "- [ ] Cook dinner ⏳ 2021-11-22\n"
        "- [-] Dropped 📅 2021-11-22\n"
    ),
    "Projects/Plan.md": "# Plan\n\nIntro.\n\n## Later\n\n- [ ] Book the venue [due:: 2021-11-22]\n",
    "Templates/Daily.md": "# {{date}}\n\n- [ ] Placeholder 📅 2021-11-22\n",
    "Journal/2021-11-22.md": "# Monday\n\n## Do today\n\n- [ ] Call the vet\n- [x] Water the plants\n",
}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Return settings for a vault of NOTES alone (its templates folder set), with a private DATA_DIR."""
    vault = write_notes(tmp_path / "vault", NOTES)
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "templates.json").write_text('{"folder": "Templates"}', encoding="utf-8")
    (vault / ".obsidian" / "daily-notes.json").write_text('{"folder": "Journal"}', encoding="utf-8")
    return Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data")


def due_tasks(settings: Settings) -> TaskLists:
    return TaskLists(VaultReader(settings.vault, NoSearch(), clock=lambda: datetime(2021, 11, 22, 9, 0)))


def test_open_tasks_due_on_the_day_are_listed_each_with_a_link_to_its_section(settings: Settings) -> None:
    reply = due_tasks(settings).reply_for("Which tasks are due on 2021-11-22?")

    assert reply is not None
    assert reply.text.splitlines() == [
        "2 open tasks due on 2021-11-22:",
        "- [ ] ==Profit== 📅 2021-11-22 [[ACME#Steps to world domination]]",  # not the done or the dropped one
        "- [ ] Book the venue [due:: 2021-11-22] [[Plan#Later]]",  # Dataview's field too
    ]  # the template's placeholder and the task only scheduled that day are not due
    assert reply.anchors == ("[[ACME#Steps to world domination]]", "[[Plan#Later]]")


def test_tasks_due_on_each_day_listed_are_listed_and_not_those_of_the_days_between(settings: Settings) -> None:
    reply = due_tasks(settings).reply_for("Which tasks are due on 22 November 2021 and on 4 March 2024?")

    assert reply is not None
    assert reply.text.splitlines() == [
        "3 open tasks due on 2021-11-22 and 2024-03-04:",
        "- [ ] ==Profit== 📅 2021-11-22 [[ACME#Steps to world domination]]",
        "- [ ] Book the venue [due:: 2021-11-22] [[Plan#Later]]",
        "- [ ] Take out the trash 📅 2024-03-04 [[ACME#Steps to world domination]]",
    ]
    # The next one would be after the last day asked: 2024-03-04's task, between the two, is not.
    neither = due_tasks(settings).reply_for("Which tasks are due on 23 November 2021 and on 5 March 2024?")
    assert neither is not None and neither.text.splitlines() == [
        "No open task is due on 2021-11-23 and 2024-03-05, nor later; 3 open tasks are dated before."
    ]


def test_what_to_do_on_a_day_counts_a_scheduled_task_and_other_questions_get_none(settings: Settings) -> None:
    tasks = due_tasks(settings)

    todo = tasks.reply_for("What do I have to do today?")  # the clock says 2021-11-22
    assert todo is not None and todo.text.startswith(
        "4 open tasks to do on 2021-11-22 (due or scheduled then, or in its daily note):"
    )
    assert "- [ ] Cook dinner ⏳ 2021-11-22 [[ACME#Steps to world domination]]" in todo.text.splitlines()
    assert "- [ ] Call the vet [[2021-11-22#Do today]]" in todo.text.splitlines()  # undated, in the day's daily note
    due = tasks.reply_for("What is due today?")
    assert due is not None and "Call the vet" not in due.text  # an undated task is due on no day
    assert tasks.reply_for("What did I cook on 2021-11-22?") is None  # no question about tasks
    overdue = tasks.reply_for("What's overdue?")  # nothing open is due before 2021-11-22: the next one is named
    assert overdue is not None and overdue.text.splitlines() == [
        "No open task is overdue. The next one:",
        "- [ ] ==Profit== 📅 2021-11-22 [[ACME#Steps to world domination]]",
    ]


def test_a_follow_up_naming_other_days_asks_the_same_of_them(settings: Settings) -> None:
    # Asked of the 0.5B over obsidian-tasks-demo, "And on 2021-11-23?" got a list of its own making.
    tasks = due_tasks(settings)

    following = tasks.reply_for("And on 2021-11-23?", ["Which tasks are due today?"])
    assert (
        following is not None and following.text.splitlines()[0] == "No open task is due on 2021-11-23. The next one:"
    )
    yesterday = tasks.reply_for("What about yesterday?", ["What do I have to do today?"])
    assert yesterday is not None and yesterday.text.startswith("No open task is to do on 2021-11-21")
    assert tasks.reply_for("And on 2021-11-23?") is None  # asked first, it asks nothing of tasks
    assert tasks.reply_for("And what did I cook on 2021-11-23?", ["Which tasks are due today?"]) is None


def test_a_follow_up_naming_a_priority_lists_those_of_the_list_before(tmp_path: Path) -> None:
    # Asked of the 0.5B over obsidian-tasks-demo after the overdue list, "Which of them are high priority?" got
    # example tasks of other notes.
    vault = write_notes(
        tmp_path / "vault",
        {
            "Work.md": "# Work\n\n- [ ] Send the report ⏫ 📅 2021-11-20\n- [ ] File the receipts 📅 2021-11-19\n"
            "- [ ] Renew the domain 🔺 📅 2021-11-21\n- [ ] Tidy the desk 🔽 📅 2021-11-18\n"
            "- [ ] Pay the invoice ⏫ 📅 2021-11-30\n",
        },
    )
    settings = Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data")
    tasks = TaskLists(VaultReader(settings.vault, NoSearch(), clock=lambda: datetime(2021, 11, 22, 9, 0)))

    high = tasks.reply_for("Which of them are high priority?", ["What's overdue?"])
    low = tasks.reply_for("And the low priority ones?", ["What's overdue?", "Which of them are high priority?"])
    medium = tasks.reply_for("Which of those are medium priority?", ["What's overdue?"])

    assert high is not None and high.text.splitlines() == [
        "2 open tasks of high or highest priority due before 2021-11-22 (overdue):",
        "- [ ] Send the report ⏫ 📅 2021-11-20 [[Work#Work]]",  # the one due later is not overdue
        "- [ ] Renew the domain 🔺 📅 2021-11-21 [[Work#Work]]",
    ]
    assert (
        low is not None
        and low.text.splitlines()[0] == "1 open task of low or lowest priority due before 2021-11-22 (overdue):"
    )
    assert medium is not None and medium.text == "No open task of medium priority is overdue."
    assert tasks.reply_for("Which high priority tasks are due in January 2022?") == ListReply(
        "No open task of high or highest priority is due from 2022-01-01 to 2022-01-31, nor later; "
        "3 open tasks of high or highest priority are dated before.",
        (),
    )


def test_days_after_every_dated_task_are_told_none_is_due_then_nor_later(settings: Settings) -> None:
    # obsidian-tasks-demo's dates are all in 2021-2024: asked about next week, the 0.5B wrote a Tasks query out.
    reply = due_tasks(settings).reply_for("Which tasks are due in 2025-03?")

    assert reply is not None
    assert reply.text == "No open task is due from 2025-03-01 to 2025-03-31, nor later; 3 open tasks are dated before."


def test_a_vault_whose_tasks_have_no_dates_is_asked_the_usual_way(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "plain", {"Inbox.md": "# Inbox\n\n- [ ] Call the vet\n- [x] Post 📅 2021-11-20\n"})
    settings = Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data")
    tasks = TaskLists(VaultReader(settings.vault, NoSearch(), clock=lambda: datetime(2021, 11, 22, 9, 0)))

    assert tasks.reply_for("Which tasks are due today?") is None  # no open task has a date: the text may say


def test_with_the_tasks_plugins_global_filter_a_checkbox_without_it_is_no_task(settings: Settings) -> None:
    plugin = settings.vault.path / ".obsidian" / "plugins" / "obsidian-tasks-plugin"
    plugin.mkdir(parents=True)
    (plugin / "data.json").write_text('{"globalFilter": "#task"}', encoding="utf-8")
    write_notes(settings.vault.path, {"Work.md": "# Work\n\n- [ ] #task Send the report 📅 2021-11-22\n"})

    reply = due_tasks(settings).reply_for("Which tasks are due on 2021-11-22?")

    assert reply is not None and reply.text.splitlines() == [
        "1 open task due on 2021-11-22:",
        "- [ ] #task Send the report 📅 2021-11-22 [[Work#Work]]",
    ]


def test_overdue_tasks_come_earliest_first_and_a_long_list_says_how_many_more(settings: Settings) -> None:
    reader = VaultReader(settings.vault, NoSearch(), clock=lambda: datetime(2024, 3, 10, 9, 0))

    reply = TaskLists(reader, max_listed=2).reply_for("Which tasks are overdue?")

    assert reply is not None and reply.text.splitlines() == [
        "3 open tasks due before 2024-03-10 (overdue):",
        "- [ ] ==Profit== 📅 2021-11-22 [[ACME#Steps to world domination]]",
        "- [ ] Book the venue [due:: 2021-11-22] [[Plan#Later]]",
        "… and 1 more.",
    ]


def test_over_chat_the_due_tasks_are_listed_without_asking_the_model(
    settings: Settings, services: Services, llm: ScriptedLLMServer
) -> None:
    services.reindexer.run_once()
    app = agent_app(settings, services, llm.base_url)
    with serve_in_thread(app) as base_url:
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        question = "Which tasks are due on 2021-11-22?"
        pieces = client.chat.completions.create(
            model="vault-librarian", messages=[{"role": "user", "content": question}], stream=True
        )
        reply = "".join(chunk.choices[0].delta.content or "" for chunk in pieces if chunk.choices)

    assert llm.chat_requests == []  # the warm-up is off in tests: no call at all
    assert reply.splitlines()[:3] == [
        "2 open tasks due on 2021-11-22:",
        "- [ ] ==Profit== 📅 2021-11-22 [[ACME#Steps to world domination]]",  # the links stand as written
        "- [ ] Book the venue [due:: 2021-11-22] [[Plan#Later]]",
    ]


def test_over_chat_and_without_a_model_a_follow_up_naming_other_days_is_listed_too(
    settings: Settings, services: Services, llm: ScriptedLLMServer
) -> None:
    services.reindexer.run_once()
    messages = [
        {"role": "user", "content": "Which tasks are due on 2021-11-22?"},
        {"role": "assistant", "content": "2 open tasks due on 2021-11-22: …"},
        {"role": "user", "content": "And on 2021-11-23?"},
    ]
    with serve_in_thread(agent_app(settings, services, llm.base_url)) as base_url:
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        reply = client.chat.completions.create(model="vault-librarian", messages=messages)  # type: ignore[arg-type]
    app = create_app(settings.model_copy(update={"watch": False}), services)
    with TestClient(app, base_url="http://127.0.0.1") as plain:
        response = plain.post("/v1/chat/completions", json={"model": "vault-librarian", "messages": messages})

    expected = "No open task is due on 2021-11-23. The next one:"
    assert llm.chat_requests == []
    assert str(reply.choices[0].message.content).startswith(expected)
    assert response.json()["choices"][0]["message"]["content"].startswith(expected)


def test_without_a_model_the_due_tasks_are_listed_too(settings: Settings, services: Services) -> None:
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"watch": False}), services)  # the relevance floor as configured
    with TestClient(app, base_url="http://127.0.0.1") as client:
        question = {"role": "user", "content": "Which tasks are due on 2021-11-22?"}
        response = client.post("/v1/chat/completions", json={"model": "vault-librarian", "messages": [question]})

    reply = response.json()["choices"][0]["message"]["content"]
    assert reply.splitlines()[:2] == [
        "2 open tasks due on 2021-11-22:",
        "- [ ] ==Profit== 📅 2021-11-22 [[ACME#Steps to world domination]]",
    ]


def test_the_tasks_tool_lists_them_by_date_for_a_model_calling_tools(settings: Settings) -> None:
    # What an MCP client or a model making structured tool calls asks: the same lists as a chat question gets.
    reader = VaultReader(settings.vault, NoSearch(), clock=lambda: datetime(2021, 11, 23, 9, 0))
    tools = ToolRegistry(reader)

    on_the_day = call(tools, "tasks", command="due", date="2021-11-22")
    assert "4 open tasks to do on 2021-11-22 (due or scheduled then, or in its daily note):" in on_the_day.text
    assert "- [ ] Cook dinner ⏳ 2021-11-22 [[ACME#Steps to world domination]]" in on_the_day.text
    assert "[[ACME#Steps to world domination]]" in on_the_day.anchors
    overdue = call(tools, "tasks", command="overdue")
    assert "open tasks due before 2021-11-23 (overdue):" in overdue.text and "Cook dinner" not in overdue.text
    none = call(tools, "tasks", command="due", date="2030-01-01", until="2030-01-31")
    assert "No open task is to do from 2030-01-01 to 2030-01-31 (due or scheduled then), nor later" in none.text
    with pytest.raises(InvalidRequest, match=r"until \(2021-11-01\) is before date \(2021-11-22\)"):
        call(tools, "tasks", command="due", date="2021-11-22", until="2021-11-01")
