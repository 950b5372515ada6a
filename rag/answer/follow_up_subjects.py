"""Follow-ups naming something new, answered with what was said, or what the notes say, about something else.

Asked "What features does Linear have?" and then "And what about Shortcut?", the 1.5B gave Linear's feature list
again as Shortcut's, cited [[Shortcut.com#Features]]. Every word of it was in a passage (Linear's, retrieved with
the follow-up) and in the conversation, so a check of its words alone let it through. Over sample_vault it gave the
chili oil's ingredients for "And in the red lentil dal?", and, asked again without the conversation, the
sourdough's steps for "And how do I make Käsespätzle?".

So an answer to a follow-up must be borne out by the passages holding what the follow-up newly names (the rarest
such word, by the bundled vocabulary's order, rag/answer/vocabulary.py, in their text or link): HELD_SHARE of what it
says must be in them, when
- it repeats an earlier reply (ECHO_SHARE of what it says, beyond the question) while the follow-up names a word
  the earlier question did not ("Shortcut", "dal"), or
- the follow-up names a name none of the earlier questions did ("Käsespätzle", "Teaming with Microbes": written
  capitalised inside it), whatever the answer repeats.
When no passage holds the new word, nothing more is judged: the notes found say it in other words ("When is the
race?" after the half marathon's goal), and the answer is read as any other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.answer.attribution import Passage, said_beyond, terms_of
from rag.answer.excerpts import question_stems
from rag.answer.near_copy import names_in
from rag.answer.topic_passages import passages_holding, rarest_of, topic_words

# Pronouns standing for the subject asked of before (not "that", "this": "that recipe" may name another).
_SAME_SUBJECT = re.compile(r"\b(?:it|its|they|them|their|he|she|him|her|his)\b", re.IGNORECASE)
ECHO_SHARE = 0.8  # of what an answer says beyond its question, the share an earlier reply holds for it to be an echo
MIN_TERMS = 4  # fewer terms said ("Yes, 14 hours.") may be an earlier reply's, or a sentence's, by chance
HELD_SHARE = 0.5  # of what the answer says, the share the passages on the new word must hold to bear it out


@dataclass(frozen=True, slots=True)
class EarlierTurn:
    """A question asked earlier in the conversation, and the reply shown for it."""

    question: str
    reply: str


def answers_elsewhere(answer: str, question: str, passages: Sequence[Passage], turns: Sequence[EarlierTurn]) -> bool:
    """Return True when `answer` to a follow-up naming something new is not borne out by the passages about it.

    Also when it says an earlier reply again for a name no passage holds. They bear it out when HELD_SHARE of what
    it says is in their text or links: an answer written from them takes its words from them, while a sentence
    sharing one word with the question, enough for an answer of its own, is what an echo finds by chance ("trees"
    and "fungal" in a soil book's note, for another book's botanist).
    """
    said = said_beyond(answer, question)
    if len(said) < MIN_TERMS:
        return False
    echoed = [turn for turn in turns if len(said & terms_of(turn.reply)) >= ECHO_SHARE * len(said)]
    same_subject = asks_of_same_subject(question)
    new_word = (
        _new_word(question, echoed, names_only=same_subject) if echoed else _new_word(question, turns, names_only=True)
    )
    holding = passages_holding(new_word, passages) if new_word is not None else []
    if not holding:
        # An earlier reply said again for a name no passage holds is about something else: over obsidian-tasks-demo
        # the 0.5B answered "Which of them mention Priya?" with the list before it. A word in lower case may be put
        # otherwise in the notes, or ask for the reply again ("Can you repeat that?"): such an answer stands.
        return bool(echoed) and _new_word(question, echoed, names_only=True) is not None

    held = set().union(*(terms_of(f"{passage.source} {passage.text}", bare_numbers=True) for passage in holding))
    return len(said & held) < HELD_SHARE * len(said)


def may_answer_elsewhere(answer: str, question: str, turns: Sequence[EarlierTurn]) -> bool:
    """Return True when the start of an answer cannot be shown early: it may yet turn out `answers_elsewhere`.

    That is when the follow-up names a name the earlier questions did not, or the start says only what an earlier
    reply said while the follow-up names something new; it is judged once its opening is whole.
    """
    if _new_word(question, turns, names_only=True) is not None:
        return True
    said = said_beyond(answer, question)
    same_subject = asks_of_same_subject(question)
    return any(
        said <= terms_of(turn.reply) and _new_word(question, [turn], names_only=same_subject) is not None
        for turn in turns
    )


def asks_of_same_subject(question: str) -> bool:
    """Return True when `question` names its subject by a pronoun: "Who directed it?", "When was she born?".

    Its new words in lower case are what it asks of that subject, not another subject: after "What properties does
    Blade Runner have?", the 0.5B's "Ridley Scott directed Blade Runner." said again the listed `director`, and was
    withheld as about something else ("directed" is in no passage but one with "directly" in it). A new name still
    makes it about something else ("Does he link to Priya?").
    """
    return _SAME_SUBJECT.search(question) is not None


def _new_word(question: str, turns: Sequence[EarlierTurn], *, names_only: bool = False) -> str | None:
    """Return the stem of the rarest word `question` names that none of the `turns`' questions did (None: none).

    `names_only`: only a word the question writes as a name (capitalised inside it).
    """
    if not turns:
        return None
    asked_before = frozenset().union(*(question_stems(turn.question) for turn in turns))
    names = names_in([question]) if names_only else None
    new = {
        word: stem
        for word, stem in topic_words(question).items()
        if stem not in asked_before and (names is None or word in names)
    }
    return rarest_of(new) if new else None
