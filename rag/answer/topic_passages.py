"""Whether an answer to a request about a topic ("Summarize my notes on X") draws on a passage about that topic.

A question about a topic has no single fact whose absence makes it a near miss, so the model is told to refuse
only when no note is about it (agent/prompts.TOPIC_ADVICE). Told so, the 1.5B summarised a FreeCAD note's
"cMake includes local modules" as "the notes on writing Terraform modules": every word of it copied, and so borne
out by a check of its sentences alone. An answer to such a request must also say something that a passage about
the topic holds: one whose text or link holds most of the topic's words (two thirds of them, by stem; both of two)
and its rarest word (rag/answer/vocabulary.py): "terraform", not "writing" and "modules", which the FreeCAD note
has. It may draw on other passages too: "Summarize my notes on Obsidian alternatives" was answered from the note
of that name and a list of "other apps" in another.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rag.answer.attribution import Passage, said_beyond, terms_of
from rag.answer.citations import heading_in, is_note_title, note_of
from rag.answer.context import opens_like_refusal
from rag.answer.dates import dates_in
from rag.answer.days_named import DAY_WORDS, latest_entry_as_day
from rag.answer.excerpts import question_stems, stem
from rag.answer.question_kind import asks_about_topic, topic_of
from rag.answer.quote_words import WORDS, normalised
from rag.answer.vocabulary import rarity

# Words of a request that say where to look, not what about: "my notes on X", "what I have on X".
_NOT_TOPIC = frozenset(stem(word) for word in ("note", "notes", "have", "written", "wrote", "what", "vault"))


def topic_words(topic: str) -> dict[str, str]:
    """Return the words of `topic` ("my notes on Obsidian alternatives") that say what it is, each with its stem.

    Words naming days are none of them: "What did I write on 13 November?" asks of a day's notes (agent/day_notes.py),
    whose passages hold the day in their link ("[[2026-11-13#Log]]"), and another day's heading "5 November" is
    not about it.
    """
    _, undated = dates_in(topic)  # "on 2026-11-10" names a day, not a topic "2026"
    words = (word.casefold() for word in WORDS.findall(undated))
    return {
        word: stem(word) for word in words if word not in DAY_WORDS and stem(word) in question_stems(word) - _NOT_TOPIC
    }


def asks_about_days_alone(question: str) -> bool:
    """Return True for a request about what the notes of some days say, naming no topic besides them.

    "What did I do on 2026-11-16?", "What happened yesterday?", "Summarize last week.": the days' notes are the
    answer's whole ground (agent/day_notes.py); "Tell me about planting garlic today." names a topic too. "My last
    daily entry" names a day (the latest with a note).
    """
    question = latest_entry_as_day(question)
    return asks_about_topic(question) and not topic_words(topic_of(question))


def passages_about(question: str, passages: Sequence[Passage]) -> list[Passage]:
    """Return the passages about the topic `question` asks about (all of them for any other question)."""
    return passages_on(topic_of(question), passages)


def passages_on(topic: str, passages: Sequence[Passage]) -> list[Passage]:
    """Return the passages on `topic`: their text and link hold its rarest word and most of its words.

    A topic of no such words keeps every passage.
    """
    return _on(topic_words(topic), passages)


def draws_on_topic(answer: str, question: str, passages: Sequence[Passage]) -> bool:
    """Return True when `answer` says something beyond `question` that a passage about its topic holds.

    A refusal does, and so does an answer saying nothing beyond the question (others judge whether it answers), or
    any answer when no passage holds the topic's rarest word: the notes found say it in other words ("trainers"
    for "running shoes"), and which of them are about it is no longer a matter of words.
    """
    if opens_like_refusal(answer):
        return True
    words = topic_words(topic_of(question))
    if words and not any(rarest_of(words) in _stems(passage) for passage in passages):
        return True  # the notes found put the topic in other words: no passage can be told to be about it
    return draws_on(answer, question, _on(words, passages))


def draws_on(answer: str, question: str, passages: Sequence[Passage]) -> bool:
    """Return True when `answer` refuses, says nothing beyond `question`, or says something one of `passages` holds.

    False when there are no `passages`: the answer was to draw on them (a topic's, a day's notes').
    """
    if opens_like_refusal(answer):
        return True
    said = said_beyond(answer, question)
    return bool(passages) and (not said or any(said & terms_of(f"{p.source} {p.text}") for p in passages))


def _on(words: dict[str, str], passages: Sequence[Passage]) -> list[Passage]:
    """Return the passages holding the rarest of the topic's `words` and two thirds of them (all, for no words)."""
    if not words:
        return list(passages)
    wanted = frozenset(words.values())
    rarest = rarest_of(words)
    needed = math.ceil(len(wanted) * 2 / 3)
    return [passage for passage in passages if rarest in (held := _stems(passage)) and len(wanted & held) >= needed]


def rarest_of(words: dict[str, str]) -> str:
    """Return the stem of the rarest of `words` (each word with its stem; rag/answer/vocabulary.rarity)."""
    return words[max(words, key=rarity)]


def passages_holding(word_stem: str, passages: Sequence[Passage]) -> list[Passage]:
    """Return the passages whose text or link holds a word of stem `word_stem`, or whose note's opening does.

    "Kleppmann" stands in his book note's first lines, not in its section on storage engines; a note naming the word
    further down ("Read a few weeks after [[Teaming with Microbes]]") is not about it for that.
    """
    holding = [passage for passage in passages if word_stem in _stems(passage)]
    opened = {note_of(passage.source) for passage in holding if _opens_note(passage.source)}
    return [passage for passage in passages if passage in holding or note_of(passage.source) in opened]


def _opens_note(source: str) -> bool:
    """Return True for the link of a note's opening passage: the note itself, or its title's heading."""
    heading = heading_in(source)
    return not heading or is_note_title(heading, note_of(source))


def _stems(passage: Passage) -> frozenset[str]:
    text = normalised(f"{passage.source} {passage.text}").casefold()
    return frozenset(stem(word) for word in WORDS.findall(text))
