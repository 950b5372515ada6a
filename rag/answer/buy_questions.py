"""Questions asking what there is to buy: "What do I need to buy?", "What's on my shopping list?".

What is to buy is kept as open tasks ("- [ ] Buy straw for the garlic mulch", "- [ ] Order seed potatoes 📅
2027-02-01") or under a heading saying so ("## To buy for 2027"), across daily notes and project notes alike; no
passage holds them all (sample_vault: the 0.5B answered "What do I need to buy?" with "To buy three 9 V batteries at
once.", one of five). Such a question is read here; the tasks are found by code (agent/tools/buy_lists.py).
"""

from __future__ import annotations

import re

MAX_QUESTION_CHARS = 200  # a question of what to buy is short; a pasted page is not read as one
_TO_BUY = re.compile(
    r"^\W*(?:(?:so|and|ok(?:ay)?|please)[,\s]+)*(?:"
    # "What do I need to buy?", "What should we order?", "What do I still have to get from the shop?"
    r"what\s+(?:do|should|must)\s+(?:i|we)\s+(?:still\s+)?(?:need\s+to\s+|have\s+to\s+)?(?:buy|order|purchase"
    r"|get\s+(?:from|at)\s+the\s+(?:shop|store|supermarket))"
    # "What's on my shopping list?", "Show me my grocery list"
    r"|what(?:'s|\s+is)\s+on\s+(?:my|our|the)\s+(?:shopping|grocery|groceries)\s+list"
    r"|(?:show|list|give)\s+(?:me\s+)?(?:my|our|the)\s+(?:shopping|grocery)\s+list"
    # "What is left to buy?", "What is there to buy?"
    r"|what(?:'s|\s+is)\s+(?:there|left|still)\s+to\s+buy"
    r")(?:\s+for\s+(?P<purpose>[^?.!]+?))?\s*[?.!]*\s*$",
    re.IGNORECASE,
)


def buying_asked(question: str) -> str | None:
    """Return what the buying is for, as written ("for the garden": "garden"; "" for nothing named).

    None when `question` does not ask what there is to buy.
    """
    found = _TO_BUY.match(" ".join(question.split())[:MAX_QUESTION_CHARS])
    if found is None:
        return None
    return (found["purpose"] or "").strip()


# A follow-up asking the same for something else: "And for the garden?", "What about for the kitchen?".
_FOR_ANOTHER = re.compile(
    r"^\W*(?:and|what\s+about|how\s+about)\s+for\s+(?P<purpose>[^?.!]{1,60}?)\s*[?.!]*\s*$", re.IGNORECASE
)


def purpose_after(question: str, before: str) -> str | None:
    """Return what a follow-up asks to buy for ("And for the garden?": "the garden"), after `before` asked what to buy.

    None when `before` asked something else, or the follow-up names no purpose.
    """
    if buying_asked(before) is None:
        return None
    found = _FOR_ANOTHER.match(" ".join(question.split())[:MAX_QUESTION_CHARS])
    return found["purpose"].strip() if found else None
