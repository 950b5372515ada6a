"""A count answering "how many X" that the notes give only as a count of other things.

Asked "How many folders does the reminder filing system with one folder per day and one per month need?" over
vaultofknowledge, Qwen2.5-Coder 0.5B answered "10", read from "Folders (10 Categories)" and "10 Category Lists" of
another section, where the first passage it read says "Tickler List: 43 folders (31+12)". A bare number has no unit,
so the rival test (rag/answer/rival_figures.py) does not see it, and the word test passes it (the notes hold a 10).

The test is narrow: it judges only an answer to a question asking how many of a thing, only a number the passages
give (a number no passage gives gets the unread-number caution instead), and only when every time they give it,
one of the two words after it names another thing ("10 Categories", not "10 of them" nor a table's bare "10"),
while some passage counts the thing asked ("43 folders"): those sentences are the rivals shown under the refusal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import NOT_UNITS, Passage
from rag.answer.excerpts import sentences_of, stem
from rag.answer.rival_figures import Rival

_HOW_MANY = re.compile(r"\b(?:how many|wie viele)\s+(?P<words>[^?.!,;]*)", re.IGNORECASE)
# A number and the two words after it; "10^6", "2:144" or "1.1B" are no count of anything here.
# The two words are of the number's own phrase: "(10 Categories) > Folders" counts no folders.
_COUNT = re.compile(r"(?<![\w.,^:])(?P<number>\d+(?:[.,]\d+)?)(?![\w^:]|[.,]\d)(?P<after>(?:[ \t-]+[^\W\d_]+){0,2})")
_WORD = re.compile(r"[^\W\d_]+")
COUNTED_WORDS = 2  # of the question's after "how many", naming what is counted ("TENS sessions", "folders")
_NOT_COUNTED = frozenset(
    ("did", "does", "do", "have", "has", "had", "are", "were", "was", "will", "would", "can", "could", "should",
     "you", "they", "there", "hab", "habe", "hat", "sind", "waren", "ich", "wir")
) | NOT_UNITS  # fmt: skip
MAX_RIVALS = 3


def counted_elsewhere(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the passages' counts of what `question` asks how many of, where `answer` gives a count of another thing.

    [] when the question asks no "how many", when no passage counts the thing asked, or when a number of the answer
    (not the question's) is given by the passages as a count of it, or bare, or not at all.
    """
    asked = _counted(question)
    if not asked:
        return []
    counts = [
        (passage, sentence, match["number"], _stems(match["after"]))
        for passage in passages
        for sentence in sentences_of(passage.text)
        for match in _COUNT.finditer(sentence)
    ]
    in_question = {match["number"] for match in _COUNT.finditer(question)}
    given = [match["number"] for match in _COUNT.finditer(answer) if match["number"] not in in_question]
    wrong = set()
    for number in given:
        afters = [after for _, _, value, after in counts if value == number]
        if not afters or any(not after or after & asked for after in afters):
            return []  # given as a count of the thing asked, or bare, or nowhere: not this test's to judge
        wrong.add(number)
    rivals = [
        Rival(value, sentence.strip(), passage.source)
        for passage, sentence, value, after in counts
        if after & asked and value not in wrong
    ]
    return list(dict.fromkeys(rivals))[:MAX_RIVALS] if wrong else []


def _counted(question: str) -> frozenset[str]:
    """Return the stems of the words naming what `question` asks how many of ("folders" -> "folder")."""
    match = _HOW_MANY.search(question)
    if not match:
        return frozenset()
    words = [word.casefold() for word in _WORD.findall(match["words"])]
    named = [word for word in words[:COUNTED_WORDS] if word not in _NOT_COUNTED and len(word) >= 3]
    return frozenset(form for word in named for form in _forms(word))


def _stems(after: str) -> frozenset[str]:
    """Return the stems of the words after a number that may say what it counts (none of "of", "and" …)."""
    words = [word.casefold() for word in _WORD.findall(after)]
    if not words or words[0] in NOT_UNITS:
        return frozenset()  # "10 of them": may count anything
    return frozenset(form for word in words for form in _forms(word))


def _forms(word: str) -> set[str]:
    """Return the stems `word` may be counted by, singular and plural: "cats" and "cat", "boxes" and "box".

    A count of one is written in the singular ("1 cat") where the question asks in the plural ("How many cats").
    """
    forms = {stem(word)}
    if word.endswith("s") and len(word) > 3:
        forms.add(stem(word[:-1]))
    if word.endswith("es") and len(word) > 4:
        forms.add(stem(word[:-2]))
    return forms
