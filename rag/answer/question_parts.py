"""The parts of a question asking two or three things at once: "How long does it rest, and at what temperature?".

Most questions people put to their notes ask more than one thing, and a small model answers one of them:
Qwen2.5-Coder 0.5B answered "What finish time am I aiming for …, and on which date is the race?" with "1:49:00",
and "Which constant k …, and which other values were tried?" with "k = 60". Told the parts one by one after the
question (agent/prompts.py), it stated more of the facts asked for (docs/benchmarks.md). Code splits the question
where "and" opens a new question: a question word ("…, and why not nomic?"), a preposition before one ("…, and at
what temperature?"), or, after a comma, a verb opening a yes-or-no part ("…, and did it help?"). "Salt and pepper",
"How and when …?", "What did I plant and harvest?" are one question.
"""

from __future__ import annotations

import re

MAX_PARTS = 3  # "A, B, and C?" asks three things; a longer list is a list, not parts
MIN_PART_WORDS = 2  # "How and when do I prune?": "How" asks nothing alone
MAX_QUESTION_CHARS = 300  # a longer message carries text of its own; it is not a question in parts

_QUESTION_WORD = (
    r"(?:what|which|who|whom|whose|when|where|why|how"
    r"|welche[rsnm]?|wer|wen|wem|wessen|wann|wo|wohin|woher|warum|weshalb|wieso|wie)\b"
)
_PREPOSITION = r"(?:at|on|in|for|of|with|from|to|by|since|until|an|auf|für|mit|von|bis|seit)\s+"
# A verb opening a yes-or-no part, only after a comma: "…, and did it help?" (not "Did I cook and eat it?").
_YES_OR_NO_VERB = (
    r"(?:is|are|was|were|do|does|did|can|could|will|would|has|have|had"
    r"|ist|sind|war|waren|hat|hatte|habe|kann|wird|gibt)\b"
)
_JOINT = re.compile(
    rf",\s*(?:and|und)\s+(?=(?:{_PREPOSITION})?{_QUESTION_WORD}|{_YES_OR_NO_VERB})"
    rf"|\s+(?:and|und)\s+(?={_QUESTION_WORD})|\s+und\s+(?=was\b)",  # German "was" is "what", English "was" a verb
    re.IGNORECASE,
)
_END = "?!. \t"


def question_parts(question: str) -> tuple[str, ...]:
    """Return the questions `question` asks, each ending in "?" and capitalised, or () when it asks one thing.

    Only a one-line question: a follow-up read in context, or a message carrying text, is not split.
    """
    text = question.strip()
    if "\n" in text or len(text) > MAX_QUESTION_CHARS or not text.endswith("?"):
        return ()
    parts = [part.strip(_END) for part in _JOINT.split(text.rstrip(_END))]
    if not 2 <= len(parts) <= MAX_PARTS or any(len(part.split()) < MIN_PART_WORDS for part in parts):
        return ()
    return tuple(f"{part[0].upper()}{part[1:]}?" for part in parts)


# A numbered line opening an answer's part: "1. …", "2) …" (at a line's start, not indented: "   1." is within a part).
PART_NUMBER = re.compile(r"^(?:\*\*)?\d[.)]\s", re.MULTILINE)


def part_answers(answer: str, parts: int) -> list[str]:
    """Return the answer to each of `parts` parts when `answer` numbers them so ("1. …", "2. …"), else [].

    What comes before the first number ("Here are the answers:") goes with the first part. A list of another length
    is no answer in parts (the ingredients listed one by one). The last part may still be being written.
    """
    starts = [match.start() for match in PART_NUMBER.finditer(answer)]
    if len(starts) != parts or parts < 2:
        return []
    ends = [*starts[1:], len(answer)]
    return [answer[: ends[0]], *(answer[start:end] for start, end in zip(starts[1:], ends[1:], strict=True))]


# What opens a part asking for a thing: its question word, with a preposition before it and "how"'s word after it
# ("When", "At what", "How long").
_ASKING_OPENING = re.compile(
    rf"^\W*(?:{_PREPOSITION})?{_QUESTION_WORD}(?:\s+(?:much|many|long|often|far|viel|viele|lange|oft)\b)?\s*",
    re.IGNORECASE,
)


def with_subject(part: str, parts: tuple[str, ...]) -> str:
    """Return `part` with what the question's other parts are about after it, their question words left out.

    "Did it help?" of "When did I stop having coffee in the day to sleep better, and did it help?" reads "did I stop
    having coffee in the day to sleep better" then, on the last line, "Did it help?", as a follow-up is read in its
    context (rag/follow_up.in_context): the pronoun's subject, which the part alone does not name, and no question
    word, so a bare "Yes" to it is judged by what the notes say about that subject.
    """
    others = [_ASKING_OPENING.sub("", other, count=1).strip(_END) for other in parts if other != part]
    return "\n".join([*(other for other in others if other), part])


# A sentence this long given as the answer to two parts answers neither: the 0.5B's "1. The allotment committee
# requires before building raised beds 0.4 m from the boundary with plot 46; the rule is 0.5 m. …" and the same
# again as "2.", for what the committee requires and how high the beds may be (a copied sentence about the compost
# bays, borne out word for word). Two short answers may be the same rightly: "1. Alice 2. Alice".
MIN_REPEATED_CHARS = 40
_FIRST_SENTENCE = re.compile(r"^.*?(?:[.!?](?=\s|$)|\n|$)", re.DOTALL)


def repeated_parts(answers: list[str]) -> set[int]:
    """Return the indexes of the part answers (`part_answers`) that open with the same long sentence as another.

    Compared by first sentence, case and spacing aside: the last part may still be being written.
    """
    openings = [_opening(answer) for answer in answers]
    return {
        index
        for index, opening in enumerate(openings)
        if len(opening) >= MIN_REPEATED_CHARS and openings.count(opening) > 1
    }


def _opening(answer: str) -> str:
    """Return the first sentence of a part's answer without its number, folded for comparison."""
    statement = PART_NUMBER.sub("", answer.strip(), count=1).strip()
    found = _FIRST_SENTENCE.match(statement)
    return " ".join((found.group() if found else statement).split()).casefold()
