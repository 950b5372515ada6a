"""Which questions ask for a list of tasks, in which state, and which follow a list before (rag/answer/task_lists)."""

from __future__ import annotations

import pytest

from rag.answer.task_lists import list_ask


@pytest.mark.parametrize(
    ("question", "state"),
    [
        ("What tasks are in my Important Project note?", "all"),
        ("Which open tasks are in ACME?", "open"),
        ("List the tasks in ACME", "all"),
        ("Show me all unfinished to-dos in the How To folder", "open"),
        ("How many tasks are left in ACME?", "open"),
        ("How many tasks does ACME have?", "all"),
        ("Are there any tasks not done yet in ACME?", "open"),
        ("What tasks did I finish in ACME?", "done"),
        ("Give me the completed tasks of ACME", "done"),
        ("What tasks are in progress in ACME?", "in progress"),
        ("What tasks am I working on right now?", "in progress"),  # the ones marked "[/]"
        ("Which tasks are we currently working on?", "in progress"),
        ("Which tasks in ACME are due?", "open"),
        ("Welche offenen Aufgaben stehen in ACME?", "open"),
        ("Wie viele Aufgaben hat ACME?", "all"),
    ],
)
def test_a_question_asking_for_a_list_of_tasks_is_read_with_the_state_it_asks_for(question: str, state: str) -> None:
    ask = list_ask(question)

    assert ask is not None
    assert ask.state == state
    assert not ask.follows


@pytest.mark.parametrize(
    "question",
    [
        "How do I group tasks in the Grouping note?",  # how to, no list
        "What is the battery task in the smoke detector note?",  # one task: the model answers it from the passages
        "What did I write in ACME?",
        "Which of them are done?",  # a follow-up, with no list before it
        # obsidian-tasks-demo's questions about its text, not lists of its tasks:
        "Does the Prism theme still show cancelled tasks as grayed out?",
        "How can I list tasks whose description appears more than once across the vault?",
        "Which statuses are core to Tasks, and which extra checkboxes does the ITS theme add?",
        "Which tasks in the Important Project are about trash, and how does the styling example search for them?",
        "Which tasks in ACME mention the baby?",  # a topic to filter by: the passages'
        # "Tasks" naming the plugin or a thing of it, and what a thing does with tasks (obsidian-tasks-demo's sets):
        "What does the Tasks plugin do when a recurring task is completed?",
        "Which Tasks version first shipped the query.searchCache mechanism?",
        "How many tasks does the stress test script create by default?",
    ],
)
def test_a_question_asking_for_no_list_of_tasks_is_left_to_the_model(question: str) -> None:
    assert list_ask(question) is None


def test_a_due_list_asks_for_open_tasks_with_a_due_date_and_a_priority_narrows_it() -> None:
    due = list_ask("Which tasks in ACME are due?")
    important = list_ask("What are my high-priority tasks in ACME?")

    assert due is not None and due.due_only and due.state == "open"
    assert important is not None and important.priorities == ("highest", "high") and not important.due_only


def test_after_a_list_of_tasks_a_follow_up_asks_again_and_says_what_it_names() -> None:
    done = list_ask("Which of them are done?", after_list=True)
    elsewhere = list_ask("And in ACME?", after_list=True)
    other = list_ask("What did I cook yesterday?", after_list=True)
    own = list_ask("And what did I cook on 2021-11-23?", after_list=True)  # "did I" is no state of the list
    done_ones = list_ask("And the done ones?", after_list=True)

    assert done is not None and done.follows and done.state == "done" and done.names_state
    assert elsewhere is not None and elsewhere.follows and not elsewhere.names_state and not elsewhere.names_tasks
    assert other is None
    assert own is None
    assert done_ones is not None and done_ones.follows and done_ones.state == "done"
