"""Reading a question asking which tasks were done, and when (rag/answer/done_questions.py)."""

from __future__ import annotations

from datetime import date

import pytest

from rag.answer.done_questions import DoneAsk, done_ask

TODAY = date(2026, 12, 6)  # a Sunday


@pytest.mark.parametrize(
    ("question", "first", "last", "names_tasks"),
    [
        ("Which tasks did I finish this week?", date(2026, 11, 30), date(2026, 12, 6), True),
        ("What tasks did I complete in 2023?", date(2023, 1, 1), date(2023, 12, 31), True),
        ("Which tasks were done on 2023-04-17?", date(2023, 4, 17), date(2023, 4, 17), True),
        ("Welche Aufgaben habe ich diese Woche erledigt?", date(2026, 11, 30), date(2026, 12, 6), True),
        ("What did I get done yesterday?", date(2026, 12, 5), date(2026, 12, 5), False),
        ("What did I accomplish last week?", date(2026, 11, 23), date(2026, 11, 29), False),
        ("What have I ticked off recently?", None, None, False),
        ("Which to-dos have I completed lately?", None, None, True),
    ],
)
def test_tasks_done_and_the_days_asked_are_read(question: str, first: date, last: date, names_tasks: bool) -> None:
    assert done_ask(question, TODAY) == DoneAsk(first, last, names_tasks=names_tasks)


def test_a_priority_asked_narrows_the_tasks_done() -> None:
    found = done_ask("Which high priority tasks did I finish this week?", TODAY)

    assert found is not None and found.priorities == ("highest", "high") and found.first == date(2026, 11, 30)


def test_a_place_or_topic_beside_the_period_is_marked_for_the_agent_to_find() -> None:
    in_acme = done_ask("Which tasks did I complete in ACME last month?", TODAY)

    assert in_acme is not None and not in_acme.of_whole_vault and in_acme.first == date(2026, 11, 1)
    in_2023 = done_ask("Which tasks did I close in 2023?", TODAY)
    assert in_2023 is not None and in_2023.of_whole_vault  # the period's own "in" names no place


@pytest.mark.parametrize(
    "question",
    [
        "Which tasks are done?",  # no period: the list of the vault's done tasks
        "What did I do yesterday?",  # a day's notes
        "What did I finish reading this week?",  # books: "finished" counts only with tasks named
        "Which tasks are due this week?",  # open tasks by date
        "What tasks did I complete this week about the garden?",  # a topic: the search's
    ],
)
def test_questions_asking_no_tasks_done_in_a_period_are_not_read_as_such(question: str) -> None:
    assert done_ask(question, TODAY) is None
