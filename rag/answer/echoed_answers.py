"""Echoed answers: a follow-up about something new answered with what an earlier reply said about something else.

Asked "What features does Linear have?" and then "And what about Shortcut?", the 1.5B gave Linear's feature list
again as Shortcut's, cited [[Shortcut.com#Features]]. Every word of it was in a passage (Linear's, retrieved with
the follow-up) and in the conversation, so a check of its words alone let it through. An answer that repeats an
earlier reply (ECHO_SHARE of what it says, beyond the question) while the question names what the earlier one did
not ("Shortcut") must be borne out by the passages holding that new word (the rarest such, by the bundled
vocabulary's order, rag/answer/vocabulary.py, in their text or link): HELD_SHARE of what it says must be in them.
When no passage holds it, nothing more is judged: the notes found say it in other words ("When is the race?" after
the half marathon's goal), and the answer is read as any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.answer.attribution import Passage, said_beyond, terms_of
from rag.answer.excerpts import question_stems
from rag.answer.topic_passages import passages_holding, rarest_of, topic_words

ECHO_SHARE = 0.8  # of what an answer says beyond its question, the share an earlier reply holds for it to be an echo
ECHO_MIN_TERMS = 4  # fewer terms said ("Yes, 14 hours.") may be an earlier reply's by chance
HELD_SHARE = 0.5  # of what an echo says, the share the passages on the new word must hold to bear it out


@dataclass(frozen=True, slots=True)
class EarlierTurn:
    """A question asked earlier in the conversation, and the reply shown for it."""

    question: str
    reply: str


def echoes_unborne(answer: str, question: str, passages: Sequence[Passage], turns: Sequence[EarlierTurn]) -> bool:
    """Return True when `answer` echoes an earlier reply that the passages on what `question` newly names do not hold.

    They hold it when HELD_SHARE of what it says is in their text or links: an answer written from them takes its
    words from them, while a sentence sharing one word with the question, enough for an answer of its own, is what
    an echo finds by chance ("trees" and "fungal" in a soil book's note, for another book's botanist).
    """
    said = said_beyond(answer, question)
    new_word = _new_word(question, _echoed_turns(said, turns))
    holding = passages_holding(new_word, passages) if new_word is not None else []
    if not holding:
        return False
    held = set().union(*(terms_of(f"{passage.source} {passage.text}", bare_numbers=True) for passage in holding))
    return len(said & held) < HELD_SHARE * len(said)


def may_echo(answer: str, question: str, turns: Sequence[EarlierTurn]) -> bool:
    """Return True when the start of an answer says only what an earlier reply said (its echo cannot be ruled out yet).

    Such a start is not shown early: it is judged once its opening is whole.
    """
    said = said_beyond(answer, question)
    return any(said <= terms_of(turn.reply) and _new_word(question, [turn]) is not None for turn in turns)


def _echoed_turns(said: set[str], turns: Sequence[EarlierTurn]) -> list[EarlierTurn]:
    """Return the earlier turns whose reply holds ECHO_SHARE of what an answer `said` (beyond its question)."""
    if len(said) < ECHO_MIN_TERMS:
        return []
    return [turn for turn in turns if len(said & terms_of(turn.reply)) >= ECHO_SHARE * len(said)]


def _new_word(question: str, turns: Sequence[EarlierTurn]) -> str | None:
    """Return the stem of the rarest word `question` names that none of the `turns`' questions did (None: none)."""
    if not turns:
        return None
    asked_before = frozenset().union(*(question_stems(turn.question) for turn in turns))
    new = {word: stem for word, stem in topic_words(question).items() if stem not in asked_before}
    return rarest_of(new) if new else None
