"""Strict reading of the user's answer to shown proposals: only an approval word (plus ids) approves.

Decided by code, never by the model. "yes but change the title", "don't ask me, just do it" or "sure" are not
approvals: anything but an approval word, followed only by proposal ids or courtesy words ("please", "all",
"bitte"), discards what was shown. Courtesy words cannot change what is applied, so "yes, please" may approve.

A delete or move the user did not ask for needs its word after the approval ("yes delete", "ja verschieben"): a
plain yes then applies nothing (`missing_words`), so one reflexive "yes" cannot apply a destructive change that a
manipulated model slipped into a reply to a question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from agent.gate.intent import AskedChange
from core.edits import Approval, DestructiveKind, EditKind, ProposedEdit

APPROVAL_PHRASES = frozenset(
    {
        ("yes",), ("y",), ("apply",), ("do", "it"), ("ok",), ("okay",), ("approve",), ("approved",),
        ("confirm",), ("go", "ahead"),
        ("ja",), ("j",), ("jawohl",), ("anwenden",), ("mach", "es"), ("bestätigen",),
        ("oui",), ("applique",), ("confirme",),
    }
)  # fmt: skip
DECLINE_PHRASES = frozenset(
    {("no",), ("n",), ("nope",), ("nein",), ("cancel",), ("abbrechen",), ("discard",), ("non",), ("annule",)}
)
# Words that may follow an approval or a decline without changing its meaning.
COURTESY = frozenset(
    {"please", "pls", "plz", "thanks", "thank", "you", "all", "them", "both", "it", "that", "this", "-", "—", "–"}
    | {"bitte", "gerne", "danke", "alle", "beide"}
    | {"merci", "stp", "svp", "tout", "tous", "toutes"}
)  # fmt: skip
# The words that confirm a destructive kind after an approval phrase ("yes delete", "ja löschen").
CONFIRM_WORDS: dict[str, DestructiveKind] = {
    **dict.fromkeys(("delete", "löschen", "lösche", "supprimer", "supprime"), "delete"),
    **dict.fromkeys(("move", "rename", "verschieben", "verschiebe", "umbenennen", "déplacer", "renommer"), "move"),
}
DESTRUCTIVE: dict[EditKind, DestructiveKind] = {"delete": "delete", "move": "move"}
# How the replies spell each kind's word, English first.
SPELLED: dict[DestructiveKind, tuple[str, str]] = {"delete": ("delete", "löschen"), "move": ("move", "verschieben")}
_AND = frozenset({"and", "und", "&", "+"})
_ID = re.compile(r"#?([0-9a-f]{4,32})")
_EDGE_PUNCTUATION = ".!?,;:"
# An approval or an undo request is a few words; a longer message is neither, and is not read to the end
# (a 1 MB message must cost no more than a short one).
MAX_DECISION_CHARS = 500


def _tokens(message: str) -> list[str]:
    tokens = [token.strip(_EDGE_PUNCTUATION) for token in message.lower().replace(",", " ").split()]
    return [token for token in tokens if token]


def _starts_with(tokens: list[str], phrases: frozenset[tuple[str, ...]]) -> int:
    """Return the length of the phrase `tokens` starts with (longest first), or 0."""
    for phrase in sorted(phrases, key=len, reverse=True):
        if tuple(tokens[: len(phrase)]) == phrase:
            return len(phrase)
    return 0


def parse_approval(message: str) -> Approval:
    """Return what `message` means for the proposals shown just before it.

    An approval is approval phrases, courtesy words and ids only, starting with an approval phrase ("yes, go
    ahead", "ok do it", "ja, mach es 3f2a"), and the words confirming a delete or move ("yes delete 3f2a", "yes
    delete and move"); any other word makes it something else.
    """
    if len(message) > MAX_DECISION_CHARS:
        return Approval(kind="unrelated")
    tokens = _tokens(message)
    if _starts_with(tokens, APPROVAL_PHRASES) and not message.rstrip().endswith("?"):  # "yes?" asks, not approves
        parsed = _approval_parts(tokens)
        return Approval(kind="unrelated") if parsed is None else Approval(kind="approve", ids=parsed[0])
    length = _starts_with(tokens, DECLINE_PHRASES)
    if length and all(token in COURTESY for token in tokens[length:]):
        return Approval(kind="decline")
    return Approval(kind="unrelated")


def confirmed_kinds(message: str) -> frozenset[DestructiveKind]:
    """Return the destructive kinds an approval confirms by name ("yes delete" -> delete); empty for others."""
    if not parse_approval(message).is_approval:
        return frozenset()
    parsed = _approval_parts(_tokens(message))
    return frozenset() if parsed is None else parsed[1]


def _approval_parts(tokens: list[str]) -> tuple[tuple[str, ...], frozenset[DestructiveKind]] | None:
    """Return the ids and confirmed kinds of an approval's tokens, or None when another word is among them."""
    ids: list[str] = []
    kinds: list[DestructiveKind] = []
    rest, previous = tokens, ""
    while rest:
        length = _starts_with(rest, APPROVAL_PHRASES)
        token = rest[0]
        if length:
            rest = rest[length:]
            continue
        if token in CONFIRM_WORDS:
            kinds.append(CONFIRM_WORDS[token])
        elif token in _AND and previous in CONFIRM_WORDS and len(rest) > 1 and rest[1] in CONFIRM_WORDS:
            pass  # "yes delete and move"
        elif token not in COURTESY:
            match = _ID.fullmatch(token)
            if match is None:
                return None
            ids.append(match.group(1))
        rest, previous = rest[1:], token
    return tuple(dict.fromkeys(ids)), frozenset(kinds)


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


def words_needed(proposals: Iterable[ProposedEdit], asked: AskedChange) -> dict[str, DestructiveKind]:
    """Return, per proposal id, the kind a plain yes cannot confirm: a delete or move the message did not ask for."""
    kinds = {p.id: DESTRUCTIVE.get(p.kind) for p in proposals}
    return {pid: kind for pid, kind in kinds.items() if kind is not None and kind not in asked.kinds}


def missing_words(
    chosen: Sequence[ProposedEdit], shown: Sequence[ProposedEdit], needed: Mapping[str, DestructiveKind], message: str
) -> frozenset[DestructiveKind] | None:
    """Return the kinds the approval must name to apply `chosen`, or None when it names what it must.

    A word naming a kind no shown change is ("yes delete" when only a move is shown) applies nothing either: the
    user believes something else is about to happen.
    """
    given = confirmed_kinds(message)
    required = frozenset(needed[p.id] for p in chosen if p.id in needed)
    present = frozenset(DESTRUCTIVE[p.kind] for p in shown if p.kind in DESTRUCTIVE)
    if required <= given <= present:
        return None
    return required


def approval_words(kinds: Iterable[DestructiveKind], ids: Sequence[str] = (), *, german: bool = False) -> str:
    """Return the exact approval to type: "yes delete move 3f2a" (or "ja löschen verschieben 3f2a")."""
    words = [SPELLED[kind][1 if german else 0] for kind in ("delete", "move") if kind in set(kinds)]
    return " ".join(["ja" if german else "yes", *words, *ids])


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
    if len(message) > MAX_DECISION_CHARS:
        return False
    tokens = [token.strip(_EDGE_PUNCTUATION) for token in message.lower().split()]
    return tuple(token for token in tokens if token) in UNDO_PHRASES
