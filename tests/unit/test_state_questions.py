"""Which questions ask how something stands now, and about what (rag/answer/state_questions.py)."""

from __future__ import annotations

import pytest

from rag.answer.state_questions import last_time_subject, state_subject, subject_after


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("How is my knee doing?", "knee"),
        ("How's the home server migration going?", "home server migration"),
        ("How are my tomatoes coming along?", "tomatoes"),
        ("So how is the garden doing these days?", "garden"),
        ("How's my knee?", "knee"),
        ("How is my garden now?", "garden"),
        ("What's the latest on the Kafka migration?", "Kafka migration"),
        ("What is the status of my knee?", "knee"),
        ("Where am I with the half marathon training?", "half marathon training"),
        ("Where do we stand on the migration?", "migration"),
        ("How is Priya doing?", "Priya"),
    ],
)
def test_a_question_about_how_something_stands_is_read_with_its_subject(question: str, subject: str) -> None:
    assert state_subject(question) == subject


@pytest.mark.parametrize(
    "question",
    [
        "How are you doing?",  # no subject of the notes
        "How are things going?",
        "How is it going?",
        "How is the weather?",  # no "my", no "doing"/"going": not the notes' matter
        "How are my home server backups done?",  # how they are made
        "How is the Tasks plugin doing its filtering?",
        "How was the race?",  # one past event: the search's
        "How do I sort tasks?",
        "What's the latest note I wrote?",
    ],
)
def test_other_questions_are_no_questions_of_how_something_stands(question: str) -> None:
    assert state_subject(question) is None


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("When did I last water the tomatoes?", "water the tomatoes"),
        ("When was the last time I saw Katrin?", "Katrin"),  # "saw" says nothing of what happened
        ("When did we last go to the allotment?", "allotment"),
        ("When was my last physio session?", "physio session"),
        ("When did I last do the knee routine?", "knee routine"),
    ],
)
def test_a_question_about_when_something_last_happened_is_read_with_it(question: str, subject: str) -> None:
    assert last_time_subject(question) == subject


@pytest.mark.parametrize(
    "question",
    [
        "When did I last write about Kafka?",  # the notes about it by when they changed: the notes list's
        "When did I last do it?",  # nothing named
        "When is my next physio session?",
    ],
)
def test_other_questions_are_no_questions_of_when_something_last_happened(question: str) -> None:
    assert last_time_subject(question) is None


@pytest.mark.parametrize(
    ("question", "before", "after"),
    [
        ("And the garden?", "How is my knee doing?", ("garden", False)),
        ("What about my tomatoes?", "How are my beans coming along?", ("tomatoes", False)),
        ("And Priya?", "When was the last time I saw Katrin?", ("Priya", True)),
        ("And the garden?", "What is the capital of France?", None),  # no such question before
        ("And what about the budget?", "How is my knee doing?", None),  # a question of its own
        ("And in ACME?", "How is my knee doing?", None),  # a place: the task lists'
    ],
)
def test_a_follow_up_naming_another_subject_asks_the_same_of_it(
    question: str, before: str, after: tuple[str, bool] | None
) -> None:
    assert subject_after(question, before) == after
