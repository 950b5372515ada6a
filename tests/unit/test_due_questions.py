"""Reading what a question about tasks by date asks for: which days, and by which of a task's dates."""

from __future__ import annotations

from datetime import date

import pytest

from rag.answer.due_questions import DueAsk, due_ask

TODAY = date(2026, 12, 5)  # a Saturday


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("Which tasks are due on 2021-11-22?", date(2021, 11, 22), date(2021, 11, 22)),
        ("What is due on 22 November?", date(2026, 11, 22), date(2026, 11, 22)),  # no year: this year's
        ("Which of my tasks are due in January 2027?", date(2027, 1, 1), date(2027, 1, 31)),
        ("What do I have to do today?", TODAY, TODAY),
        ("What's on my plate today?", TODAY, TODAY),
        ("Any tasks for tomorrow?", date(2026, 12, 6), date(2026, 12, 6)),
        ("Was ist heute fällig?", TODAY, TODAY),
        ("Which tasks are due this week?", date(2026, 11, 30), date(2026, 12, 6)),  # Monday to Sunday
        ("What tasks are due next week?", date(2026, 12, 7), date(2026, 12, 13)),
        ("Which deadlines fall this month?", date(2026, 12, 1), date(2026, 12, 31)),
        ("What's due on Monday?", date(2026, 12, 7), date(2026, 12, 7)),  # the coming Monday
        ("Which tasks are due Saturday?", TODAY, TODAY),  # today is one
        ("Any tasks for next Tuesday?", date(2026, 12, 8), date(2026, 12, 8)),  # in next week
        ("Which tasks were due last Friday?", date(2026, 12, 4), date(2026, 12, 4)),
        ("Was ist am Freitag fällig?", date(2026, 12, 11), date(2026, 12, 11)),
        ("What do I have to do this weekend?", TODAY, date(2026, 12, 6)),
        ("Which tasks need to be done today?", TODAY, TODAY),  # to be done: still to do
        ("Was muss heute erledigt werden?", TODAY, TODAY),
    ],
)
def test_the_days_asked_for_are_read_from_the_question(question: str, first: date, last: date) -> None:
    ask = due_ask(question, TODAY)

    assert ask is not None and (ask.first, ask.last) == (first, last)


def test_the_days_listed_are_each_asked_for_and_not_those_between() -> None:
    ask = due_ask("What is due on Monday and Friday?", TODAY)

    assert ask is not None and (ask.first, ask.last, ask.listed) == (
        date(2026, 12, 7),
        date(2026, 12, 7),
        (date(2026, 12, 11),),
    )
    assert ask.holds(date(2026, 12, 11)) and not ask.holds(date(2026, 12, 9)) and ask.until == date(2026, 12, 11)
    assert ask.describe() == "on 2026-12-07 and 2026-12-11"
    spans = due_ask("What is due from 7 to 9 December and on 14 December?", TODAY)
    assert spans is not None and spans.describe() == "from 2026-12-07 to 2026-12-09 and on 2026-12-14"
    follow_up = due_ask("And on 9 and 12 December?", TODAY, earlier=["What is due on Monday and Friday?"])
    assert follow_up is not None and (follow_up.first, follow_up.listed) == (date(2026, 12, 12), (date(2026, 12, 9),))


def test_overdue_is_every_day_before_today() -> None:
    ask = due_ask("What's overdue?", TODAY)

    assert ask is not None and ask.holds(date(2020, 3, 1)) and ask.holds(date(2026, 12, 4))
    assert not ask.holds(TODAY)
    assert ask.describe() == "before 2026-12-05 (overdue)"


@pytest.mark.parametrize(
    "question",
    [
        "When is the allotment fee due?",  # asks for a date, names none
        "What did I bake today?",  # a date, but no tasks
        "How many tomatoes did I harvest on 2026-09-01?",
        "Which tasks are open?",  # tasks, but no date
        "Schedule a task for today: call the vet",  # a request to add one
        "Add a task due tomorrow: buy milk",
        "Which tasks did I finish this week?",  # done ones: the open ones would be the wrong list
        "Which tasks got done yesterday?",
        # obsidian-tasks-demo's questions about its text: how or why, or a thing of another kind.
        "How are urgency scores calculated for a task due today with medium priority?",
        "How is the score worked out for an item with no deadline that was meant to begin yesterday?",
        "Which CSS snippet will colour tasks that are due today or overdue?",
        "Which theme shows tasks due today?",
    ],
)
def test_a_question_not_about_tasks_by_date_asks_for_none(question: str) -> None:
    assert due_ask(question, TODAY) is None


def test_what_is_due_is_asked_by_due_date_and_what_to_do_by_due_else_scheduled_date() -> None:
    assert due_ask("Which tasks are due today?", TODAY) == DueAsk(TODAY, TODAY, by_due_only=True)
    assert due_ask("What do I have to do today?", TODAY) == DueAsk(TODAY, TODAY)
    assert due_ask("Which tasks are scheduled for today?", TODAY) == DueAsk(TODAY, TODAY, by_scheduled=True)


@pytest.mark.parametrize(
    ("question", "earlier", "expected"),
    [
        ("And on 2021-11-23?", "What is due on 2021-11-22?", DueAsk(date(2021, 11, 23), date(2021, 11, 23), True)),
        ("What about tomorrow?", "What do I have to do today?", DueAsk(date(2026, 12, 6), date(2026, 12, 6))),
        ("Und morgen?", "Was ist heute fällig?", DueAsk(date(2026, 12, 6), date(2026, 12, 6), True)),
        (
            "And next week?",
            "Which tasks are scheduled for today?",
            DueAsk(date(2026, 12, 7), date(2026, 12, 13), by_scheduled=True),
        ),
    ],
)
def test_a_follow_up_naming_only_other_days_asks_what_the_question_before_did(
    question: str, earlier: str, expected: DueAsk
) -> None:
    assert due_ask(question, TODAY, earlier=[earlier]) == expected


@pytest.mark.parametrize(
    ("question", "earlier"),
    [
        ("And on 2021-11-23?", "What did I cook on 2021-11-22?"),  # the question before asked nothing of tasks
        ("What did I write on 2021-11-23?", "What is due on 2021-11-22?"),  # a question of its own
        ("And what did I finish tomorrow?", "What is due today?"),  # done tasks, not open ones
    ],
)
def test_other_follow_ups_ask_nothing_of_tasks_by_date(question: str, earlier: str) -> None:
    assert due_ask(question, TODAY, earlier=[earlier]) is None


def test_a_follow_up_after_a_follow_up_asks_what_the_first_question_did() -> None:
    earlier = ["What is due on 2021-11-22?", "And on 2021-11-23?"]

    assert due_ask("What about 2021-11-25?", TODAY, earlier=earlier) == DueAsk(
        date(2021, 11, 25), date(2021, 11, 25), by_due_only=True
    )


@pytest.mark.parametrize(
    ("question", "priorities"),
    [
        ("Which high priority tasks are due today?", ("highest", "high")),  # "high" takes the highest in too
        ("Which tasks with the highest priority are due this week?", ("highest",)),
        ("What low-priority tasks are due today?", ("low", "lowest")),
        ("Which tasks due today have priority medium?", ("medium",)),
        ("Welche Aufgaben mit hoher Priorität sind heute fällig?", ("highest", "high")),
        ("Which tasks are due today?", ()),  # none named: any
    ],
)
def test_the_priorities_asked_for_are_read_from_the_question(question: str, priorities: tuple[str, ...]) -> None:
    ask = due_ask(question, TODAY)

    assert ask is not None and ask.priorities == priorities


@pytest.mark.parametrize(
    ("question", "earlier", "expected"),
    [
        (
            "Which of them are high priority?",
            "What's overdue?",
            DueAsk(date.min, date(2026, 12, 4), by_due_only=True, priorities=("highest", "high")),
        ),
        (
            "And the low priority ones tomorrow?",
            "What do I have to do today?",
            DueAsk(date(2026, 12, 6), date(2026, 12, 6), priorities=("low", "lowest")),
        ),
        (
            "Welche davon haben hohe Priorität?",
            "Was ist heute fällig?",
            DueAsk(TODAY, TODAY, True, False, ("highest", "high")),
        ),
    ],
)
def test_a_follow_up_naming_a_priority_narrows_what_the_question_before_asked(
    question: str, earlier: str, expected: DueAsk
) -> None:
    assert due_ask(question, TODAY, earlier=[earlier]) == expected


def test_a_priority_named_once_holds_for_the_follow_ups_naming_other_days() -> None:
    earlier = ["Which high priority tasks are due today?"]

    assert due_ask("And tomorrow?", TODAY, earlier=earlier) == DueAsk(
        date(2026, 12, 6), date(2026, 12, 6), by_due_only=True, priorities=("highest", "high")
    )


def test_a_priority_after_a_question_not_about_tasks_by_date_asks_nothing_of_them() -> None:
    # "Which of them" points at whatever the reply before listed: code knows that list only for tasks by date.
    assert due_ask("Which of them are high priority?", TODAY, earlier=["What is in my garden plan?"]) is None
    assert due_ask("Which of them are high priority?", TODAY) is None


def test_which_of_them_without_a_priority_asks_nothing_of_tasks_by_date() -> None:
    # The list before is narrowed only by a priority; any other "which of them" is a question for the notes.
    earlier = ["Which tasks are due this week?"]

    assert due_ask("Which of them mention Priya on Monday?", TODAY, earlier=earlier) is None
    assert due_ask("Which of those notes from yesterday say why?", TODAY, earlier=earlier) is None
