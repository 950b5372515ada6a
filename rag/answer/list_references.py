"""A message naming an item of the list before it by its place: "Summarize the first one", "What does the second say?".

Code lists answer with notes, one link a line ("3 notes in the folder Clippings: - [[68 Bits of Unsolicited
Advice]] …"), and a chat goes on from such a list by pointing into it. Asked "Summarize the first one" after the
Clippings folder's notes over kepano-obsidian, the 0.5B refused, with the first note's passages in its prompt; asked
"Summarize 68 Bits of Unsolicited Advice", it summarised it. So the place is read by code and the message is read as
naming that item: the search, the model, the answer check and a change request all get the note itself.
"""

from __future__ import annotations

import re

from rag.notes.task_fields import parse_task_fields

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
# A task of a task list, its section's link last: "- [ ] #task Something about interwebs 📅 2021-11-22 [[ACME#Tasks]]".
# A task note: "- [open] Renew passport (due 2020-03-15, priority high) [[Renew passport]]".
_TASK_ITEM = re.compile(
    r"^\s*[-*+]\s+\[(?P<state>[^\]\n]|[a-z -]{2,20})\]\s+(?P<text>[^\n]+?)\s+(?P<link>\[\[[^\[\]\n]+\]\])[ \t]*$",
    re.MULTILINE,
)
_NOTE_FACTS = re.compile(r"\s*\([^()]*\)$")  # a task note's "(due 2020-03-15, priority high)"
_TAG = re.compile(r"(?<![\w#])#[^\s#]+")
MIN_ITEMS = 2  # "the first one" of a list of one is that one, which "it" names as well
TASK_ITEM = "the task “"  # how a task item reads (`_task_named`)


def is_list(items: list[str]) -> bool:
    """Return True when `items` (`listed_items`) make a list a place names: MIN_ITEMS, or one task.

    A list of one task is a list too: "Mark the first one as done" after "1 open task in [[Home Server Migration]]"
    went to the change contract as written, and the 0.5B named a task of another note (sample_vault).
    """
    return len(items) >= MIN_ITEMS or (len(items) == 1 and items[0].startswith(TASK_ITEM))


def listed_items(reply: str) -> list[str]:
    """Return what each item of the list of `reply` names, in order: a note's link, or a task in its note.

    A task reads "the task “Something about interwebs” in [[Important Project]]": "Mark the first one as done" after a
    task list is then a request the change contract reads, the task found among its note's open ones.
    """
    found = [(item.start(), item["link"]) for item in _ITEM.finditer(reply)]
    found += [(task.start(), _task_named(task)) for task in _TASK_ITEM.finditer(reply)]
    return [named for _, named in sorted(found)]


def _task_named(task: re.Match[str]) -> str:
    text = _TAG.sub("", parse_task_fields(task["text"]).description).strip() or task["text"].strip()
    if len(task["state"]) > 1:  # a task note, its facts in brackets after its title
        text = _NOTE_FACTS.sub("", text) or text
    note = task["link"][2:-2].split("#", 1)[0].split("|", 1)[0]
    return f"{TASK_ITEM}{text}” in [[{note}]]"


def with_item_named(message: str, reply: str) -> str:
    """Return `message` with the place it names in the list of `reply` put as that item ("[[Note]]", a task in one).

    `message` unchanged when it names no place, or `reply` holds no list (`is_list`) or fewer items than the place.
    One place only: "Compare the first and the second" is left as written.
    """
    places = [found for found in _PLACE.finditer(message) if _is_place(found)]
    if len(places) != 1:
        return message
    items = listed_items(reply)
    if not is_list(items):
        return message
    number = _ORDINALS[places[0]["place"].casefold()]
    if number > len(items):
        return message
    link = items[number - 1] if number > 0 else items[-1]
    found = places[0]
    end = found.start("after") if found["after"] is not None else found.end()
    return f"{message[: found.start()]}{link}{message[end:]}"


def _is_place(found: re.Match[str]) -> bool:
    """Return True when the match names a list item, not "the first step" or "the last time"."""
    after = found["after"]
    return bool(found["noun"] or found["of"]) or after is None or after.strip().casefold() in _FOLLOWERS
