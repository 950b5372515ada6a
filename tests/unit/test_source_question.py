"""Telling "which note says that?" from a question for the notes, and what is said to it."""

from __future__ import annotations

import pytest

from agent.source_question import (
    CAME_FROM,
    FROM_NO_NOTE,
    NO_ANSWER_BEFORE,
    NOTHING_CITED,
    REFUSED_BEFORE,
    answered_from,
    asks_for_sources,
    sources_reply,
    with_answer_notes,
)
from core.domain import Embedding, SparseVector
from rag.answer.context import REFUSAL
from rag.follow_up import Query


@pytest.mark.parametrize(
    "question",
    [
        "Which note says that?",
        "which note?",
        "What note is that from?",
        "Where did you get that?",
        "ok, where did you get that from?",
        "And where does it say that?",
        "Where is that written?",
        "Sources?",
        "What are your sources?",
        "Show me the sources please",
        "How do you know that?",
        "Welche Notiz sagt das?",
        "Woher hast du das?",
        "Wo steht das?",
        "What’s your source?",
        "Where’d you get that?",
        "Where's that from?",
        "Which note did that come from?",
        "What's your source for that?",
        "Can you cite your sources?",
    ],
)
def test_asking_where_the_last_answer_came_from(question: str) -> None:
    assert asks_for_sources(question)


@pytest.mark.parametrize(
    "question",
    [
        "Which note says the bike was serviced?",
        "Which notes mention sourdough?",
        "What is the source of the Danube?",
        "Where did I get the plum tree?",
        "How do you know when the bread is done?",
        "Show me the notes on garlic",
        "Where is it from?",  # the wine just named
        "Where does it come from?",
        "What's its source?",  # a river's
        "Which file is it?",
        "List the notes",
        "Show me your notes",
    ],
)
def test_a_question_for_the_notes_is_none(question: str) -> None:
    assert not asks_for_sources(question)


EVIDENCE = 'Your notes say:\n- "Rest 45 minutes." [[Sourdough#Final recipe]]'


def test_the_lists_under_the_last_answer_are_repeated() -> None:
    earlier = f"It rests 45 minutes.\n\n{EVIDENCE}\n\nSources:\n- [[Sourdough#Final recipe]]\n- [[Bread]]"

    assert sources_reply(earlier) == f"{CAME_FROM}\n\n{EVIDENCE}\n\nSources:\n- [[Sourdough#Final recipe]]\n- [[Bread]]"


def test_an_answer_no_note_held_says_so_with_the_notes_searched() -> None:
    earlier = "It rests a day.\n\nNotes searched:\n- [[Sourdough]]"

    assert sources_reply(earlier) == f"{FROM_NO_NOTE}\n\nNotes searched:\n- [[Sourdough]]"


def test_an_answer_opening_like_a_refusal_that_lists_sources_came_from_them() -> None:
    earlier = "The notes don't mention the exact date, but [[Garden Log]] says May.\n\nSources:\n- [[Garden Log]]"

    assert sources_reply(earlier) == f"{CAME_FROM}\n\nSources:\n- [[Garden Log]]"


def test_a_refusal_came_from_no_note() -> None:
    assert (
        sources_reply(f"{REFUSAL}\n\nNotes searched:\n- [[Garlic]]")
        == f"{REFUSED_BEFORE}\n\nNotes searched:\n- [[Garlic]]"
    )
    assert sources_reply("The notes don't mention it.") == REFUSED_BEFORE


def test_without_lists_the_links_it_wrote_are_listed_once() -> None:
    earlier = r"Rest 45 minutes [[Sourdough#Final recipe|the recipe]], see [[Sourdough#Final recipe\|here]], ![[Oven]]."

    assert sources_reply(earlier) == f"{CAME_FROM}\n\nSources:\n- [[Sourdough#Final recipe]]\n- [[Oven]]"
    assert sources_reply("It rests 45 minutes.") == NOTHING_CITED
    assert sources_reply("") == NO_ANSWER_BEFORE  # asked as the first message


def test_passages_shown_without_a_model_are_listed_by_their_heads_not_the_links_inside() -> None:
    earlier = (
        "No language model answered: the passages below are from your notes.\n\n"
        "1. [[Evergreen notes#Idea]] (Notes/Evergreen notes.md, lines 3-9)\n   > See [[Everything is a remix]].\n\n"
        "2. [[Evergreen]] (Evergreen.md, line 1)\n   > [[Composability]]"
    )

    assert sources_reply(earlier) == f"{CAME_FROM}\n\nSources:\n- [[Evergreen notes#Idea]]\n- [[Evergreen]]"


def test_a_link_naming_no_note_is_left_out_and_one_written_twice_is_listed_once() -> None:
    earlier = (
        f"It rests.\n\n{EVIDENCE}\n\nSources:\n- [[sourdough#final recipe]]\n- [[Sourdough#Final recipe]]\n- [[Fake]]"
    )
    canonical = {"[[sourdough#final recipe]]": "[[Sourdough#Final recipe]]", "[[Sourdough#Final recipe]]": None}
    canonical["[[Sourdough#Final recipe]]"] = "[[Sourdough#Final recipe]]"

    reply = sources_reply(earlier, checked=canonical.get)

    assert reply == f"{CAME_FROM}\n\n{EVIDENCE}\n\nSources:\n- [[Sourdough#Final recipe]]"
    assert sources_reply(earlier, checked=lambda link: None) == NOTHING_CITED


def test_the_notes_an_answer_came_from_are_its_sources_or_else_the_passages_or_links_it_shows() -> None:
    # What a follow-up pointing back reads too ("Which one was the fastest?", rag/follow_up.py `answered_from`).
    listed = f"It rests 45 minutes [[Oven]].\n\n{EVIDENCE}\n\nSources:\n- [[Sourdough#Final recipe]]\n- [[Oven]]"
    shown = "Here is what your notes say:\n\n1. [[Evergreen notes#Idea]] (Notes/Evergreen notes.md, line 3)\n   > [[X]]"

    assert answered_from(listed) == ["[[Sourdough#Final recipe]]", "[[Oven]]"]
    assert answered_from(shown) == ["[[Evergreen notes#Idea]]"]
    assert answered_from("Rest it 45 minutes [[Sourdough#Final recipe|the recipe]].") == ["[[Sourdough#Final recipe]]"]


def test_a_refusal_or_a_reply_listing_only_the_notes_searched_answered_from_no_note() -> None:
    assert answered_from(f"{REFUSAL}\n\nNotes searched:\n- [[Sourdough]]") == []
    assert answered_from("It was sunny.\n\nNotes searched:\n- [[Sourdough]]") == []
    assert answered_from("") == []


def test_a_follow_up_gets_the_paths_of_the_notes_the_reply_before_answered_from_and_a_new_question_none() -> None:
    embedding = Embedding(dense=(1.0, 0.0), sparse=SparseVector(indices=(1,), values=(1.0,)))
    paths = {"Oven": "Kitchen/Oven.md", "Sourdough": "Areas/Cooking/Sourdough.md"}

    def note_path(link: str) -> str | None:
        return paths.get(link.strip("[]").partition("#")[0])

    earlier = "It rests.\n\nSources:\n- [[Sourdough#Final recipe]]\n- [[Fake]]\n- [[Sourdough]]\n- [[Oven]]"
    follow_up = Query("Which one?", embedding, ("…", embedding))

    assert with_answer_notes(follow_up, earlier, note_path).answered_from == (
        "Areas/Cooking/Sourdough.md",
        "Kitchen/Oven.md",
    )
    assert with_answer_notes(Query("Which one?", embedding), earlier, note_path).answered_from == ()
