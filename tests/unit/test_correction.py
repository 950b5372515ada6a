"""Corrections of the change just proposed: the two values read by code and swapped in the earlier request."""

from __future__ import annotations

import pytest

from agent.gate.correction import Correction, corrected_request, corrected_turn, read_correction
from core.chat import ChatMessage, TurnRequest

REQUEST = "Add the tag books to The Machine Stops"


@pytest.mark.parametrize(
    ("message", "correction"),
    [
        ("actually make it 'reading' not 'books'", Correction("books", "reading")),
        ("make it reading instead of books", Correction("books", "reading")),
        ("No, reading instead of books.", Correction("books", "reading")),
        ("reading, not books", Correction("books", "reading")),
        ("not books but reading", Correction("books", "reading")),
        ("nicht books, sondern reading", Correction("books", "reading")),
        ("make it 9 not 8", Correction("8", "9")),
        ("Use “Japan trip” instead of “2023 Japan Trip”", Correction("2023 Japan Trip", "Japan trip")),
        ("make it reading", None),  # which word it replaces would be a guess
        ("Why is the sky not blue?", None),
        ("What's the difference between a and b?", None),
        ("books not books", None),
        # Replies to a proposal that correct nothing (a reviewer's cases): no value, or no separator.
        ("Not today, thanks", None),
        ("Maybe not today", None),
        ("No, not that one", None),
        ("Thanks, not now", None),
        ("not 12", None),
        ("tomorrow, not today", Correction("today", "tomorrow")),
        ("not books but reading", Correction("books", "reading")),
    ],
)
def test_a_short_correction_states_the_old_and_the_new_value(message: str, correction: Correction | None) -> None:
    assert read_correction(message) == correction


def test_the_old_value_is_swapped_only_where_the_request_holds_it_once() -> None:
    assert corrected_request(REQUEST, Correction("Books", "reading")) == "Add the tag reading to The Machine Stops"
    assert corrected_request('Add a task "Call Kim" to Kyoto', Correction("Kim", "Sam")) == (
        'Add a task "Call Sam" to Kyoto'
    )
    assert corrected_request(REQUEST, Correction("films", "reading")) is None  # not in the request
    assert corrected_request("Tag books in Books", Correction("books", "reading")) is None  # which one?
    assert corrected_request("Add the tag bookshelf to X", Correction("books", "reading")) is None  # a word's part


def test_the_turn_answered_is_the_request_before_the_proposal_corrected() -> None:
    turn = TurnRequest(
        "c",
        (
            ChatMessage("user", "What are my notes on Forster?"),
            ChatMessage("assistant", "The Machine Stops ..."),
            ChatMessage("user", REQUEST),
            ChatMessage("assistant", "I read your request as: ... `a1b2c3d4` ..."),
            ChatMessage("user", "reading, not books"),
        ),
    )

    corrected = corrected_turn(turn, "reading, not books")

    assert corrected is not None and corrected.messages[:-1] == turn.messages[:-1]
    assert corrected.messages[-1] == ChatMessage("user", "Add the tag reading to The Machine Stops")
    assert corrected_turn(turn, "Tell me more about Forster") is None


def test_a_second_correction_corrects_the_request_as_the_first_left_it() -> None:
    # The client resends what the user typed: the message before the reply is the first correction.
    turn = TurnRequest(
        "c",
        (
            ChatMessage("user", REQUEST),
            ChatMessage("assistant", "... `a1b2c3d4` ..."),
            ChatMessage("user", "reading not books"),
            ChatMessage("assistant", "... `b2c3d4e5` ..."),
            ChatMessage("user", "'novels' not 'reading'"),
        ),
    )

    corrected = corrected_turn(turn, "'novels' not 'reading'")

    assert corrected is not None and corrected.messages[-1].content == "Add the tag novels to The Machine Stops"
