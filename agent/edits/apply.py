"""Apply approved proposals through a NoteWriter, never over a user's edit, and undo the last change set.

Only code reached after a strict approval calls `apply_edits`; the model has no tool that gets here. Each write is
preceded by a write-ahead snapshot in the change log, so a crash between snapshot and write stays undoable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from agent.edits.changelog import ChangeStart, SqliteChangeLog, new_change_set_id
from agent.edits.diffs import content_hash
from agent.edits.lock import EditLock
from agent.edits.proposals import SqliteProposalStore
from agent.edits.scope import check_size, check_writable
from core.edits import (
    AppliedChange,
    ApplyReport,
    EditKind,
    EditOutcome,
    OutcomeStatus,
    ProposalStatus,
    ProposedEdit,
    UndoAction,
    UndoPlan,
    UndoStep,
)
from core.errors import AppError, EditConflict, InvalidRequest, UpstreamUnavailable
from core.ports import NoteWriter
from core.settings import WriteSettings

_PROPOSAL_STATUS: dict[OutcomeStatus, ProposalStatus] = {
    "applied": "applied",
    "unverified": "applied",
    "unchanged": "applied",
    "conflict": "conflict",
    "expired": "expired",
    "refused": "discarded",
    "failed": "discarded",
    "skipped": "discarded",
}


async def apply_edits(
    proposals: Sequence[ProposedEdit],
    *,
    writer: NoteWriter,
    log: SqliteChangeLog,
    settings: WriteSettings,
    now: datetime,
    store: SqliteProposalStore | None = None,
) -> ApplyReport:
    """Apply approved proposals as one change set and return what happened to each.

    A note whose text changed since its proposal is never overwritten (outcome "conflict"). After a writer
    error the rest of the set is skipped; the log keeps that entry "started" so undo can compare and restore.

    Args:
        proposals: exactly the proposals the user approved.
        writer: the NoteWriter that reads and writes the vault.
        log: the change log that snapshots each note before it is written.
        settings: scope and limits, checked again at apply time.
        now: the current time (proposals past their expiry are not applied).
        store: when given, each proposal's final status is recorded there.

    Raises:
        InvalidRequest: more proposals than MAX_WRITES_PER_TURN (nothing is written).
        UpstreamUnavailable: the writer cannot write now (nothing is written).

    """
    if len(proposals) > settings.max_writes_per_turn:
        raise InvalidRequest(
            f"{len(proposals)} changes were approved but at most {settings.max_writes_per_turn} are applied per "
            "turn; nothing was written. Approve fewer by id."
        )
    if proposals and not await writer.is_available():
        raise UpstreamUnavailable(f"the vault writer ({writer.name})", "the vault is read-only right now")
    change_set_id = new_change_set_id()
    outcomes: list[EditOutcome] = []
    applied: set[str] = set()
    for proposal in proposals:
        skip = _skip_reason(proposal, outcomes, applied)
        if skip:
            outcome = EditOutcome(proposal.id, proposal.path, "skipped", skip)
        else:
            try:
                outcome = await _apply_one(proposal, change_set_id, writer=writer, log=log, settings=settings, now=now)
            except AppError as exc:  # e.g. Obsidian closed mid-set: report it, keep what was already applied
                message = f"the {writer.name} writer failed: {exc.message}"
                outcome = EditOutcome(proposal.id, proposal.path, "failed", message)
        if outcome.status in ("applied", "unverified", "unchanged"):
            applied.add(proposal.id)
        outcomes.append(outcome)
        if store is not None:
            store.mark(proposal.id, _PROPOSAL_STATUS[outcome.status])
    return ApplyReport(change_set_id=change_set_id, outcomes=tuple(outcomes))


def _skip_reason(proposal: ProposedEdit, outcomes: Sequence[EditOutcome], applied: set[str]) -> str:
    if any(outcome.status == "failed" for outcome in outcomes):
        return "not applied: an earlier change failed"
    if proposal.depends_on is not None and proposal.depends_on not in applied:
        return f"not applied: it builds on change {proposal.depends_on}, which was not applied with it"
    return ""


async def _apply_one(
    proposal: ProposedEdit,
    change_set_id: str,
    *,
    writer: NoteWriter,
    log: SqliteChangeLog,
    settings: WriteSettings,
    now: datetime,
) -> EditOutcome:
    def outcome(status: OutcomeStatus, message: str) -> EditOutcome:
        return EditOutcome(proposal.id, proposal.path, status, message)

    if proposal.status != "pending":
        return outcome("refused", f"the proposal was already {proposal.status}")
    if proposal.is_expired(now):
        return outcome("expired", "the proposal expired; ask again for a fresh one")
    try:
        _check_scope(proposal, settings)
    except InvalidRequest as exc:
        return outcome("refused", exc.message)
    current = await writer.read(proposal.path)
    if proposal.new_path is None and current is not None and current == proposal.new_text:
        # Already as proposed (e.g. Obsidian updated this link itself when it moved the note): nothing to write.
        return outcome("unchanged", f"{proposal.operation}: {proposal.path} already reads as proposed")
    conflict = await _conflict(proposal, current, writer)
    if conflict:
        return outcome("conflict", f"{conflict}; nothing was written")
    expected = None if proposal.new_text is None else content_hash(proposal.new_text)
    start = ChangeStart(
        change_set_id=change_set_id,
        conversation_id=proposal.conversation_id,
        proposal_id=proposal.id,
        operation=proposal.operation,
        kind=proposal.kind,
        path=proposal.path,
        new_path=proposal.new_path,
        before=current,
        hash_before=proposal.base_hash,
        hash_after=expected,
    )
    change_id = log.begin(start, now=now)
    try:
        trashed = await _write(proposal, writer)
        after = await writer.read(proposal.new_path or proposal.path)
    except AppError as exc:
        return outcome("failed", f"the {writer.name} writer failed: {exc.message}")
    actual = None if after is None else content_hash(after)
    log.finish(change_id, hash_after=actual, trash_path=trashed)
    if actual != expected:
        return outcome("unverified", "written, but the note reads back differently than proposed; check it")
    return outcome("applied", f"{proposal.operation}: {proposal.new_path or proposal.path} (via {writer.name})")


def _check_scope(proposal: ProposedEdit, settings: WriteSettings) -> None:
    # Checked again at apply time: settings may have changed since the proposal, and proposals are data.
    for path in (proposal.path, proposal.new_path):
        if path is not None and check_writable(path, settings=settings) != path:
            raise InvalidRequest(f"{path!r} is not a normalised vault path")
    if proposal.new_text is not None:
        check_size(proposal.new_text, settings=settings)


async def _conflict(proposal: ProposedEdit, current: str | None, writer: NoteWriter) -> str:
    current_hash = None if current is None else content_hash(current)
    if current_hash == proposal.base_hash:
        if proposal.new_path is not None and await writer.read(proposal.new_path) is not None:
            return f"a note already exists at {proposal.new_path}"
        return ""
    if proposal.base_hash is None:
        return f"{proposal.path} was created since the proposal"
    if current is None:
        return f"{proposal.path} was deleted or moved since the proposal"
    return f"{proposal.path} changed since the proposal"


async def _write(proposal: ProposedEdit, writer: NoteWriter) -> str | None:
    """Carry the proposal out; return where a delete put the note in `.trash/` (None for other edits)."""
    if proposal.new_path is not None:
        await writer.move(proposal.path, proposal.new_path)
        if proposal.new_text is not None and content_hash(proposal.new_text) != proposal.base_hash:
            await writer.write(proposal.new_path, proposal.new_text)
    elif proposal.new_text is None:
        return await writer.delete(proposal.path)
    else:
        await writer.write(proposal.path, proposal.new_text)
    return None


async def undo_last(
    *, writer: NoteWriter, log: SqliteChangeLog, now: datetime, confirm: bool, expected: str | None = None
) -> UndoPlan:
    """Return what undoing the last change set would do; with `confirm`, do it and log the undo.

    Notes the change created go to `.trash/`; a deleted note is brought back from `.trash/` (or written again from
    its snapshot when that copy is gone or changed); edited or moved notes get their previous text back; a note
    edited since the change is left as it is, with a warning step ("conflict"). A confirmed undo that would write
    nothing but left a conflict is not carried out: the set is not marked undone, so it stays undoable once the
    user puts their edit back (see `UndoPlan.has_writes`).

    Raises:
        EditConflict: `expected` names the change set the user was shown, and the last one is another by now.
        UpstreamUnavailable: the writer cannot write now (nothing is undone).

    """
    changes = log.last_change_set()
    last = changes[0].change_set_id if changes else None
    if expected is not None and last != expected:
        raise EditConflict(_not_last(expected, last))
    if last is None:
        return UndoPlan(change_set_id=None, steps=())
    if confirm and not await writer.is_available():
        raise UpstreamUnavailable(f"the vault writer ({writer.name})", "the vault is read-only right now")
    undo_set = new_change_set_id()
    steps: list[UndoStep] = []
    # A plan not yet confirmed reads each note as the earlier steps will have left it, so two edits of one note
    # in the set plan as two restores, not as "edited since".
    preview = _Preview(writer, log, simulate=not confirm)
    for change in reversed(changes):
        step = await _plan_step(change, preview)
        if confirm and step.is_write:
            step = await _undo_one(change, step, undo_set, writer=writer, log=log, now=now)
        preview.record(change, step)
        steps.append(step)
    plan = UndoPlan(change_set_id=last, steps=tuple(steps))
    if not confirm or (not plan.has_writes and plan.warnings):
        return plan
    # Every note already read as before (or some were restored): the set is undone, and the next undo goes further.
    log.mark_undone(last)
    return UndoPlan(change_set_id=last, steps=plan.steps, is_applied=True)


def _not_last(expected: str, last: str | None) -> str:
    if last is None:
        return f"there is no change set left to undo, so change set {expected} cannot be undone; nothing was changed."
    return (
        f"the last change set is now {last}, not {expected}; nothing was undone. "
        "Ask for the undo again to see what it would restore now."
    )


class _Preview:
    """The vault as undo will leave it: real reads, overlaid with the steps planned so far when only planning."""

    def __init__(self, writer: NoteWriter, log: SqliteChangeLog, *, simulate: bool) -> None:
        self._writer = writer
        self._log = log
        self._simulate = simulate
        self._overlay: dict[str, str | None] = {}

    async def read(self, path: str) -> str | None:
        """Return the note's text as it will be at this point of the undo."""
        return self._overlay[path] if path in self._overlay else await self._writer.read(path)

    def record(self, change: AppliedChange, step: UndoStep) -> None:
        """Lay a planned step over the vault (only when planning; a confirmed undo has really written it)."""
        if not self._simulate:
            return
        if step.action == "restore":
            self._overlay[change.path] = self._log.snapshot_text(change)
        elif step.action == "trash":
            self._overlay[change.path] = None
        elif step.action in ("move_back", "bring_back") and change.new_path is not None:
            self._overlay[change.new_path] = None
            self._overlay[change.path] = self._log.snapshot_text(change)


async def _plan_step(change: AppliedChange, writer: _Preview) -> UndoStep:
    current = await writer.read(change.path)
    current_hash = None if current is None else content_hash(current)

    def step(action: UndoAction, message: str, path: str = change.path) -> UndoStep:
        return UndoStep(change.id, path, action, message)

    if change.kind == "move" and change.new_path is not None:
        moved = await writer.read(change.new_path)
        moved_hash = None if moved is None else content_hash(moved)
        if current is None and moved_hash == change.hash_after:
            return step("move_back", f"move {change.new_path} back to {change.path}")
        if current is None and moved_hash == change.hash_before:  # moved, then the write of its links failed
            return step("move_back", f"move {change.new_path} back to {change.path} (its text was not changed)")
        if current_hash == change.hash_before and moved is None:
            return step("nothing", f"{change.path} was never moved")
        return step("conflict", f"{change.new_path} or {change.path} changed since; left as is", change.new_path)
    if current_hash == change.hash_before:
        return step("nothing", f"{change.path} is already as it was before the change")
    if change.kind == "delete" and current is None:
        trashed = None if change.new_path is None else await writer.read(change.new_path)
        if trashed is not None and content_hash(trashed) == change.hash_before:
            return step("bring_back", f"bring back {change.path} from {change.new_path}")
        # The trashed copy was emptied, edited or never recorded (a crash mid-delete): the snapshot has the text.
        gone = "" if change.new_path is None else f" (its copy {change.new_path} is gone or was changed)"
        return step("restore", f"write {change.path} again from the change log's copy{gone}")
    if current_hash == change.hash_after:
        if change.hash_before is None:
            return step("trash", f"{change.path} was created by the change; it goes to .trash/")
        return step("restore", f"restore the previous text of {change.path}")
    return step("conflict", f"{change.path} was edited since the change; it is left as is, not overwritten")


async def _undo_one(
    change: AppliedChange, step: UndoStep, undo_set: str, *, writer: NoteWriter, log: SqliteChangeLog, now: datetime
) -> UndoStep:
    """Carry out one planned step, logged like any write; return the step telling what it did."""
    previous = log.snapshot_text(change)
    moves_back = step.action in ("move_back", "bring_back") and change.new_path is not None
    source = change.new_path if moves_back and change.new_path else change.path
    current = await writer.read(source)
    kind: EditKind = "create" if current is None else "replace"
    if step.action == "trash":
        kind = "delete"
    elif moves_back:
        kind = "move"
    start = ChangeStart(
        change_set_id=undo_set,
        conversation_id=change.conversation_id,
        proposal_id=change.proposal_id,
        operation=f"undo {change.operation}",
        kind=kind,
        path=source,
        new_path=change.path if moves_back else None,
        before=current,
        hash_before=None if current is None else content_hash(current),
        hash_after=None if previous is None else content_hash(previous),
        undoes=change.change_set_id,
    )
    entry = log.begin(start, now=now)
    trashed = None
    if step.action == "trash":
        trashed = await writer.delete(change.path)
    elif moves_back:
        await writer.move(source, change.path)
        if previous is not None and previous != current:
            await writer.write(change.path, previous)
    elif previous is not None:
        await writer.write(change.path, previous)
    after = await writer.read(change.path)
    log.finish(entry, hash_after=None if after is None else content_hash(after), trash_path=trashed)
    return replace(step, message=_done_message(change, step, trashed))


def _done_message(change: AppliedChange, step: UndoStep, trashed: str | None) -> str:
    if step.action == "trash":
        return f"{change.path} was created by the change; moved it to {trashed}"
    if step.action == "bring_back":
        return f"brought {change.path} back from {change.new_path}"
    if step.action == "move_back":
        return f"moved {change.new_path} back to {change.path}"
    if change.kind == "delete":
        return f"wrote {change.path} again from the change log's copy"
    return f"restored the previous text of {change.path}"


async def plan_undo(*, writer: NoteWriter, log: SqliteChangeLog, now: datetime, lock: EditLock) -> UndoPlan:
    """Return the undo to offer: change sets whose notes already read as before are cleared first (nothing to ask).

    Such a set would otherwise stay "last" with nothing to confirm and block every older undo.
    """
    plan = await undo_last(writer=writer, log=log, now=now, confirm=False)
    while plan.change_set_id is not None and not plan.has_writes and not plan.warnings:
        async with lock.hold():
            await undo_last(writer=writer, log=log, now=now, confirm=True, expected=plan.change_set_id)
        plan = await undo_last(writer=writer, log=log, now=now, confirm=False)
    return plan
