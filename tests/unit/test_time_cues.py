"""Which messages need today's date: those naming a day or a time relative to now, not any question with "when"."""

from __future__ import annotations

import pytest

from rag.answer.time_cues import needs_today


@pytest.mark.parametrize(
    "message",
    [
        "What is due tomorrow?",
        "What's overdue?",
        "How many days until the race?",
        "How long ago did I plant the garlic?",
        "How old is my starter Herbert?",
        "When is the next parkrun?",
        "What did I write last Friday?",
        "What did I do on 13 November?",  # a date without its year: this year's or last, by today
        "Which tasks are still open?",
        "How long have I been training for the half marathon?",
        "What did I bake this morning?",
        "Add a task to my daily note",
        "Was steht heute an?",
        "Was ist noch offen?",
    ],
)
def test_a_message_placed_relative_to_today_needs_the_date(message: str) -> None:
    assert needs_today(message)


@pytest.mark.parametrize(
    "message",
    [
        # The 0.5B answered this one with the prompt's date (sample_vault's golden set).
        "When did I stop having coffee in the day to sleep better, and did it help?",
        "How long does the shaped sourdough loaf rest in the fridge, and at what temperature?",
        "Which embedding model did I choose for the librarian, and why not nomic?",
        "What is Steph Ango's Twitter handle?",
        "Welchen Käse nimmt Oma für die Käsespätzle?",
        "When was the Eiffel Tower built?",
    ],
)
def test_a_message_about_no_time_relative_to_today_does_not(message: str) -> None:
    assert not needs_today(message)
