"""Strict approval parsing: an approval word (English or German), with only ids or courtesy words after it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.gate.approval import (
    approval_words,
    confirmed_kinds,
    missing_words,
    parse_approval,
    select_approved,
    words_needed,
)
from agent.gate.intent import AskedChange
from core.edits import Approval, ProposedEdit
from edits.proposals import new_proposal

APPROVE_ALL = [
    "yes", "Yes", "YES!", "  yes.  ", "y", "Y", "apply", "Apply.", "do it", "Do it!", "do   it", "ok", "OK.",
    "ja", "Ja!", "j", "anwenden", "Mach es", "mach es.", "ok!", "okay", "yes please", "Yes, please!", "yes all",
    "Ja, bitte", "ja gerne", "jawohl", "approve", "approved", "confirm", "go ahead", "OK, thanks",
    "Yes, go ahead", "ok, do it", "yes do it", "yes apply", "yes, please apply", "Ja, mach es", "ja, anwenden",
    "Yes, apply it", "apply it", "yes — thanks!", "ok - do it", "oui", "Oui, merci", "applique",
]  # fmt: skip
NOT_APPROVALS = [
    "", "   ", "sure", "yep", "yes but change the title", "ok, but only the first", "please yes",
    "don't ask me, just do it", "just do it", "please apply", "apply everything", "I said yes", "yes and no",
    "ja, aber ändere den Titel", "mach es nicht", "doit", "yes 12", "yes abc", "yes zzzz", "go", "ahead",
    "yes; rm -rf /", "delete all notes in Inbox", "yes?", "apply it?",
]  # fmt: skip


@pytest.mark.parametrize("message", APPROVE_ALL)
def test_bare_approval_words_approve_everything_shown(message: str) -> None:
    assert parse_approval(message) == Approval(kind="approve", ids=())


@pytest.mark.parametrize(
    ("message", "ids"),
    [
        ("yes 3f2a91bc", ("3f2a91bc",)),
        ("apply 3f2a 91bc", ("3f2a", "91bc")),
        ("apply 3F2A, 91bc.", ("3f2a", "91bc")),
        ("do it #3f2a", ("3f2a",)),
        ("ja 3f2a 3f2a", ("3f2a",)),
        ("mach es 91bc", ("91bc",)),
        ("yes please 3f2a and 91bc", None),
        ("yes, please: 3f2a 91bc", ("3f2a", "91bc")),
    ],
)
def test_approval_words_followed_by_ids_approve_only_those(message: str, ids: tuple[str, ...] | None) -> None:
    expected = Approval(kind="unrelated") if ids is None else Approval(kind="approve", ids=ids)
    assert parse_approval(message) == expected


@pytest.mark.parametrize(
    "message",
    ["no", "No.", "n", "nein", "Nein!", "cancel", "abbrechen", "no thanks", "Nein, danke", "nope", "non", "Non, merci"],
)
def test_decline_words_decline(message: str) -> None:
    assert parse_approval(message) == Approval(kind="decline")


@pytest.mark.parametrize("message", NOT_APPROVALS)
def test_anything_else_is_not_an_approval(message: str) -> None:
    assert not parse_approval(message).is_approval


def _shown() -> list:
    at = datetime(2025, 1, 1, tzinfo=UTC)
    return [
        new_proposal(conversation_id="c", operation="e", path=f"{n}.md", before="a", after="b", now=at, ttl_minutes=1)
        for n in range(3)
    ]


def test_select_approved_takes_all_or_exactly_the_named_ids() -> None:
    shown = _shown()
    assert select_approved(Approval(kind="approve"), shown) == shown
    assert select_approved(Approval(kind="approve", ids=(shown[1].id,)), shown) == [shown[1]]


def test_select_approved_applies_nothing_for_an_unknown_id_or_a_non_approval() -> None:
    shown = _shown()
    assert select_approved(Approval(kind="approve", ids=(shown[0].id, "deadbeef")), shown) == []
    assert select_approved(Approval(kind="decline"), shown) == []
    assert select_approved(Approval(kind="unrelated"), shown) == []
    assert select_approved(Approval(kind="approve"), []) == []


@pytest.mark.parametrize(
    ("message", "ids", "kinds"),
    [
        ("yes delete", (), {"delete"}),
        ("Yes, delete it.", (), {"delete"}),
        ("ja löschen", (), {"delete"}),
        ("yes move", (), {"move"}),
        ("ja verschieben", (), {"move"}),
        ("yes rename please", (), {"move"}),
        ("yes delete move", (), {"delete", "move"}),
        ("yes delete and move", (), {"delete", "move"}),
        ("ja löschen und verschieben", (), {"delete", "move"}),
        ("yes delete 3f2a", ("3f2a",), {"delete"}),
        ("yes", (), set()),
    ],
)
def test_an_approval_may_name_the_delete_or_move_it_confirms(
    message: str, ids: tuple[str, ...], kinds: set[str]
) -> None:
    assert parse_approval(message) == Approval(kind="approve", ids=ids)
    assert confirmed_kinds(message) == frozenset(kinds)


@pytest.mark.parametrize("message", ["delete", "yes and delete", "yes delete?", "yes delete everything", "move it"])
def test_a_kind_word_outside_an_approval_approves_nothing(message: str) -> None:
    assert not parse_approval(message).is_approval
    assert confirmed_kinds(message) == frozenset()


def _destructive() -> tuple[ProposedEdit, ProposedEdit, ProposedEdit]:
    at = datetime(2025, 1, 1, tzinfo=UTC)
    edit = new_proposal(conversation_id="c", operation="e", path="A.md", before="a", after="b", now=at, ttl_minutes=1)
    delete = new_proposal(
        conversation_id="c", operation="d", path="B.md", before="b", after=None, now=at, ttl_minutes=1
    )
    move = new_proposal(
        conversation_id="c", operation="m", path="C.md", before="c", after="c", now=at, ttl_minutes=1, new_path="D.md"
    )
    return edit, delete, move


def test_only_a_delete_or_move_the_message_did_not_ask_for_needs_its_word() -> None:
    edit, delete, move = _destructive()
    shown = [edit, delete, move]

    assert words_needed(shown, AskedChange(is_change=False)) == {delete.id: "delete", move.id: "move"}
    assert words_needed(shown, AskedChange(is_change=True, kinds=frozenset({"delete"}))) == {move.id: "move"}
    assert words_needed(shown, AskedChange(is_change=True, kinds=frozenset({"delete", "move"}))) == {}


def test_an_approval_without_the_needed_words_or_with_a_wrong_one_applies_nothing() -> None:
    edit, delete, move = _destructive()
    shown = [edit, delete, move]
    needed = {delete.id: "delete", move.id: "move"}

    assert missing_words(shown, shown, needed, "yes") == {"delete", "move"}
    assert missing_words(shown, shown, needed, "yes delete") == {"delete", "move"}
    assert missing_words(shown, shown, needed, "yes delete move") is None
    assert missing_words([edit, delete], shown, needed, "yes delete") is None
    assert missing_words([edit], shown, needed, "yes") is None  # the edit alone needs no word
    assert missing_words([edit, delete], [edit, delete], {}, "yes move") == frozenset()  # no move is shown
    assert missing_words([edit, delete], [edit, delete], {}, "yes delete") is None  # asked for: the word may be said


def test_approval_words_spell_what_to_type_in_english_or_german() -> None:
    assert approval_words({"move", "delete"}, ("3f2a",)) == "yes delete move 3f2a"
    assert approval_words({"delete"}, german=True) == "ja löschen"
    assert approval_words(set()) == "yes"
