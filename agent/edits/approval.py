"""Strict reading of the user's answer to shown proposals: only an approval word (plus ids) approves.

Decided by code, never by the model. "yes but change the title", "don't ask me, just do it" or "sure" are not
approvals: anything but an approval word, followed only by proposal ids or courtesy words ("please", "all",
"bitte"), discards what was shown. Courtesy words cannot change what is applied, so "yes, please" may approve.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.edits import Approval, ProposedEdit

APPROVAL_PHRASES = frozenset(
    {
        ("yes",), ("y",), ("apply",), ("do", "it"), ("ok",), ("okay",), ("approve",), ("approved",),
        ("confirm",), ("go", "ahead"),
        ("ja",), ("j",), ("jawohl",), ("anwenden",), ("mach", "es"), ("bestätigen",),
    }
)  # fmt: skip
DECLINE_PHRASES = frozenset({("no",), ("n",), ("nope",), ("nein",), ("cancel",), ("abbrechen",), ("discard",)})
# Words that may follow an approval or a decline without changing its meaning.
COURTESY = frozenset(
    {"please", "pls", "plz", "thanks", "thank", "you", "all", "them", "both", "it", "that", "this", "-", "—", "–"}
    | {"bitte", "gerne", "danke", "alle", "beide"}
)  # fmt: skip
_ID = re.compile(r"#?([0-9a-f]{4,32})")
_EDGE_PUNCTUATION = ".!?,;:"


def _starts_with(tokens: list[str], phrases: frozenset[tuple[str, ...]]) -> int:
    """Return the length of the phrase `tokens` starts with (longest first), or 0."""
    for phrase in sorted(phrases, key=len, reverse=True):
        if tuple(tokens[: len(phrase)]) == phrase:
            return len(phrase)
    return 0


def parse_approval(message: str) -> Approval:
    """Return what `message` means for the proposals shown just before it.

    An approval is approval phrases, courtesy words and ids only, starting with an approval phrase ("yes, go
    ahead", "ok do it", "ja, mach es 3f2a"); any other word makes it something else.
    """
    tokens = [token.strip(_EDGE_PUNCTUATION) for token in message.lower().replace(",", " ").split()]
    tokens = [token for token in tokens if token]
    if _starts_with(tokens, APPROVAL_PHRASES) and not message.rstrip().endswith("?"):  # "yes?" asks, not approves
        ids: list[str] = []
        rest = tokens
        while rest:
            length = _starts_with(rest, APPROVAL_PHRASES)
            if length:
                rest = rest[length:]
                continue
            if rest[0] in COURTESY:
                rest = rest[1:]
                continue
            match = _ID.fullmatch(rest[0])
            if match is None:
                return Approval(kind="unrelated")
            ids.append(match.group(1))
            rest = rest[1:]
        return Approval(kind="approve", ids=tuple(dict.fromkeys(ids)))
    length = _starts_with(tokens, DECLINE_PHRASES)
    if length and all(token in COURTESY for token in tokens[length:]):
        return Approval(kind="decline")
    return Approval(kind="unrelated")


def select_approved(approval: Approval, shown: Sequence[ProposedEdit]) -> list[ProposedEdit]:
    """Return the shown proposals the approval applies: all, or exactly those named.

    An id that names no shown proposal makes the whole answer apply nothing: a typo must not apply a subset the
    user did not mean.
    """
    if not approval.is_approval:
        return []
    if not approval.ids:
        return list(shown)
    by_id = {proposal.id: proposal for proposal in shown}
    if any(pid not in by_id for pid in approval.ids):
        return []
    return [by_id[pid] for pid in approval.ids]


UNDO_PHRASES = frozenset(
    {
        ("undo",),
        ("undo", "that"),
        ("undo", "it"),
        ("undo", "last", "change"),
        ("undo", "the", "last", "change"),
        ("revert",),
        ("revert", "that"),
        ("rückgängig",),
        ("rückgängig", "machen"),
    }
)


def is_undo_request(message: str) -> bool:
    """Return True when `message` is only a request to undo the last change ("undo", "undo that", "rückgängig")."""
    tokens = [token.strip(_EDGE_PUNCTUATION) for token in message.lower().split()]
    return tuple(token for token in tokens if token) in UNDO_PHRASES
