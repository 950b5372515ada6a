"""Whether a question asks for something to be named, or for a yes or a no."""

from __future__ import annotations

import pytest

from agent.opening_check import answer_check
from rag.answer.attribution import Passage
from rag.answer.question_kind import (
    asks_about_topic,
    asks_for_amount,
    asks_for_figure,
    asks_for_something,
    asks_for_value,
    gives_figure,
    names_only_the_kind,
    topic_of,
)


@pytest.mark.parametrize(
    "question",
    [
        "Which embedding model did I choose for the librarian, and why not nomic?",
        "When did I stop having coffee in the day to sleep better, and did it help?",
        "How is the sourdough loaf baked?",
        "Welchen Käse nimmt Oma für die Käsespätzle?",
        "  what port does the API listen on",
    ],
)
def test_a_question_asking_for_a_thing_a_time_a_place_or_a_way(question: str) -> None:
    assert asks_for_something(question)


@pytest.mark.parametrize(
    "question",
    [
        "Is nomic better on Recall@5?",
        "Was it worth it?",  # English "was", not German
        "Did I pick bge or nomic?",
        "Which did I choose, bge or nomic?",  # it names what may answer it
        "Is Wine an emulator, and which Vulkan-based implementations of Direct3D do my notes list?",  # "No." answers
        "Did it help, and what changed?",
        "Tell me about the garlic.",
    ],
)
def test_a_yes_or_no_question_a_choice_offered_or_no_question(question: str) -> None:
    assert not asks_for_something(question)


def test_a_question_asking_for_an_amount_or_a_time() -> None:
    assert asks_for_amount("How much did the new cassette cost?")
    assert asks_for_amount("When was I in Kyoto?") and asks_for_amount("Wie viele Eier kommen in den Teig?")
    assert not asks_for_amount("Which book by Kevin Kelly have I noted?")
    assert not asks_for_amount("Which book by Kevin Kelly have I noted, and when was it published?")  # which, too
    assert asks_for_amount("What time does the pump run?") and asks_for_amount("Which year did I plant it?")
    assert not asks_for_amount("How does the remote send its commands?")


def test_a_question_asking_for_a_value_no_notes_name_is() -> None:
    assert asks_for_value("What is the address of my Sela blog?") and asks_for_value("Which port does Caddy use?")
    assert asks_for_value("Wie ist die Adresse von Oma?")
    assert not asks_for_value("Which book by Kevin Kelly have I noted?") and not asks_for_value("Where do I live?")


def test_a_question_asking_for_a_figure_and_an_answer_stating_one() -> None:
    assert asks_for_figure("In which year was cdmaOne first launched commercially?")
    assert asks_for_figure("How long does the loaf rest in the fridge?") and asks_for_figure("Wie oft gieße ich?")
    assert not asks_for_figure("When was I in Kyoto?")  # "after the move" answers it too
    assert not asks_for_figure("How many TENS sessions did I have, and who treated me?")  # a name may answer it
    assert not asks_for_figure("How does the remote send its commands?")
    assert gives_figure("€40") and gives_figure("It rests overnight.") and gives_figure("Zwei Eier.")
    assert gives_figure("Until it has doubled.") and gives_figure("It was free.")
    assert not gives_figure("cdmaOne was the first technology that made use of the CDMA access method.")


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("Summarize my notes on Obsidian alternatives.", " my notes on Obsidian alternatives."),
        ("What do I think about push up boards?", " push up boards?"),
        ("Can you give me an overview of the home server migration", " of the home server migration"),
        ("Tell me about my kitchen inventory app.", " my kitchen inventory app."),
        ("What have I written about my knee?", " my knee?"),
        ("what do my notes say about RRF", " RRF"),
        ("Was steht in meinen Notizen über Ansible?", " Ansible?"),
        ("Erzähl mir etwas über Omas Käsespätzle", " Omas Käsespätzle"),
        ("What did I do on 2026-11-16?", " on 2026-11-16?"),  # what the notes of a day say
        ("What happened yesterday?", " yesterday?"),
        ("What did I write last week?", " last week?"),
    ],
)
def test_a_request_for_what_the_notes_say_about_a_topic(question: str, topic: str) -> None:
    assert asks_about_topic(question)
    assert topic_of(question) == topic


@pytest.mark.parametrize(
    "question",
    [
        "What ratio of browns to greens do I aim for?",
        "How do I explain RRF to my team?",  # a way, not a topic
        "Which embedding model did I choose?",
        "Tell me more",
        "I think about my knee a lot. What did the physio say?",  # not at the start
        "What happened to my fig tree?",  # no day named: one fact
        "What did I do with the spare key?",
    ],
)
def test_a_question_for_one_fact_is_no_request_about_a_topic(question: str) -> None:
    assert not asks_about_topic(question)
    assert topic_of(question) == ""


@pytest.mark.parametrize(
    ("answer", "question", "only_the_kind"),
    [
        # kepano-obsidian, the 1.5B (stop 59), a near miss: every word borne out, no hotel named
        ("I stayed at a hotel in Kyoto during the 2023 Japan Trip.", "Which hotel did I stay at in Kyoto?", True),
        ("In Kyoto I stayed at a small hotel.", "Which hotel did I stay at in Kyoto?", True),
        ("You discussed a book about emergence.", "What book did I discuss with Steph?", True),
        # the kind named, then named or after a name
        ("I stayed at a hotel called Nishiyama Ryokan.", "Which hotel did I stay at in Kyoto?", False),
        ("Out of Control, a book by Kevin Kelly.", "What book did I discuss with Steph?", False),
        ("A book, Out of Control.", "What book did I discuss with Steph?", False),
        ("[[Out of Control]] is a book by Kevin Kelly.", "What book did I discuss with Steph?", False),
        ("Sungold; it is a tomato variety with 3.1 kg per plant.", "Which tomato variety gave the most?", False),
        # sample_vault, the 1.5B: the kind is the word before the verb ("finish time"), a figure follows it
        ("I aim for a finish time of 1:49:00.", "What finish time am I aiming for?", False),
        ("It is a tart.", "What is the nectarine tart?", False),  # no kind asked
    ],
)
def test_an_answer_naming_only_the_kind_asked_names_nothing(answer: str, question: str, only_the_kind: bool) -> None:
    assert names_only_the_kind(answer, question) is only_the_kind


def test_an_answer_naming_only_the_kind_is_withheld() -> None:
    trips = Passage("[[Kyoto#Trips]]", "| [[2023 Japan Trip]] | 2023-09-12 | 2023-09-30 |")
    check = answer_check("Which hotel did I stay at in Kyoto?", [trips])

    assert check.feed("I stayed at a hotel in Kyoto during the 2023 Japan Trip.") + check.finish() == ""
    assert check.is_withheld
