"""`librarian ask` refuses change requests at once, but not questions that start with an edit verb."""

from __future__ import annotations

import pytest

from app.services.change_requests import is_change_request


@pytest.mark.parametrize(
    "message",
    [
        "Add a task to the Todo note: buy matcha",
        "please tag Sourdough #bread",
        "Can you tag Sourdough?",
        "Könntest du eine Notiz erstellen?",
        "Create a note called Plum Pruning",
    ],
)
def test_a_request_to_change_notes_is_one(message: str) -> None:
    assert is_change_request(message)


@pytest.mark.parametrize(
    "message",
    [
        "Update on the garden project?",
        "New recipes I saved last week?",
        "Start date of the Librarian project?",
        "Change management: what did I write about it?",
        "Move semantics in Rust: what did I note?",
        "What did I add to the garden plan?",
    ],
)
def test_a_question_starting_with_an_edit_verb_is_none(message: str) -> None:
    assert not is_change_request(message)
