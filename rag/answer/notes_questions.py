"""Whether a message asks which notes are about a topic ("List my notes about Hyprland", "Which notes mention X?").

Such a request is answered by the search itself: the notes it finds about the topic, listed by code
(agent/notes_list.py). Asked "List the notes I have about Hyprland." over vaultofknowledge, the 1.5B wrote out a
`<note source=…>` element of its prompt, which the answer check withheld.
"""

from __future__ import annotations

import re

from rag.answer.question_kind import POLITE_OPENING

_NOTES = r"(?:notes?|pages?|notizen?)"
_ABOUT = (
    r"(?:about|on|for|regarding|related to|mentioning|that (?:mention|talk about|cover|discuss)|"
    r"über|zu[mr]?|von|die .{1,40} erwähnen)"
)
# At the message's start ("please", "can you" may come first). Not "What do my notes say about X?" (a question about
# their content, rag/answer/question_kind.asks_about_topic), "Which note says the bike was serviced?" (a fact), nor
# "Which notes are tagged garden?" (the `tags` tool's, for a model offered tools).
_LIST_NOTES = re.compile(
    POLITE_OPENING + r"(?:"
    rf"(?:list|show|find|give|get|search)(?: me)?(?: all| every)?(?: (?:the|my|of my))? {_NOTES}"
    rf"(?: (?:i|that i) (?:have|wrote|made|took|keep))?(?: in my vault)? {_ABOUT}"
    rf"|(?:which|what) {_NOTES}(?: do i have| have i (?:written|got))?(?: in my vault)? (?:are |is )?{_ABOUT}"
    rf"|(?:which|what) {_NOTES} (?:mention|cover|discuss|talk about)"
    rf"|do i have (?:any )?{_NOTES} {_ABOUT}|where are my {_NOTES} {_ABOUT}"
    # "What are my notes on Python?" (vaultofknowledge: the 0.5B refused with the CPython and PyPy notes found)
    rf"|what(?: are|'re) (?:all )?(?:the |my )?{_NOTES}(?: i have)? {_ABOUT}"
    rf"|welche {_NOTES} (?:habe ich )?{_ABOUT}|(?:zeig|zeige|liste|finde)(?: mir)?(?: alle| meine)* {_NOTES} {_ABOUT}"
    r")\s+(?P<topic>\S.*)$",
    re.IGNORECASE | re.DOTALL,
)


# When the notes about a topic were last written: "When did I last write about cryptography?" (vaultofknowledge: the
# 0.5B refused, the Cryptography note found first), "When was the last time I mentioned Priya?". The notes found are
# listed by when they last changed.
_LAST_WRITTEN = re.compile(
    POLITE_OPENING + r"(?:when\s+(?:did|have)\s+i\s+last\s+(?:write|written|wrote|note|noted|mention(?:ed)?"
    r"|edit(?:ed)?|update(?:d)?|work(?:ed)?\s+on)|when\s+was\s+the\s+last\s+time\s+i\s+(?:wrote|mentioned|noted"
    r"|edited|updated|worked\s+on))\s+(?:about\s+|on\s+|of\s+)?(?P<topic>\S.*)$",
    re.IGNORECASE | re.DOTALL,
)


def notes_topic(question: str) -> str:
    """Return the topic of a request for the notes about it ("Hyprland" of "List my notes on Hyprland."), else ""."""
    match = _LIST_NOTES.match(question.strip()) or _LAST_WRITTEN.match(question.strip())
    return match["topic"].strip().rstrip("?.!").strip() if match else ""


def asks_when_last_written(question: str) -> bool:
    """Return True for a request for the notes about a topic by when they last changed ("When did I last write …?")."""
    return _LAST_WRITTEN.match(question.strip()) is not None
