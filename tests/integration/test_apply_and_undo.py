"""Applying approved proposals through a writer, the write-ahead change log, and undo of the last change set."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.edits import ProposedEdit
from core.errors import EditConflict, InvalidRequest, UpstreamUnavailable
from edits.apply import apply_edits
from edits.diffs import content_hash
from edits.lock import EditLock
from edits.messages.reports import undo_plan_text
from edits.proposals import SqliteProposalStore, new_proposal
from edits.undo import plan_undo, undo_last
from tests.edit_fakes import InMemoryNoteWriter, write_settings

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
ORIGINAL = {"Inbox/a.md": "# A\n\nfirst\n", "Inbox/b.md": "# B\n", "Projects/p.md": "plan\n"}


@pytest.fixture
def writer() -> InMemoryNoteWriter:
    return InMemoryNoteWriter(ORIGINAL)


def propose(writer: InMemoryNoteWriter, path: str, after: str | None, *, new_path: str | None = None, ttl=30):
    return new_proposal(
        conversation_id="conv", operation="edit", path=path, before=writer.notes.get(path), after=after, now=NOW,
        ttl_minutes=ttl, new_path=new_path,
    )  # fmt: skip


def apply(proposals: list[ProposedEdit], writer, log, *, store=None, now=NOW, **settings):
    return asyncio.run(
        apply_edits(proposals, writer=writer, log=log, settings=write_settings(**settings), now=now, store=store)
    )


def undo(writer, log, *, confirm: bool):
    return asyncio.run(undo_last(writer=writer, log=log, now=NOW + timedelta(minutes=1), confirm=confirm))


def test_an_approved_edit_is_written_verified_and_logged(writer, log, tmp_path: Path) -> None:
    store = SqliteProposalStore(tmp_path / "p.sqlite")
    edit = propose(writer, "Inbox/a.md", "# A\n\nfirst\nsecond\n")
    store.add(edit)
    report = apply([edit], writer, log, store=store)
    assert [o.status for o in report.outcomes] == ["applied"]
    assert writer.notes["Inbox/a.md"] == "# A\n\nfirst\nsecond\n"
    assert store.get(edit.id).status == "applied"  # type: ignore[union-attr]
    [entry] = log.list()
    assert (entry.status, entry.proposal_id, entry.conversation_id) == ("applied", edit.id, "conv")
    assert entry.hash_before == content_hash(ORIGINAL["Inbox/a.md"])
    assert entry.hash_after == content_hash("# A\n\nfirst\nsecond\n")
    assert log.snapshot_text(entry) == ORIGINAL["Inbox/a.md"]
    store.close()


def test_a_note_changed_since_the_proposal_is_never_overwritten(writer, log) -> None:
    edit = propose(writer, "Inbox/a.md", "model text\n")
    writer.notes["Inbox/a.md"] = "the user's own edit\n"
    report = apply([edit], writer, log)
    assert report.outcomes[0].status == "conflict"
    assert "changed since the proposal" in report.outcomes[0].message
    assert writer.notes["Inbox/a.md"] == "the user's own edit\n"
    assert log.list() == []


def test_create_writes_a_new_note_and_refuses_if_it_appeared_meanwhile(writer, log) -> None:
    create = propose(writer, "Inbox/new.md", "hello\n")
    assert apply([create], writer, log).outcomes[0].status == "applied"
    assert writer.notes["Inbox/new.md"] == "hello\n"
    late = propose(writer, "Inbox/late.md", "mine\n")
    writer.notes["Inbox/late.md"] = "someone else's\n"
    report = apply([late], writer, log)
    assert (report.outcomes[0].status, writer.notes["Inbox/late.md"]) == ("conflict", "someone else's\n")


def test_delete_moves_the_note_to_trash(writer, log) -> None:
    report = apply([propose(writer, "Inbox/b.md", None)], writer, log)
    assert report.outcomes[0].status == "applied"
    assert "Inbox/b.md" not in writer.notes
    assert writer.notes[".trash/Inbox/b.md"] == "# B\n"


def test_move_renames_and_refuses_an_existing_target(writer, log) -> None:
    clash = propose(writer, "Inbox/a.md", ORIGINAL["Inbox/a.md"], new_path="Inbox/b.md")
    outcome = apply([clash], writer, log).outcomes[0]
    assert (outcome.status, outcome.message) == ("conflict", "a note already exists at Inbox/b.md; nothing was written")
    assert writer.notes == ORIGINAL
    move = propose(writer, "Inbox/a.md", ORIGINAL["Inbox/a.md"], new_path="Projects/a.md")
    assert apply([move], writer, log).outcomes[0].status == "applied"
    assert "Inbox/a.md" not in writer.notes and writer.notes["Projects/a.md"] == ORIGINAL["Inbox/a.md"]


def test_undo_shows_the_plan_then_restores_the_whole_change_set(writer, log) -> None:
    edits = [propose(writer, "Inbox/a.md", "changed\n"), propose(writer, "Inbox/b.md", None),
             propose(writer, "Projects/p.md", "plan\n", new_path="Projects/done/p.md")]  # fmt: skip
    assert [o.status for o in apply(edits, writer, log).outcomes] == ["applied"] * 3
    plan = undo(writer, log, confirm=False)
    assert sorted(step.action for step in plan.steps) == ["bring_back", "move_back", "restore"]
    assert not plan.is_applied and writer.notes["Inbox/a.md"] == "changed\n"
    done = undo(writer, log, confirm=True)
    assert done.is_applied and done.change_set_id == plan.change_set_id
    assert writer.notes == ORIGINAL  # nothing left behind: not the moved note, not the trashed copy
    assert undo(writer, log, confirm=False).change_set_id is None  # nothing left; an undo is not undone
    assert {entry.status for entry in log.list() if entry.undoes is None} == {"undone"}
    assert {entry.undoes for entry in log.list() if entry.undoes} == {plan.change_set_id}


def test_undo_reaches_the_set_before_after_the_last_one_was_undone(writer, log) -> None:
    apply([propose(writer, "Inbox/a.md", "v2\n")], writer, log)
    apply([propose(writer, "Inbox/a.md", "v3\n")], writer, log)
    undo(writer, log, confirm=True)
    assert writer.notes["Inbox/a.md"] == "v2\n"
    undo(writer, log, confirm=True)
    assert writer.notes["Inbox/a.md"] == ORIGINAL["Inbox/a.md"]


def test_undo_of_a_created_note_puts_it_in_the_trash(writer, log) -> None:
    apply([propose(writer, "Inbox/new.md", "hello\n")], writer, log)
    plan = undo(writer, log, confirm=True)
    assert [step.action for step in plan.steps] == ["trash"]
    assert "Inbox/new.md" not in writer.notes and writer.notes[".trash/Inbox/new.md"] == "hello\n"


def test_undo_after_a_later_edit_warns_and_does_not_overwrite(writer, log) -> None:
    apply([propose(writer, "Inbox/a.md", "by the librarian\n"), propose(writer, "Inbox/b.md", "b2\n")], writer, log)
    writer.notes["Inbox/a.md"] = "edited later by the user\n"
    plan = undo(writer, log, confirm=True)
    assert [step.path for step in plan.warnings] == ["Inbox/a.md"]
    assert "edited since" in plan.warnings[0].message
    assert writer.notes["Inbox/a.md"] == "edited later by the user\n"
    assert writer.notes["Inbox/b.md"] == ORIGINAL["Inbox/b.md"]


def test_a_crash_after_the_write_leaves_a_started_entry_that_undo_restores(writer, log) -> None:
    writer.crash = "after_write"
    with pytest.raises(RuntimeError):
        apply([propose(writer, "Inbox/a.md", "half way\n")], writer, log)
    assert [entry.status for entry in log.list()] == ["started"]
    writer.crash = None
    plan = undo(writer, log, confirm=True)
    assert [step.action for step in plan.steps] == ["restore"]
    assert writer.notes["Inbox/a.md"] == ORIGINAL["Inbox/a.md"]


def test_a_crash_before_the_write_leaves_the_note_as_it_was_and_undo_has_nothing_to_do(writer, log) -> None:
    writer.crash = "before_write"
    with pytest.raises(RuntimeError):
        apply([propose(writer, "Inbox/a.md", "never\n")], writer, log)
    writer.crash = None
    assert [entry.status for entry in log.list()] == ["started"]
    assert [step.action for step in undo(writer, log, confirm=True).steps] == ["nothing"]
    assert writer.notes == ORIGINAL


class LockedWriter(InMemoryNoteWriter):
    async def delete(self, path: str) -> str:
        raise EditConflict(f"{path} is locked")


def test_a_writer_error_skips_the_rest_of_the_set(log) -> None:
    writer = LockedWriter(ORIGINAL)
    report = apply([propose(writer, "Inbox/b.md", None), propose(writer, "Inbox/a.md", "x\n")], writer, log)
    assert [o.status for o in report.outcomes] == ["failed", "skipped"]
    assert "locked" in report.outcomes[0].message
    assert writer.notes == ORIGINAL


def test_expired_proposals_are_not_applied(writer, log) -> None:
    edit = propose(writer, "Inbox/a.md", "late\n", ttl=5)
    report = apply([edit], writer, log, now=NOW + timedelta(minutes=6))
    assert report.outcomes[0].status == "expired"
    assert writer.notes == ORIGINAL


def test_more_writes_than_allowed_per_turn_write_nothing(writer, log) -> None:
    edits = [propose(writer, f"Inbox/n{i}.md", "x\n") for i in range(3)]
    with pytest.raises(InvalidRequest, match="at most 2"):
        apply(edits, writer, log, max_writes_per_turn=2)
    assert writer.notes == ORIGINAL and log.list() == []


def test_scope_and_size_are_checked_again_at_apply_time(writer, log) -> None:
    outside = propose(writer, "Projects/p.md", "changed\n")
    big = propose(writer, "Inbox/a.md", "x" * 100)
    dotted = propose(writer, "Inbox/a.md", "x\n", new_path=".obsidian/a.md")
    report = apply([outside, big, dotted], writer, log, writable_folders=("Inbox",), max_note_bytes=50)
    assert [o.status for o in report.outcomes] == ["refused"] * 3
    assert "outside the writable folders" in report.outcomes[0].message
    assert "above the limit" in report.outcomes[1].message
    assert "dot folders" in report.outcomes[2].message
    assert writer.notes == ORIGINAL


def test_a_read_only_vault_writes_nothing(log) -> None:
    writer = InMemoryNoteWriter(ORIGINAL, available=False)
    with pytest.raises(UpstreamUnavailable, match="read-only"):
        apply([propose(writer, "Inbox/a.md", "x\n")], writer, log)
    assert writer.notes == ORIGINAL


def test_an_already_decided_proposal_is_not_applied_twice(writer, log, tmp_path: Path) -> None:
    store = SqliteProposalStore(tmp_path / "p.sqlite")
    edit = propose(writer, "Inbox/a.md", "once\n")
    store.add(edit)
    apply([edit], writer, log, store=store)
    again = store.get(edit.id)
    assert again is not None
    assert apply([again], writer, log).outcomes[0].status == "refused"
    store.close()


def test_undo_plans_two_edits_of_one_note_as_two_restores_and_applies_them(writer, log) -> None:
    first = propose(writer, "Inbox/a.md", "# A\n\nfirst\ntagged\n")
    second = new_proposal(
        conversation_id="conv", operation="edit", path="Inbox/a.md", before=first.new_text,
        after="# A\n\nfirst\ntagged\nappended\n", now=NOW, ttl_minutes=30, depends_on=first.id,
    )  # fmt: skip
    apply([first, second], writer, log)

    plan = undo(writer, log, confirm=False)
    assert [step.action for step in plan.steps] == ["restore", "restore"] and not plan.warnings
    undo(writer, log, confirm=True)
    assert writer.notes["Inbox/a.md"] == ORIGINAL["Inbox/a.md"]


def test_a_move_whose_text_write_failed_is_reported_and_can_be_moved_back(writer, log) -> None:
    move = propose(writer, "Projects/p.md", "plan with updated links\n", new_path="Archive/p.md")
    writer.crash = "before_write"  # the rename goes through, writing the updated text fails
    with pytest.raises(RuntimeError):  # a crash (not an AppError) escapes: the log keeps the entry "started"
        apply([move], writer, log)
    writer.crash = None
    assert "Archive/p.md" in writer.notes and "Projects/p.md" not in writer.notes

    plan = undo(writer, log, confirm=False)
    assert [step.action for step in plan.steps] == ["move_back"]
    undo(writer, log, confirm=True)
    assert writer.notes == ORIGINAL


class FailingReads(InMemoryNoteWriter):
    def __init__(self, notes: dict[str, str], failing: str) -> None:
        super().__init__(notes)
        self.failing = failing

    async def read(self, path: str) -> str | None:
        if path == self.failing:
            raise UpstreamUnavailable("the vault writer (memory)", "Obsidian closed")
        return await super().read(path)


def test_a_writer_error_mid_set_reports_what_was_applied_and_skips_the_rest(log) -> None:
    writer = FailingReads(ORIGINAL, failing="Inbox/b.md")
    edits = [
        propose(writer, "Inbox/a.md", "# A\n\nchanged\n"),
        new_proposal(conversation_id="conv", operation="edit", path="Inbox/b.md", before="# B\n", after="# B2\n",
                     now=NOW, ttl_minutes=30),
        propose(writer, "Projects/p.md", "plan 2\n"),
    ]  # fmt: skip
    report = apply(edits, writer, log)
    assert [o.status for o in report.outcomes] == ["applied", "failed", "skipped"]
    assert "Obsidian closed" in report.outcomes[1].message
    assert writer.notes["Inbox/a.md"] == "# A\n\nchanged\n" and writer.notes["Projects/p.md"] == "plan\n"


def test_a_note_already_as_proposed_counts_as_applied_but_writes_and_logs_nothing(writer, log) -> None:
    edit = propose(writer, "Inbox/a.md", "# A\n\nupdated\n")
    writer.notes["Inbox/a.md"] = "# A\n\nupdated\n"  # e.g. Obsidian rewrote the link itself
    report = apply([edit], writer, log)
    assert [o.status for o in report.outcomes] == ["unchanged"]
    assert report.applied and not report.written and log.list() == []


# -- an undo tells the truth: nothing to write is never "done", deletes come back from the trash -------------


def test_an_undo_that_could_only_overwrite_the_users_edit_is_not_offered_and_stays_undoable(writer, log) -> None:
    apply([propose(writer, "Inbox/b.md", "b2\n")], writer, log)
    applied = "# A\n\nfirst\nappended\n"
    apply([propose(writer, "Inbox/a.md", applied)], writer, log)
    last = log.last_change_set()[0].change_set_id
    writer.notes["Inbox/a.md"] = "the user's own edit\n"

    plan = undo(writer, log, confirm=False)
    done = undo(writer, log, confirm=True)

    assert [step.action for step in plan.steps] == ["conflict"] and not plan.has_writes
    text = undo_plan_text(plan)
    assert "cannot be undone without overwriting" in text and "Reply **yes**" not in text
    assert not done.is_applied and not done.has_writes and undo_plan_text(done) == text
    assert writer.notes["Inbox/a.md"] == "the user's own edit\n" and writer.notes["Inbox/b.md"] == "b2\n"
    assert [entry.undoes for entry in log.list()] == [None, None]  # no undo entry, nothing marked undone
    assert undo(writer, log, confirm=False).change_set_id == last  # the next undo does not reach the older set

    writer.notes["Inbox/a.md"] = applied  # the user takes their edit back: the change is undoable again
    again = undo(writer, log, confirm=True)

    assert again.is_applied and again.change_set_id == last
    assert writer.notes["Inbox/a.md"] == ORIGINAL["Inbox/a.md"] and writer.notes["Inbox/b.md"] == "b2\n"


def test_an_undo_whose_notes_already_read_as_before_asks_nothing_and_confirming_marks_it_undone(writer, log) -> None:
    apply([propose(writer, "Inbox/a.md", "changed\n")], writer, log)
    writer.notes["Inbox/a.md"] = ORIGINAL["Inbox/a.md"]  # reverted by hand

    plan = undo(writer, log, confirm=False)

    assert [step.action for step in plan.steps] == ["nothing"] and not plan.has_writes and not plan.warnings
    assert "already read as they did before it" in undo_plan_text(plan) and "yes" not in undo_plan_text(plan)
    done = undo(writer, log, confirm=True)
    assert done.is_applied and "nothing was written" in undo_plan_text(done)
    assert writer.notes == ORIGINAL and undo(writer, log, confirm=False).change_set_id is None


def test_a_partial_undo_restores_what_it_can_and_is_marked_undone(writer, log) -> None:
    apply([propose(writer, "Inbox/a.md", "by the librarian\n"), propose(writer, "Inbox/b.md", "b2\n")], writer, log)
    writer.notes["Inbox/a.md"] = "edited later by the user\n"

    plan = undo(writer, log, confirm=False)
    done = undo(writer, log, confirm=True)

    assert plan.has_writes and "Reply **yes** to undo it" in undo_plan_text(plan)
    assert done.is_applied and [step.path for step in done.warnings] == ["Inbox/a.md"]
    assert undo_plan_text(done).endswith("were left as they are.")
    assert undo(writer, log, confirm=False).change_set_id is None


def test_undo_of_a_delete_brings_the_trashed_note_back_and_leaves_no_copy(writer, log) -> None:
    writer.notes[".trash/Inbox/b.md"] = "an older note of that name\n"
    apply([propose(writer, "Inbox/b.md", None)], writer, log)
    [entry] = log.list()
    assert (entry.kind, entry.path, entry.new_path) == ("delete", "Inbox/b.md", ".trash/Inbox/b 1.md")

    plan = undo(writer, log, confirm=False)
    done = undo(writer, log, confirm=True)

    assert [(step.action, step.message) for step in plan.steps] == [
        ("bring_back", "bring back Inbox/b.md from .trash/Inbox/b 1.md")
    ]
    assert [step.message for step in done.steps] == ["brought Inbox/b.md back from .trash/Inbox/b 1.md"]
    assert writer.notes == {**ORIGINAL, ".trash/Inbox/b.md": "an older note of that name\n"}
    undone = log.list()[0]
    assert (undone.kind, undone.path, undone.new_path, undone.undoes) == (
        "move", ".trash/Inbox/b 1.md", "Inbox/b.md", entry.change_set_id
    )  # fmt: skip


@pytest.mark.parametrize("trash_copy", [None, "emptied by the user\n"], ids=["gone", "changed"])
def test_undo_of_a_delete_whose_trash_copy_is_gone_or_changed_writes_the_text_again(
    writer, log, trash_copy: str | None
) -> None:
    apply([propose(writer, "Inbox/b.md", None)], writer, log)
    del writer.notes[".trash/Inbox/b.md"]
    if trash_copy is not None:
        writer.notes[".trash/Inbox/b.md"] = trash_copy

    plan = undo(writer, log, confirm=False)
    undo(writer, log, confirm=True)

    assert [step.action for step in plan.steps] == ["restore"]
    assert plan.steps[0].message == (
        "write Inbox/b.md again from the change log's copy (its copy .trash/Inbox/b.md is gone or was changed)"
    )
    assert writer.notes["Inbox/b.md"] == ORIGINAL["Inbox/b.md"]
    assert writer.notes.get(".trash/Inbox/b.md") == trash_copy  # a changed copy is the user's: left alone


def test_a_done_undo_tells_what_it_did_and_the_plan_what_it_will_do(writer, log) -> None:
    edits = [propose(writer, "Inbox/a.md", "changed\n"), propose(writer, "Inbox/new.md", "hello\n"),
             propose(writer, "Inbox/b.md", None),
             propose(writer, "Projects/p.md", "plan\n", new_path="Archive/p.md")]  # fmt: skip
    apply(edits, writer, log)

    planned = undo_plan_text(undo(writer, log, confirm=False))
    done = undo(writer, log, confirm=True)

    assert [step.message for step in done.steps] == [  # undone newest first
        "moved Archive/p.md back to Projects/p.md",
        "brought Inbox/b.md back from .trash/Inbox/b.md",
        "Inbox/new.md was created by the change; moved it to .trash/Inbox/new.md",
        "restored the previous text of Inbox/a.md",
    ]
    assert "it goes to .trash/" in planned and "restore the previous text of Inbox/a.md" in planned
    text = undo_plan_text(done)
    assert text.startswith("Undone change set") and "Reply" not in text
    assert "goes to" not in text and "restore the previous" not in text and "bring back" not in text
    [trashing] = [entry for entry in log.list() if entry.undoes and entry.kind == "delete"]
    assert trashing.new_path == ".trash/Inbox/new.md"  # the undo's own trashing is logged with its path


def test_confirming_a_mistyped_change_set_names_the_last_one(writer, log) -> None:
    apply([propose(writer, "Inbox/a.md", "changed\n")], writer, log)
    last = log.last_change_set()[0].change_set_id

    def confirm(expected: str):
        return asyncio.run(undo_last(writer=writer, log=log, now=NOW, confirm=True, expected=expected))

    with pytest.raises(EditConflict, match=f"the last change set is now {last}, not abc123; nothing was undone"):
        confirm("abc123")
    assert writer.notes["Inbox/a.md"] == "changed\n"
    confirm(last)
    with pytest.raises(EditConflict, match=f"no change set left to undo, so change set {last} cannot be undone"):
        confirm(last)


class CrashingDelete(InMemoryNoteWriter):
    async def delete(self, path: str) -> str:
        await super().delete(path)
        raise RuntimeError("simulated crash after the note went to the trash")


def test_a_delete_cut_short_by_a_crash_is_undone_from_its_snapshot(log) -> None:
    writer = CrashingDelete(ORIGINAL)
    with pytest.raises(RuntimeError):
        apply([propose(writer, "Inbox/b.md", None)], writer, log)
    [entry] = log.list()
    assert (entry.status, entry.new_path) == ("started", None)  # where it went was never recorded

    done = undo(writer, log, confirm=True)

    assert [(s.action, s.message) for s in done.steps] == [
        ("restore", "wrote Inbox/b.md again from the change log's copy")
    ]
    assert writer.notes["Inbox/b.md"] == ORIGINAL["Inbox/b.md"]


def test_plan_undo_clears_a_set_whose_notes_already_read_as_before_and_offers_the_one_before(
    writer, log, tmp_path: Path
) -> None:
    first = propose(writer, "Inbox/b.md", "# B\n\nfirst change\n")
    apply([first], writer, log)
    second = propose(writer, "Inbox/a.md", "# A\n\nsecond change\n")
    apply([second], writer, log)
    writer.notes["Inbox/a.md"] = ORIGINAL["Inbox/a.md"]  # the user reverted the second change by hand

    plan = asyncio.run(
        plan_undo(writer=writer, log=log, now=NOW + timedelta(minutes=1), lock=EditLock(tmp_path / "edits.lock"))
    )

    assert [step.path for step in plan.steps] == ["Inbox/b.md"] and plan.has_writes
    assert writer.notes["Inbox/a.md"] == ORIGINAL["Inbox/a.md"]  # clearing wrote nothing


def test_a_rename_is_held_back_whole_when_one_of_its_link_updates_changed_since(writer, log) -> None:
    writer.notes.update({"Old.md": "old\n", "A.md": "see [[Old]]\n", "B.md": "also [[Old]]\n"})
    move = propose(writer, "Old.md", "old\n", new_path="New.md")
    first = new_proposal(
        conversation_id="conv", operation="update links", path="A.md", before="see [[Old]]\n", after="see [[New]]\n",
        now=NOW, ttl_minutes=30, depends_on=move.id,
    )  # fmt: skip
    second = new_proposal(
        conversation_id="conv", operation="update links", path="B.md", before="also [[Old]]\n",
        after="also [[New]]\n", now=NOW, ttl_minutes=30, depends_on=move.id,
    )  # fmt: skip
    writer.notes["B.md"] = "also [[Old]]\nand a line typed since\n"

    report = apply([move, first, second], writer, log)

    assert [o.status for o in report.outcomes] == ["conflict"] * 3 and not report.written
    assert "B.md changed since the proposal" in report.outcomes[0].message
    assert "Old.md" in writer.notes and writer.notes["A.md"] == "see [[Old]]\n" and log.list() == []
