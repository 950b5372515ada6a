"""A correction of the change just proposed, applied by code to the request that proposed it.

After "Add the tag books to The Machine Stops" and its proposal, users correct in a few words: "actually make it
'reading' not 'books'", "reading instead of books", "nicht books, sondern reading". Read as a new request, such a
message names no note and no change (the 0.5B proposed a new note "Reading.md", or the turn was refused as a
question). Code reads the two values instead and swaps them in the earlier request, which then goes through the
same change path as any request: "Add the tag reading to The Machine Stops". A message saying only the new value
("make it reading") is left alone: which word of the request it replaces would be a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from core.chat import ChatMessage, TurnRequest

_QUOTES = "\"'“”„«»‘’"
# A value: quoted (any words), or one bare word of a tag, name or property value (a full stop after it ends it).
_QUOTED_VALUE = rf"[{_QUOTES}](?P<{{name}}q>[^{_QUOTES}\n]{{{{1,80}}}})[{_QUOTES}]"
_BARE_VALUE = r"(?P<{name}w>[\w#/+-](?:[\w#/.+-]{{0,58}}[\w#/+-])?)"
_VALUE = f"(?:{_QUOTED_VALUE}|{_BARE_VALUE})"
_NEW, _OLD = _VALUE.format(name="new"), _VALUE.format(name="old")
_LEAD = (
    r"(?:(?:no|nope|sorry|oops|actually|wait|nein|doch|eigentlich|sorry|pardon|non)\b[\s,!.:-]*)*"
    r"(?:(?:please\s+)?(?:make\s+it|change\s+it\s+to|use|i\s+meant|i\s+mean|it\s+should\s+be|should\s+be|"
    r"rather|mach(?:e)?\s+es|nimm|ich\s+meinte)\b\s*:?\s*)?"
)
_FORMS = (
    rf"{_LEAD}{_NEW}\s*,?\s*(?:not|instead\s+of|rather\s+than|statt|anstatt|anstelle\s+von|et\s+non|au\s+lieu\s+de)"
    rf"\s+{_OLD}",
    # "not books, reading" / "not books but reading": a comma or a "but" between them, never none ("not 12").
    rf"{_LEAD}(?:not|nicht|pas)\s+{_OLD}(?:\s*[,;:-]\s*(?:but\s+|sondern\s+|mais\s+)?|\s+(?:but|sondern|mais)\s+){_NEW}",
)
_CORRECTIONS = tuple(re.compile(rf"\s*{form}\s*[.!]*\s*", re.IGNORECASE) for form in _FORMS)
# Words a reply to a proposal holds that are no value: "Not today, thanks", "Maybe not today", "No, not that one".
_NO_VALUE = frozenset(
    {"thanks", "thank", "please", "maybe", "now", "sure", "yet", "really", "that", "this", "one", "it", "them", "so"}
    | {"well", "ok", "okay", "fine", "bad", "good", "great", "cool", "hmm", "right", "danke", "bitte", "vielleicht"}
    | {"jetzt", "merci", "peut-être"}
)


@dataclass(frozen=True, slots=True)
class Correction:
    """A value of the earlier request and the value the user wants instead."""

    old: str
    new: str


def read_correction(message: str) -> Correction | None:
    """Return the swap a short correcting message states ("X not Y", "not Y but X"), or None when it states none."""
    for pattern in _CORRECTIONS:
        match = pattern.fullmatch(message)
        if match is not None:
            old = match["oldq"] or match["oldw"]
            new = match["newq"] or match["neww"]
            bare = [value.casefold() for value in (match["oldw"], match["neww"]) if value]
            if old.casefold() != new.casefold() and not _NO_VALUE.intersection(bare):
                return Correction(old.strip(), new.strip())
    return None


def corrected_request(request: str, correction: Correction) -> str | None:
    """Return `request` with the old value replaced by the new one, or None unless it holds the old value once."""
    found = list(re.finditer(rf"(?<![\w#]){re.escape(correction.old)}(?!\w)", request, re.IGNORECASE))
    if len(found) != 1:
        return None
    start, end = found[0].span()
    return request[:start] + correction.new + request[end:]


def proposing_request(request: TurnRequest) -> str:
    """Return the request whose proposal the latest reply showed, with the corrections since applied, or "".

    The client keeps what the user typed: after "reading not books", the message before the reply is that
    correction, and the request it corrected comes before it.
    """
    typed: list[str] = []
    replied = False
    for message in reversed(request.messages[:-1]):
        if message.role == "assistant":
            replied = True
        elif message.role == "user" and replied:
            typed.append(message.content.strip())
            if read_correction(typed[-1]) is None:
                break
            replied = False
    if not typed or read_correction(typed[-1]) is not None:
        return ""
    text: str | None = typed[-1]
    for correction in reversed(typed[:-1]):  # oldest first
        swap = read_correction(correction)
        text = corrected_request(text, swap) if text is not None and swap is not None else None
    return text or ""


def corrected_turn(request: TurnRequest, message: str) -> TurnRequest | None:
    """Return the turn with its message replaced by the corrected earlier request, or None when it corrects nothing.

    Only for a message answering the reply that showed a proposal (the gate checks that): the earlier request is
    the user message before that reply.
    """
    correction = read_correction(message)
    if correction is None:
        return None
    corrected = corrected_request(proposing_request(request), correction)
    if corrected is None:
        return None
    messages = (*request.messages[:-1], ChatMessage("user", corrected))
    return replace(request, messages=messages)
