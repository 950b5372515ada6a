"""An answer that says nothing beyond the question but links notes it read: when such a link answers it.

Small models often answer with a link alone ("[[Blade Runner]] [[Futurama]]"); the answer check
(rag/answer/evidence.is_borne_out) passes such an answer only where a note's name can be what was asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import Passage, terms_of
from rag.answer.citations import note_of
from rag.answer.excerpts import stem
from rag.answer.question_kind import asks_for_amount, asks_for_value, kind_asked
from rag.notes.inline import WIKILINK, parse_wikilink

# A question asking for notes themselves, which a link to one answers: "Which notes mention garlic?"
_NOTES = re.compile(r"\b(?:notes?|notiz(?:en)?)\b", re.IGNORECASE)


def links_passages_read(answer: str, passages: Sequence[Passage], *, question: str) -> bool:
    """Return True when `answer` links a note it read (a passage's): an answer saying nothing more points at it.

    The 1.5B answered "Which sci-fi movies and shows are in my notes?" with "[[Blade Runner]] [[Futurama]]", two
    notes among its passages; the links themselves are checked as every citation is. A link whose note's name is
    only the question's words names nothing, unless notes are what was asked for ("Where are my notes on
    garlic?" "[[Garlic]]"): the 0.5B answered "What is Steph Ango's phone number?", which no note gives, with
    "[[Steph Ango]]". No link answers a question asking for an amount or a time (`asks_for_amount`), or for an
    address, a password, a port or a version (`asks_for_value`), nor one
    asking which kind of thing (`kind_asked`: "Which hotel did I stay at in Kyoto?") with a note whose passages do
    not name that kind: the 1.5B's "I stayed at [[Kyoto#Trips]] on [[2023 Japan Trip]]", a trip note with dates and
    places; "[[Out of Control]]" answers "Which book by Kevin Kelly …?", its properties saying "[[Books]]".
    """
    if asks_for_amount(question) or asks_for_value(question):
        return False
    read: dict[str, str] = {}  # a note read -> its passages' text and links, lower case
    for passage in passages:
        if passage.source:
            note = note_of(passage.source).casefold()
            read[note] = f"{read.get(note, '')} {passage.source} {passage.text}".casefold()
    asked = terms_of(question)
    asks_for_notes = bool(_NOTES.search(question))
    kind = kind_asked(question)
    return any(
        note.casefold() in read
        and (asks_for_notes or bool(terms_of(note.rsplit("/", 1)[-1]) - asked))
        and (asks_for_notes or not kind or kind in read[note.casefold()] or stem(kind) in read[note.casefold()])
        for note in (note_of(match[2]) for match in WIKILINK.finditer(answer))
    )


def unread_links_as_text(answer: str, passages: Sequence[Passage]) -> str:
    """Return `answer` with its links to notes it read none of written as their text ("[[kepano]]" -> "kepano").

    A small model sets a value in link brackets: asked Steph Ango's Twitter handle, the 0.5B answered "[[kepano]]"
    over the note's "twitter: kepano". As a link it says nothing to check, and the reply shows it unlinked (a link to
    no note is not kept), so it is judged as the words it shows. A link to a note read stays a link.
    """
    read = {note_of(passage.source).casefold() for passage in passages if passage.source}

    def text_of(match: re.Match[str]) -> str:
        if match[1] or note_of(f"[[{match[2]}]]").casefold() in read:  # an embed, or a note read
            return match[0]
        link = parse_wikilink(match[2], is_embed=False, line=0)
        if link is None:  # an editor query, no link
            return match[0]
        return link.alias or link.target or match[2].lstrip("#")  # "[[#Heading]]": its heading

    return WIKILINK.sub(text_of, answer)
