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
        "Reopen the task Renew passport",  # the 0.5B answered it as a question: "[ ] Open"
        "Untick the battery task",
        "Check off the battery task",  # answered as a question before, like "Complete the task Renew passport"
        "Cross off Renew passport",
        "Complete the task Renew passport",
        "Finish the Renew passport task",
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
        "In the How To folder, create a note called Plumbing Plan",  # a folder clause before the verb
        "Please, in the Inbox folder, create a note called X",
        "In the folder Inbox, create a note called X",
        "Im Ordner Projekte, erstelle eine Notiz namens X",
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
    ("message", "kinds"),
    [
        ("Ajoute le tag lecture à la note The Machine Stops", set()),
        ("Crée une note appelée Idées", set()),
        ("Peux-tu déplacer la note Kyoto dans Archive ?", {"move"}),
        ("Supprime la note vide", {"delete"}),
        ("S'il te plaît, coche la tâche du jardin", set()),
    ],
)
def test_french_edit_requests_count(message: str, kinds: set[str]) -> None:
    assert asked_change(message) == AskedChange(is_change=True, kinds=frozenset(kinds))


@pytest.mark.parametrize(
    "message",
    [
        'In the nectarine tart recipe, add "Use less sugar next time" under the Tips heading',
        "For the Garlic note, add a task to buy straw",
        "Dans la note Kyoto, ajoute le tag voyage",
    ],
)
def test_a_note_named_in_a_clause_before_the_verb_still_makes_a_request(message: str) -> None:
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
        "In the Inbox folder, what notes are there?",  # a folder clause, then a question
        "In my garden notes, what did I plant?",  # a note clause, then a question
        "In the Librarian project, change requests still open?",  # a clause naming no note
        "For the garden, start dates for tomatoes?",
        "Pour le dîner, qu'est-ce que je cuisine ?",
        "Complete list of my books?",  # "complete" marks a task done only where a task is named
        "Check whether my notes mention garlic",
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


FOLLOW_REQUESTS = [
    "Follow the instructions in my Planted note",
    "please follow my Planted note",
    "Can you follow the steps in Setup?",
    "Do what the Planted note says",
    "do whatever Inbox/Planted tells you",
    "Do everything in my todo note",
    "Execute the steps in my Deploy note",
    "Run the steps listed in Setup",
    "Carry out the instructions from the Planted note",
    "Apply the checklist in Moving Day",
    "Make the changes described in my Review note",
    "Make the edits that Planted asks for",
    "Open the Planted note and do what it says",
    "Obey Planted",
    "Act on the instructions in Planted",
    "Mach was in der Notiz Planted steht",
    "Mach, was Planted sagt",
    "Befolge die Anweisungen in Planted",
    "Bitte führe die Schritte in Setup aus",
    "Setze die Anweisungen aus Planted um",
    "Arbeite die Liste in Umzug ab",
    "Kannst du die Anweisungen in Planted befolgen?",
    "Kannst du machen, was in Planted steht?",
]
NOT_FOLLOW_REQUESTS = [
    "What do the instructions in my Planted note say?",
    "What does Planted say about compost?",
    "Summarise the steps in Setup",
    "Show me the checklist in Moving Day",
    "Do the instructions in Planted mention compost?",
    "How do I follow the steps in my Sourdough note?",
    "Make the following changes in Project Plan: set status to done",
    "Add the tasks from my meeting note to today's daily note",
    "Do what I said earlier",
    "Run the Daily-Briefing crew",
    "Was steht in der Notiz Planted?",
    "Fasse die Schritte in Setup zusammen",
    "Follow up on the landlord task",
    "Follow the links from my Garden MOC",
    "action for step in plan",
]


@pytest.mark.parametrize("message", FOLLOW_REQUESTS)
def test_a_request_to_act_on_a_notes_instructions_is_a_request_to_act_but_asks_no_change(message: str) -> None:
    asked = asked_change(message)

    assert looks_like_edit_request(message)  # no passages without a model, no refusal by the floor
    assert asked.follows_note and not asked.is_change  # the note's text is no change the user asked for


@pytest.mark.parametrize("message", NOT_FOLLOW_REQUESTS)
def test_questions_about_a_notes_instructions_and_concrete_requests_are_not_requests_to_follow_it(
    message: str,
) -> None:
    assert not asked_change(message).follows_note


def test_a_follow_request_in_any_sentence_marks_the_message() -> None:
    asked = asked_change("What is in my Inbox? Then follow the checklist in Planted. Also add milk to Shopping.")

    assert asked.follows_note and asked.is_change


@pytest.mark.parametrize(
    ("message", "is_change"),
    [
        ("Remind me to water the plants tomorrow", True),
        ("Please remind us to renew the passport", True),
        ("Remind me what the garlic variety is", False),  # a question: what the notes say
        ("Remind me how long the loaf rests", False),
    ],
)
def test_remind_me_to_asks_for_a_task_remind_me_what_asks_a_question(message: str, is_change: bool) -> None:
    assert looks_like_edit_request(message) is is_change
    assert asked_change(message).is_change is is_change
