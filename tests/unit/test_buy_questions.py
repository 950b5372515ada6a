"""Which questions ask what there is to buy, and for what (rag/answer/buy_questions.py)."""

from __future__ import annotations

import pytest

from rag.answer.buy_questions import buying_asked


@pytest.mark.parametrize(
    ("question", "purpose"),
    [
        ("What do I need to buy?", ""),
        ("What should we order?", ""),
        ("What do I still have to get from the shop?", ""),
        ("What's on my shopping list?", ""),
        ("Show me my grocery list", ""),
        ("What is left to buy?", ""),
        ("What do I need to buy for the garden?", "the garden"),
    ],
)
def test_a_question_asking_what_to_buy_is_read_with_what_it_is_for(question: str, purpose: str) -> None:
    assert buying_asked(question) == purpose


@pytest.mark.parametrize(
    "question",
    [
        "What did I buy last week?",  # what was bought: the notes' words
        "Where do I buy seeds?",
        "Should I buy a new chain?",
        "What order do the beds rotate in?",
        "What do I still have to pick up?",  # the kids, a parcel: no purchase
    ],
)
def test_other_questions_ask_for_no_list_to_buy(question: str) -> None:
    assert buying_asked(question) is None
