"""The kind of figure a question asks for (a temperature, a length of time), and the texts that give one.

A passage is cut to the part sharing most of the question's words (rag/answer/excerpts.py). Asked "How hot should the
oven be for the nectarine tart?" over kepano-obsidian, the tart's Directions kept "Spread filling in tart shell;
arrange nectarine slices on top. Bake … depending on your oven." (nectarine, tart, oven) and lost "Preheat oven to
425F/220C" and "Lower oven to 350F/180C", which say only "oven" of the question: the model answered "30 minutes".
A question asking for a temperature, or how long, also wants the sentences giving one: each kind counts as one more
word of the question, which a sentence giving such a figure holds.
"""

from __future__ import annotations

import re

# Words of a question no text writes, standing for the kind of figure it asks for.
TEMPERATURE = "(a temperature)"
DURATION = "(a length of time)"

_ASKS = {
    TEMPERATURE: re.compile(
        r"\b(?:how\s+(?:hot|warm|cold)|temperatures?|temp|degrees?|wie\s+(?:heiß|heiss|warm|kalt)|temperatur(?:en)?)\b",
        re.IGNORECASE,
    ),
    DURATION: re.compile(
        r"\bhow\s+long\b|\bhow\s+many\s+(?:seconds|minutes|hours|days|weeks|months)\b|\bwie\s+lange\b", re.IGNORECASE
    ),
}
_GIVES = {
    # "220 °C", "425F/220C", "4 degrees", "180 Grad"; not "4C" (a battery) nor "C" alone
    TEMPERATURE: re.compile(r"\d\s*°|\b\d{2,3}\s?[CF]\b|\b\d+\s*(?:degrees?|grad)\b", re.IGNORECASE),
    # "30 minutes", "14 h", "2-3 days", "45 Minuten"
    DURATION: re.compile(
        r"\b\d+(?:[.,]\d+)?(?:\s*[-–]\s*\d+)?\s*(?:s|secs?|seconds?|min|mins|minutes?|h|hrs?|hours?|days?|weeks?"
        r"|months?|years?|sekunden|minuten|std|stunden?|tagen?|tage|wochen?|monate?n?|jahren?)\b",
        re.IGNORECASE,
    ),
}


def kinds_asked(question: str) -> frozenset[str]:
    """Return the kinds of figure `question` asks for (TEMPERATURE, DURATION), as words no text writes."""
    return frozenset(kind for kind, asks in _ASKS.items() if asks.search(question))


def kinds_given(text: str, kinds: frozenset[str]) -> frozenset[str]:
    """Return which of `kinds` `text` gives a figure of (other words among `kinds` are passed over)."""
    return frozenset(kind for kind in kinds if kind in _GIVES and _GIVES[kind].search(text))
