"""The SQLite proposal store: pending per conversation, expiry, final statuses, reopening the file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.edits import ProposedEdit
from core.errors import InvalidRequest, NotFound
from edits.diffs import content_hash
from edits.proposals import SqliteProposalStore, new_proposal

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def proposal(conversation: str = "c1", *, path: str = "Inbox/a.md", ttl: float = 30, at: datetime = NOW):
    return new_proposal(
        conversation_id=conversation, operation="append", path=path, before="old\n", after="old\nnew\n", now=at,
        ttl_minutes=ttl,
    )  # fmt: skip


def test_new_proposal_binds_the_base_hash_and_shows_the_diff() -> None:
    made = proposal()
    assert made.base_hash == content_hash("old\n")
    assert made.kind == "replace"
    assert made.diff == "--- a/Inbox/a.md\n+++ b/Inbox/a.md\n@@ -1 +1,2 @@\n old\n+new\n"
    assert made.expires_at == NOW + timedelta(minutes=30)
    assert len(made.id) == 8


def test_new_proposal_kinds() -> None:
    create = new_proposal(conversation_id="c", operation="create", path="n.md", before=None, after="x", now=NOW,
                          ttl_minutes=1)  # fmt: skip
    delete = new_proposal(conversation_id="c", operation="delete", path="n.md", before="x", after=None, now=NOW,
                          ttl_minutes=1)  # fmt: skip
    move = new_proposal(conversation_id="c", operation="move", path="n.md", before="x", after="x", now=NOW,
                        ttl_minutes=1, new_path="m.md")  # fmt: skip
    assert (create.kind, create.base_hash) == ("create", None)
    assert (delete.kind, delete.new_text) == ("delete", None)
    assert move.kind == "move"
    with pytest.raises(InvalidRequest, match="nothing to delete"):
        new_proposal(conversation_id="c", operation="delete", path="n.md", before=None, after=None, now=NOW,
                     ttl_minutes=1)  # fmt: skip


def test_store_round_trips_a_proposal(store: SqliteProposalStore) -> None:
    made = proposal()
    store.add(made)
    assert store.get(made.id) == made
    assert store.get("00000000") is None


def test_pending_lists_only_open_proposals_of_that_conversation_oldest_first(store: SqliteProposalStore) -> None:
    first, second = proposal(at=NOW), proposal(path="Inbox/b.md", at=NOW + timedelta(seconds=1))
    other = proposal("c2")
    for made in (second, first, other):
        store.add(made)
    assert [p.id for p in store.pending("c1", NOW + timedelta(minutes=1))] == [first.id, second.id]
    store.mark(first.id, "applied")
    assert [p.id for p in store.pending("c1", NOW + timedelta(minutes=1))] == [second.id]
    assert store.get(first.id).status == "applied"  # type: ignore[union-attr]


def test_expired_proposals_are_not_pending_and_expire_marks_them(store: SqliteProposalStore) -> None:
    short, long = proposal(ttl=5), proposal(path="Inbox/b.md", ttl=60)
    store.add(short)
    store.add(long)
    later = NOW + timedelta(minutes=10)
    assert [p.id for p in store.pending("c1", later)] == [long.id]
    assert store.expire(later) == 1
    assert store.get(short.id).status == "expired"  # type: ignore[union-attr]
    assert store.get(long.id).status == "pending"  # type: ignore[union-attr]


def test_a_decided_proposal_keeps_its_status(store: SqliteProposalStore) -> None:
    made = proposal()
    store.add(made)
    store.mark(made.id, "discarded")
    store.mark(made.id, "applied")
    assert store.get(made.id).status == "discarded"  # type: ignore[union-attr]


def test_mark_refuses_unknown_ids_and_statuses(store: SqliteProposalStore) -> None:
    made = proposal()
    store.add(made)
    with pytest.raises(NotFound):
        store.mark("ffffffff", "applied")
    with pytest.raises(InvalidRequest):
        store.mark(made.id, "pending")
    with pytest.raises(InvalidRequest, match="already exists"):
        store.add(made)


def test_proposals_survive_reopening_the_file(tmp_path: Path) -> None:
    made: ProposedEdit = proposal()
    first = SqliteProposalStore(tmp_path / "p.sqlite")
    first.add(made)
    first.close()
    again = SqliteProposalStore(tmp_path / "p.sqlite")
    assert again.pending("c1", NOW) == [made]
    again.close()


def test_discard_marks_only_pending_proposals_and_returns_them(store: SqliteProposalStore) -> None:
    waiting, applied = proposal(), proposal()
    store.add(waiting)
    store.add(applied)
    store.mark(applied.id, "applied")

    assert store.discard([applied.id, waiting.id, "unknown1"]) == [waiting]
    assert store.get(waiting.id).status == "discarded"  # type: ignore[union-attr]
    assert store.get(applied.id).status == "applied"  # type: ignore[union-attr]
    assert store.discard([waiting.id]) == []
