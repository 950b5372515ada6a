"""Recognising a request to act on what a note says: "follow the instructions in my X note", "do what X says".

Such a request would make text written in a note the user's orders, so whoever wrote the note (a web clip, a synced
mail, a shared folder) would steer the write tools. Code therefore takes it as no request for a change: the turn is
offered no write tool and its reply ends with a notice that the note's instructions were not carried out
(`agent.graph`); without a model it gets the "changes need a language model" answer, not the note's passages.

A question about the instructions ("what do the steps in X say?", "summarise the checklist in X") is a question,
and a concrete request that names its own change ("add the tasks from X to today's note", "make the following
changes in X: ...") is a change: only the verbs and phrasings below make a message a request to follow a note.
"""

from __future__ import annotations

import re

# Things a note can tell the reader to do.
_ORDERS = (
    r"instructions?|steps?|directions?|check-?lists?|to-?dos?|todo\s+list|tasks?|orders?|commands?|procedures?"
    r"|plans?|guides?|actions?|changes|edits|updates|fixes|recipes?|list"
)
_GERMAN_ORDERS = (
    r"anweisung(?:en)?|anleitung(?:en)?|schritte?|(?:check-?|to-?do-?)?liste|aufgaben?|to-?dos?|befehle?"
    r"|änderungen|plan"
)
# Where the orders come from: "in X", "from X", "listed in X", "that X asks for".
_SOURCE = r"\b(?:in|on|from|of|inside|under|listed|described|written|given|outlined|mentioned|specified|suggested)\b"
_SAYS = r"\b(?:says?|said|asks?|asked|tells?|told|wants?|lists?|describes?|instructs?|written|mentioned|steht|sagt)\b"
_FLAGS = re.IGNORECASE
_PATTERNS = (
    # "follow/obey my X note", but not "follow up on ..." or "follow the links from X" (a question about links)
    re.compile(r"^(?:follow|obey)\b(?!\s+(?:up|(?:the\s+|its\s+|all\s+)?(?:links?|backlinks?))\b)", _FLAGS),
    # "execute the steps in X", "apply the checklist from X", "act on the instructions in X"
    re.compile(
        r"^(?:execute|run|carry\s+out|perform|implement|apply|act\s+on|work\s+through)\s+"
        rf"(?:[\w'-]+\s+){{0,3}}?(?:{_ORDERS})\b.*{_SOURCE}",
        _FLAGS,
    ),
    # "make the changes described in X" (not "make the following changes in X: ...", which names them)
    re.compile(
        r"^make\s+(?:the\s+|all\s+(?:the\s+)?|those\s+|these\s+)?(?:changes|edits|updates|fixes)\s+"
        rf"(?:(?:listed|described|written|given|outlined|mentioned|specified|suggested|requested)\b|from\b|.*{_SAYS})",
        _FLAGS,
    ),
    # "do what X says", "do whatever X tells you", "do as X says", "do everything in X" (not "do what I said")
    re.compile(
        r"^(?:do|carry\s+out|execute)\s+(?:what(?:ever)?|as|everything|all|anything)\b(?!\s+(?:i|we)\b)(?:'s)?"
        rf"(?:.*{_SAYS}|(?:\s+is)?\s+(?:in|on|from|listed|written|described)\b)",
        _FLAGS,
    ),
    # German: "mach, was in X steht", "tu alles, was X sagt", "befolge die Anweisungen in X"
    re.compile(r"^(?:mach|mache|machen|tu|tue|tun)\b[\s,]+(?:alles[\s,]+|das[\s,]+)?was\b", _FLAGS),
    re.compile(r"^(?:befolge|befolg|folge)\b", _FLAGS),
)
_GERMAN_ORDER = re.compile(rf"\b(?:{_GERMAN_ORDERS})\b", _FLAGS)
# German splits the verb: "führe die Schritte in X aus", "setze die Anweisungen aus X um", "arbeite die Liste ab".
_GERMAN_SPLIT = {"führe": "aus", "setze": "um", "arbeite": "ab"}
# German puts it last after a modal opener (already cut): "die Anweisungen in X befolgen"; "befolgen" needs no noun.
_GERMAN_LAST = frozenset({"befolgen", "ausführen", "umsetzen", "abarbeiten"})
# A request to act on a note is often the second clause: "open X and do what it says", "lies X und mach, was da steht".
_CLAUSES = re.compile(r"\b(?:and\s+then|and|then|und\s+dann|und|dann)\b", _FLAGS)


def is_note_instruction_request(clause: str) -> bool:
    """Return True when `clause` (one sentence, polite openers cut) asks to carry out what a note says.

    The sentence as a whole and each of its clauses are tried, so "open X and do what it says" counts.
    """
    text = clause.strip().replace("’", "'")
    parts = [text, *(part.strip(" ,") for part in _CLAUSES.split(text)[1:])]
    return any(_asks_to_follow(part) for part in parts if part)


def _asks_to_follow(part: str) -> bool:
    if any(pattern.search(part) for pattern in _PATTERNS):
        return True
    # Only the first and last words, then one search: a long message costs a linear scan, never a quadratic one.
    words = part.lower().rstrip(" ?!.").split()
    first, last = (words[0], words[-1]) if words else ("", "")
    if last == "befolgen":
        return True
    is_verb = _GERMAN_SPLIT.get(first) == last or last in _GERMAN_LAST
    return is_verb and _GERMAN_ORDER.search(part) is not None
