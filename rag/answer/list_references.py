"""A message naming an item of the list before it by its place: "Summarize the first one", "What does the second say?".

Code lists answer with notes, one link a line ("3 notes in the folder Clippings: - [[68 Bits of Unsolicited
Advice]] …"), and a chat goes on from such a list by pointing into it. Asked "Summarize the first one" after the
Clippings folder's notes over kepano-obsidian, the 0.5B refused, with the first note's passages in its prompt; asked
"Summarize 68 Bits of Unsolicited Advice", it summarised it. So the place is read by code and the message is read as
naming that item: the search, the model, the answer check and a change request all get the note itself.
"""

from __future__ import annotations

import re

_ORDINALS = {
    **dict.fromkeys(("first", "1st"), 1),
    **dict.fromkeys(("second", "2nd"), 2),
    **dict.fromkeys(("third", "3rd"), 3),
    **dict.fromkeys(("fourth", "4th"), 4),
    **dict.fromkeys(("fifth", "5th"), 5),
    **dict.fromkeys(("sixth", "6th"), 6),
    **dict.fromkeys(("seventh", "7th"), 7),
    **dict.fromkeys(("eighth", "8th"), 8),
    **dict.fromkeys(("ninth", "9th"), 9),
    **dict.fromkeys(("tenth", "10th"), 10),
    "last": -1,
}
# "the first one", "the second note", "the last", "the 3rd link", "the first of them". A word after the place that is
# not the list's ("the first step", "the last time") names something else.
_NOUNS = r"one|note|page|file|item|entry|link|result|hit|book|movie|project|person"
_PLACE = re.compile(
    rf"\bthe\s+(?P<place>{'|'.join(_ORDINALS)})\b(?:\s+(?P<noun>{_NOUNS})s?\b)?"
    rf"(?P<of>\s+(?:of|on|in)\s+(?:them|those|these|the\s+list)\b)?(?P<after>\s+\w+)?",
    re.IGNORECASE,
)
# Words that may follow a bare place: what it is asked of it ("What does the second say?", "Is the last about …").
_FOLLOWERS = frozenset(
    {
        *("on", "in", "of", "from", "for", "and", "or", "about", "to", "do", "does", "did", "is", "was", "has", "have"),
        *("say", "says", "said", "mention", "mentions", "link", "links", "talk", "talks", "cover", "covers"),
        *("contain", "contains"),
    }
)
# A list item led by a link: "- [[Note]]", "- [[Note#Heading]] (2026-12-05 10:30)", "2. [[Note]]: 9".
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+!?(?P<link>\[\[[^\[\]\n]+\]\])", re.MULTILINE)
MIN_ITEMS = 2  # "the first one" of a list of one is that one, which "it" names as well


def listed_links(reply: str) -> list[str]:
    """Return the links leading the list items of `reply`, in order (the list of a reply without its footer)."""
    return [found["link"] for found in _ITEM.finditer(reply)]


def with_item_named(message: str, reply: str) -> str:
    """Return `message` with the place it names in the list of `reply` put as that item's link ("[[Note]]").

    `message` unchanged when it names no place, or `reply` holds no list of MIN_ITEMS links or fewer items than
    the place. One place only: "Compare the first and the second" is left as written.
    """
    places = [found for found in _PLACE.finditer(message) if _is_place(found)]
    if len(places) != 1:
        return message
    links = listed_links(reply)
    if len(links) < MIN_ITEMS:
        return message
    number = _ORDINALS[places[0]["place"].casefold()]
    if number > len(links):
        return message
    link = links[number - 1] if number > 0 else links[-1]
    found = places[0]
    end = found.start("after") if found["after"] is not None else found.end()
    return f"{message[: found.start()]}{link}{message[end:]}"


def _is_place(found: re.Match[str]) -> bool:
    """Return True when the match names a list item, not "the first step" or "the last time"."""
    after = found["after"]
    return bool(found["noun"] or found["of"]) or after is None or after.strip().casefold() in _FOLLOWERS
