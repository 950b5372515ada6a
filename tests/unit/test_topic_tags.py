"""Reading a request to tag many notes, and the notes a reply lists ("tag them")."""

from __future__ import annotations

import pytest

from agent.change_contract.topic_tags import TagRequest, listed_notes, tag_request


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("Tag my notes about Kyoto with #japan", TagRequest("japan", "Kyoto")),
        ("tag all notes on bread as baking", TagRequest("baking", "bread")),
        ("Add the tag #japan to my notes about Kyoto", TagRequest("japan", "Kyoto")),
        ("add #japan to all my notes on Kyoto.", TagRequest("japan", "Kyoto")),
        ("Can you tag all of my travel notes about Japan with #trip?", TagRequest("trip", "Japan")),
        ("Tag these #reading", TagRequest("reading")),
        ("tag them with reading", TagRequest("reading")),
        ("add the tag reading to these notes", TagRequest("reading")),
        ("Please tag the notes above as to-do/later", TagRequest("to-do/later")),
    ],
)
def test_a_tag_for_many_notes_is_read_with_its_topic_or_as_the_notes_listed_before(
    request_text: str, expected: TagRequest
) -> None:
    assert tag_request(request_text) == expected


@pytest.mark.parametrize(
    "request_text",
    [
        "Tag the Dune note with scifi",  # one note, named: the change contract's
        "Add the tag x to the garlic note",
        "tag my note about bread with baking",  # "note": one note
        "tag my notes on it with x",  # no word to find notes by
        "Tag my notes about Kyoto with #japan and #travel",  # two tags: one change at a time
        "Which notes are tagged #japan?",
    ],
)
def test_other_requests_are_no_tag_for_many_notes(request_text: str) -> None:
    assert tag_request(request_text) is None


def test_the_notes_a_reply_lists_are_its_items_opening_with_a_link_else_every_link() -> None:
    listing = "2 notes link to [[Kyoto]]:\n- [[2023 Japan Trip]]\n- [[Fushimi Inari#Trips|the shrine]]"
    assert listed_notes(listing) == ["2023 Japan Trip", "Fushimi Inari"]
    numbered = '1. **[[A]]** first\n2) [[B]]\n3. [[A]] again\n\nYour notes say:\n- "a quote" [[C]]'
    assert listed_notes(numbered) == ["A", "B"]
    assert listed_notes("See [[A#x]] and [[B|b]].") == ["A", "B"]
    assert listed_notes("No links here.") == []
