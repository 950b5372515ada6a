"""Recognising edit requests by their first words, so the relevance floor does not refuse them."""

from __future__ import annotations

import pytest

from agent.gate.intent import AskedChange, asked_change, looks_like_edit_request


@pytest.mark.parametrize(
    "message",
    [
        "Add a task to today's daily note",
        "add milk to my shopping list",
        "Create a note called Plum Tree",
        "Tag these notes with #garden",
        "Make a note about the plum tree",
        "Append the recipe to Sourdough",
        "Rename Inbox/Idea to Plum Ideas",
        "Move Bike Repair Notes to Archive",
        "Delete the empty note in Inbox",
        "Mark the pruning task done",
        "  ADD: milk",
        "add",
    ],
)
def test_an_imperative_edit_verb_first_is_an_edit_request(message: str) -> None:
    assert looks_like_edit_request(message)


@pytest.mark.parametrize(
    "message",
    [
        "please add milk to my shopping list",
        "Please, add milk",
        "pls add milk",
        "Can you tag these notes with #garden?",
        "Could you please create a note for the plum tree?",
        "Would you append this to my reading list",
        "I'd like you to add a task",
        "I’d like you to add a task",  # the curly apostrophe phones type
        "I want to move the note to Archive",
        "Let's rename this note",
        "Let’s rename this note",
        "Go ahead and add it",
        "Please please add x",
    ],
)
def test_polite_openers_before_the_verb_still_count(message: str) -> None:
    assert looks_like_edit_request(message)


@pytest.mark.parametrize(
    "message",
    [
        "Füge eine Aufgabe zur Tagesnotiz hinzu",
        "Bitte füge Milch zur Einkaufsliste hinzu",
        "Erstelle eine Notiz für den Pflaumenbaum",
        "Lösche die leere Notiz",
        "Bitte lege eine Notiz in Inbox an",
        "Trage 5 km ins Lauftagebuch ein",
        "Hinzufügen: Milch",
        "Kannst du eine Notiz für den Pflaumenbaum erstellen?",
        "Könntest du die Notiz ins Archiv verschieben",
        "Bitte die Aufgabe abhaken.",
    ],
)
def test_german_edit_requests_count(message: str) -> None:
    assert looks_like_edit_request(message)


@pytest.mark.parametrize(
    "message",
    [
        "What did I add to the garlic note?",
        "Kannst du mir sagen, was ich notiert habe?",
        "Was soll ich heute erstellen?",
        "How do I make bread?",
        "how long does the autolyse rest?",
        "Where is my garden plan?",
        "Is there anything to add?",
        "What should I add to the compost?",
        "Why did I write this?",
        "Can you tell me what I planted?",
        "Could you explain reciprocal rank fusion?",
        "Addition of compost?",
        "Adding lime: when?",
        "Tagged notes?",
        "Wann habe ich den Knoblauch gepflanzt?",
        "Kannst du mir sagen, was ich gepflanzt habe?",
    ],
)
def test_questions_are_not_edit_requests_even_when_they_mention_an_edit_verb(message: str) -> None:
    assert not looks_like_edit_request(message)


@pytest.mark.parametrize("message", ["", "   ", "please", "can you", "bitte", "?", "..."])
def test_empty_or_opener_only_messages_are_not_edit_requests(message: str) -> None:
    assert not looks_like_edit_request(message)


@pytest.mark.parametrize(
    ("message", "is_change", "kinds"),
    [
        ("What is in my Inbox?", False, set()),
        ("Was steht in meiner Inbox?", False, set()),
        ("don't ask me, just do it", False, set()),
        ("What did I write about the move to Berlin?", False, set()),
        ("Add a task to today's daily note", True, set()),
        ("Add a task to my Archive note", True, set()),
        ("delete the note Quick capture", True, {"delete"}),
        ("Please remove the empty note", True, {"delete"}),
        ("Rename Bike Repair Notes to Bike Repair Log", True, {"move"}),
        ("Archive the podcast note", True, {"move"}),
        ("What is in my Inbox? And delete the empty note.", True, {"delete"}),
        ("Tidy up: move Bike Repair Notes to Archive, then delete Quick capture", True, {"delete", "move"}),
        ("Lösche die Notiz Quick capture", True, {"delete"}),
        ("Kannst du die Notiz löschen?", True, {"delete"}),
        ("Verschiebe die Notiz ins Archiv", True, {"move"}),
        ("Benenne die Notiz in Fahrrad um", True, {"move"}),
    ],
)
def test_asked_change_says_whether_a_message_asked_for_a_change_and_for_a_delete_or_move(
    message: str, is_change: bool, kinds: set[str]
) -> None:
    assert asked_change(message) == AskedChange(is_change=is_change, kinds=frozenset(kinds))
