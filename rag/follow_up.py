"""Follow-up questions: "Who suggested it?" searched together with the question before it.

A chat app sends the whole conversation, but a search for "How did I rate it?" alone finds nothing about the book
the user just asked about. A question that leans on the one before it says little of its own: at most
FOLLOW_UP_MAX_TERMS words that BM25 weighs (stopwords are not weighed). Such a question is searched twice, alone and
after the earlier question, and the two lists are fused by rank, so a new topic asked in few words still finds its
own notes first. Longer questions are searched alone, as before: run after an unrelated earlier question, the fused
search cost vaultofknowledge's paraphrase set 0.903 -> 0.847 recall@6 (`docs/benchmarks.md`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.domain import Embedding, SearchHit
from rag.rrf import reciprocal_rank

FOLLOW_UP_MAX_TERMS = 3  # "And what about B-trees?" has 2, "Which tomato variety gave the biggest harvest?" 5
POINTING_MAX_TERMS = 1  # a follow-up pointing back with no more weighed words than this is searched in context only
SWITCH_MIN_TERMS = 2  # with no word pointing back, two weighed words of its own make a new topic
# Words by which a question points back at the one before it ("What time does it run?", "Were other values
# tried?", "And the poor ones?"). English only, as BM25's stopwords: "Is there a gym nearby?" points nowhere.
_POINTS_BACK = re.compile(
    r"\b(?:it|its|that|this|these|those|they|them|their|he|she|him|her|his|ones|other|others|another|else|same|"
    r"either|both|such)\b",
    re.IGNORECASE,
)

# Words picking an item of what the answer before listed: "How many layers does that one have?", "Which of them …?".
_PICKS_AN_ITEM = re.compile(
    r"\b(?:(?:which|that|this|the\s+other)\s+one|(?:each|one|any|all|some|none|which|both)\s+of\s+(?:them|those|these))\b",
    re.IGNORECASE,
)

# A person named before, by a pronoun: "What did I discuss with her last time?" after "Who is Priya?" has three weighed
# words of its own, and was refused as a new topic, while "her" can only be someone the conversation named.
_PERSON_BEFORE = re.compile(r"\b(?:she|her|hers|he|him|his)\b", re.IGNORECASE)


# The words of a message that only asks for more of the answer before it ("Tell me more", "And why?", "What else?",
# "Go on, please"): searched alone, "tell me more" found The Machine Stops, a list of advice and a tart recipe.
_ASKS_FOR_MORE = re.compile(
    r"\b(?:and|but|so|then|now|tell|give|show|me|us|more|details?|explain|elaborate|expand|continue|"
    r"go|on|keep|going|else|anything|something|why|how|what|about|that|this|it|please|further|again|can|could|"
    r"would|you|the|a|in|detail|bit)\b",
    re.IGNORECASE,
)
_SAYS_SOMETHING = re.compile(r"\w")


def is_continuation(question: str) -> bool:
    """Return True for a message that asks only for more of the answer before it ("Tell me more", "Why?")."""
    return bool(_SAYS_SOMETHING.search(question)) and not _SAYS_SOMETHING.search(_ASKS_FOR_MORE.sub(" ", question))


@dataclass(frozen=True, slots=True)
class Query:
    """What is searched for one question: its own text, and for a follow-up the earlier question with it."""

    text: str
    embedding: Embedding
    in_context: tuple[str, Embedding] | None = None  # the earlier question and this one, embedded together
    is_topic_switch: bool = False  # a follow-up whose weighed words are all its own (see `is_topic_switch`)
    # Searched in its context only: it asks only for more of the answer before ("Tell me more"), or points back at
    # the question before ("And why did I replace it?"; searched alone too, "replace" found the smoke detector note).
    only_in_context: bool = False
    # The notes the answer before it drew from (its sources): a follow-up on the same topic reads them too, searched
    # apart ("Which one was the fastest?" after the models tested were listed from "AI Models I Tested").
    answered_from: tuple[str, ...] = ()

    @property
    def earlier_notes(self) -> tuple[str, ...]:
        """Return the notes of the answer before that this question points back at (none for a new question).

        Only for a question pointing back ("Which one was the fastest?", "How much did it cost?") or asking for more:
        "And LiquidPlanner?" after Linear's features names a sibling, and the Linear note took its slots. A topic
        switch (three words of its own) reads them only when it picks an item of the answer ("How many layers does
        that one have?": alone, "layers" found the OSI model's seven); "How do I use Google Sheets for it?" after
        LiquidPlanner's Agile mapping names its own subject, and the LiquidPlanner note came before it.
        """
        if self.in_context is None:
            return ()
        if self.is_topic_switch:
            return self.answered_from if picks_an_item(self.text) else ()
        return self.answered_from if points_back(self.text) or is_continuation(self.text) else ()

    @property
    def says_nothing(self) -> bool:
        """Return True for a message that gives nothing to search for: no word ("???"), or "tell me more" first."""
        return self.in_context is None and (not _SAYS_SOMETHING.search(self.text) or is_continuation(self.text))

    @property
    def coverage(self) -> tuple[str, Embedding]:
        """Return the text (and its embedding) the relevance gate judges: a follow-up's, in its context."""
        return self.in_context or (self.text, self.embedding)

    @property
    def coverages(self) -> list[tuple[str, Embedding]]:
        """Return what the relevance gate must find covered: `coverage`, and a topic switch's own text too."""
        alone = (self.text, self.embedding)
        return [self.coverage, alone] if self.is_topic_switch and self.in_context else [self.coverage]


def is_follow_up(question: Embedding, earlier: str, *, text: str = "") -> bool:
    """Return True for a question with few weighed words after an earlier one (see the module docstring).

    A question `text` picking an item of what was said ("Which one gave the most per plant?") may have one more: BM25
    weighs the "one" naming the item. Searched alone, that question found last year's garden review first.
    """
    limit = FOLLOW_UP_MAX_TERMS + 1 if picks_an_item(text) else FOLLOW_UP_MAX_TERMS
    return bool(earlier.strip()) and len(question.terms) <= limit


def is_topic_switch(question: str, embedding: Embedding, *, earlier: Embedding) -> bool:
    """Return True for a follow-up that asks about something new, so it must be covered on its own as well.

    That is FOLLOW_UP_MAX_TERMS weighed words all new to the earlier question, or SWITCH_MIN_TERMS of them with no
    word pointing back. "What is my dentist's phone number?" after a question about a meeting is searched in its
    context like any short question, but judged there it passed the relevance gate on the meeting's words, and the
    1.5B answered with a list of links; "What's the capital of Australia?" did the same. Asked alone, both are
    refused at once. "What time does it run?" (two new words, and "it") is judged in its context only.
    """
    words = set(embedding.terms)
    asked = set(earlier.sparse.indices)
    own = {term for term in words if not embedding.has_word(term, asked)}  # "colour" after "color" is no new word
    if len(own) >= FOLLOW_UP_MAX_TERMS:
        return True
    return len(own) >= SWITCH_MIN_TERMS and own == words and not points_back(question)


def leans_on_context(question: str, embedding: Embedding) -> bool:
    """Return True for a message searched only after the question before it: nothing to search for on its own.

    That is one asking only for more ("Tell me more"), or one pointing back with at most POINTING_MAX_TERMS weighed
    words of its own ("And why did I replace it?": searched alone too, "replace" brought the smoke detector note);
    "How does it work in Python?" says what it is about and is searched alone too. So is one naming a person by "she",
    "her", "him" … in at most FOLLOW_UP_MAX_TERMS weighed words, whose person only the conversation names: "What did I
    discuss with her last time?" after "Who is Priya?" was refused as a new topic (three words of its own), and
    searched alone it found a novel's botanist and a race plan.
    """
    if is_continuation(question):
        return True
    if _PERSON_BEFORE.search(question):
        return len(embedding.terms) <= FOLLOW_UP_MAX_TERMS
    return points_back(question) and len(embedding.terms) <= POINTING_MAX_TERMS


def picks_an_item(question: str) -> bool:
    """Return True when a question asks about an item of what was said before ("Which one …?", "that one")."""
    return bool(_PICKS_AN_ITEM.search(question))


def points_back(question: str) -> bool:
    """Return True when a question names what it asks about by a word pointing back ("it", "that", "other" ...).

    Picking an item of what was said points back too: "Which one was the fastest?" after a list.
    """
    return bool(_POINTS_BACK.search(question)) or picks_an_item(question)


MAX_CHAIN = 6  # questions a follow-up's context reaches back over, to the last that says what it is about
CHAIN_WORDS = 8  # a question pointing back in more words than this says what it is about itself


def context_before(questions: Sequence[str]) -> str:
    """Return what a follow-up of the latest of `questions` leans on: it, and the ones it follows, one a line.

    While a question is itself a follow-up ("Tell me more", "And why did I replace it?"), the one before it is
    taken too, oldest first, back to one that says what it is about (at most MAX_CHAIN). "Tell me more" after "And
    why did I replace it?", searched with the latter alone, found nothing about the bike chain two questions back.
    """
    chain: list[str] = []
    for question in reversed(questions[-MAX_CHAIN:]):
        chain.insert(0, question.strip())
        leans_back = is_continuation(question) or (points_back(question) and len(question.split()) <= CHAIN_WORDS)
        if not leans_back:
            break
    return "\n".join(chain)


def with_earlier(question: str, earlier: str) -> str:
    """Return the text searched for a follow-up: the earlier question, then this one."""
    return f"{earlier.strip()}\n{question.strip()}"


def in_context(question: str, earlier: str) -> str:
    """Return `question` as read after the questions it follows (`with_earlier`), or alone when there are none."""
    return with_earlier(question, earlier) if earlier.strip() else question


def fuse_by_rank(lists: Sequence[Sequence[SearchHit]], *, rrf_k: int, weights: Sequence[float] = ()) -> list[SearchHit]:
    """Return the hits of `lists` fused by rank as the store fuses them, each chunk once (the first list wins ties).

    `weights`: one per list (missing ones 1), as Qdrant weighs its prefetches: a list weighted 2 places its
    second hit beside another's first.
    """
    scores: dict[tuple[str, int], float] = {}
    first: dict[tuple[str, int], SearchHit] = {}
    for number, hits in enumerate(lists):
        weight = weights[number] if number < len(weights) else 1.0
        for rank, hit in enumerate(hits, start=1):
            key = (hit.chunk.path, hit.chunk.index)
            scores[key] = scores.get(key, 0.0) + reciprocal_rank(rank, k=rrf_k, weight=weight)
            first.setdefault(key, hit)
    order = sorted(scores, key=lambda key: -scores[key])  # stable: ties keep the order they were first seen in
    return [replace(first[key], score=scores[key]) for key in order]
