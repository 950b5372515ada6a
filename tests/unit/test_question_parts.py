"""Splitting a question asking two or three things into its parts, which the model is told one by one."""

from __future__ import annotations

import pytest

from rag.answer.question_parts import question_parts


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "How long does the shaped sourdough loaf rest in the fridge, and at what temperature?",
            ("How long does the shaped sourdough loaf rest in the fridge?", "At what temperature?"),
        ),
        (
            "Which embedding model did I choose for the librarian, and why not nomic?",
            ("Which embedding model did I choose for the librarian?", "Why not nomic?"),
        ),
        (
            "When did I stop having coffee in the day to sleep better, and did it help?",
            ("When did I stop having coffee in the day to sleep better?", "Did it help?"),
        ),
        (
            "How many garlic cloves did I plant, of which variety, and on what date?",
            ("How many garlic cloves did I plant, of which variety?", "On what date?"),
        ),
        ("What is Wine and how does it work?", ("What is Wine?", "How does it work?")),
        ("Who wrote it, and when, and where was it printed?", ()),  # "When" alone asks nothing a part can
        (
            "Who wrote The Machine Stops, and in which year was it published, and by whom?",
            ("Who wrote The Machine Stops?", "In which year was it published?", "By whom?"),
        ),
        ("Welchen Käse nimmt Oma und was kommt dazu?", ("Welchen Käse nimmt Oma?", "Was kommt dazu?")),
    ],
)
def test_a_question_asking_more_than_one_thing_is_split_where_and_opens_a_new_question(
    question: str, parts: tuple[str, ...]
) -> None:
    assert question_parts(question) == parts


@pytest.mark.parametrize(
    "question",
    [
        "How is the sourdough loaf baked, with the lid on and off?",  # "and" joins two words
        "What did I plant and harvest?",
        "How and when do I prune the plum tree?",  # "How" asks nothing alone
        "Did I cook and did I eat it?",  # a verb after "and" opens a part only after a comma
        "I baked bread and was happy?",  # English "was" is a verb
        "Which is better, bge or nomic?",
        "Summarize this, and what it says about X",  # no question mark: a request
        "What is A, and what is B, and what is C, and what is D?",  # a list of four is no question in parts
        "What is this?\nSome pasted text, and what follows?",  # a message carrying text
    ],
)
def test_a_question_asking_one_thing_has_no_parts(question: str) -> None:
    assert question_parts(question) == ()
