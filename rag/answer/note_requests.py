"""Requests about one note as a whole: "Summarize the ACME note", "What is [[Dune]] about?", "What's in Inbox Ideas?".

Asked "What is the ACME note about?" over obsidian-tasks-demo, the 0.5B answered "The ACME note about is [[ACME#Model
test]]."; asked "Summarize the Important Project note" after it, it answered with ACME again, from its own reply
before. Which note is meant is no judgment: the name is read here, the note found by the agent (agent/named_note.py)
by its title or alias, and that note's passages are what the model reads; it must draw on them, and its refusal of a
note that is there is no answer (code quotes the note instead).

Only the name a request writes whole counts, where a note's name stands: after "summarize", "what's in", "tell me
about" (then with "note" after it), between "what is" and "about", "what does" and "say". The agent takes it only when
a note has exactly that title or alias, or it is a [[link]]: "Summarize my notes on sourdough" names no note, and is a
request about a topic (rag/answer/topic_passages.py).
"""

from __future__ import annotations

import re

from rag.notes.inline import WIKILINK, parse_wikilink

_OPENING = r"^\W*(?:(?:please|so|ok(?:ay)?|and|now)[,\s]+)*(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?"
_OWNER = r"(?:(?:the|my|our|this|that)\s+)?"
_NAME = r"(?P<name>[^?!\n]+?)"
_KIND = r"(?P<kind>\s+(?:note|page|file|notiz|seite))"
_END = r"\s*[.?!]*\s*$"
_REQUESTS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "Summarize the ACME note", "Give me a summary of [[Dune]]", "Sum up Inbox Ideas."
        rf"{_OPENING}(?:summari[sz]e|sum\s+up|recap|give\s+me\s+(?:a\s+)?(?:short\s+|quick\s+|brief\s+)?"
        rf"(?:summary|overview|recap|rundown)\s+of)\s+{_OWNER}{_NAME}{_KIND}?{_END}",
        # "What's in the Important Project note?", "What is in [[ACME]]?"
        rf"{_OPENING}what(?:'s|\s+is|\s+are)?\s+(?:in|inside)\s+{_OWNER}{_NAME}{_KIND}?{_END}",
        # "What is the ACME note about?", "What's [[Dune]] about?"
        rf"{_OPENING}what(?:'s|\s+is)\s+{_OWNER}{_NAME}{_KIND}?\s+(?:all\s+)?about{_END}",
        # "What does the ACME note say?", "What does [[Dune]] contain?"
        rf"{_OPENING}what\s+does\s+{_OWNER}{_NAME}{_KIND}?\s+(?:say|contain|hold|cover){_END}",
        # "Tell me about the ACME note" (the word "note" needed: "Tell me about sourdough" asks about a topic)
        rf"{_OPENING}(?:tell\s+me\s+about|describe)\s+{_OWNER}{_NAME}{_KIND}{_END}",
        # "Fasse die Notiz ACME zusammen", "Was steht in der Notiz ACME?"
        rf"{_OPENING}fasse\s+(?:(?:die|meine)\s+(?:notiz|seite)\s+)?{_NAME}\s+zusammen{_END}",
        rf"{_OPENING}was\s+steht\s+(?:in|im)\s+(?:(?:der|meiner)\s+(?:notiz|seite)\s+)?{_NAME}{_END}",
    )
)
_QUOTES = "\"'“”‘’«»„"


def note_asked(question: str) -> str | None:
    """Return the name of the one note `question` asks about as a whole, as written (a link: its target), or None.

    The agent decides whether a note has that name; here only the words of the request are read.
    """
    asked = _asked(question)
    return asked[0] if asked else None


# Words after a note's name saying what kind of thing it is about: "What is the ACME project about?" asks about the
# note ACME (obsidian-tasks-demo), which the 0.5B answered from the Important Project note's task.
_THING_KINDS = frozenset(
    ("project", "book", "recipe", "meeting", "trip", "plan", "list", "article", "document", "doc", "idea", "topic")
    + ("projekt", "buch", "rezept", "liste", "idee")
)


def names_asked(question: str) -> list[str]:
    """Return the names `note_asked` reads, then that name without a last word saying what kind of thing it is.

    "What is the ACME project about?" names "ACME project", then "ACME": the agent takes the first a note has.
    """
    name = note_asked(question)
    if name is None:
        return []
    *first, last = name.split()
    return [name, " ".join(first)] if first and last.casefold() in _THING_KINDS else [name]


def note_asked_by_name(question: str) -> str | None:
    """Return the name `note_asked` reads when the request says it is a note's ("the X note", "[[X]]"), else None.

    Such a name no note has is said so ("Summarize the Old idea note": the 0.5B summarised the Ideas note instead);
    "Summarize my notes on composting" says no note's name.
    """
    asked = _asked(question)
    return asked[0] if asked and asked[1] else None


def _asked(question: str) -> tuple[str, bool] | None:
    """Return the name a request writes and whether it says it is a note's (the word "note" after it, or a link)."""
    for request in _REQUESTS:
        if (found := request.match(question.strip())) is not None:
            name = found["name"].strip().strip(_QUOTES).strip()
            link = WIKILINK.fullmatch(name)
            parsed = parse_wikilink(link[2], is_embed=bool(link[1]), line=0) if link else None
            if parsed is not None and parsed.target:  # "[[#Heading]]" names no note
                return parsed.target, True
            says_note = "kind" in found.groupdict() and found["kind"] is not None
            return (name, says_note) if name else None
    return None
