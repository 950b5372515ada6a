"""Undo of a change set (the last, or one by id): plan it, then (confirmed) restore it, never over a later edit.

Notes a change created go to `.trash/`, deleted notes come back from `.trash/`, moved notes move back, edited notes
get their snapshot back; a note edited since the change is left as it is, with a warning step ("conflict"). The
folders a change created for its note are removed once that note has left them, if they are empty by then.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from core.edits import (
    AppliedChange,
    EditKind,
    UndoAction,
    UndoPlan,
    UndoStep,
)
from core.errors import EditConflict, InvalidRequest, NotFound, UpstreamUnavailable
from core.ports import NoteWriter
from core.tracing import span
from edits.changelog import ChangeStart, SqliteChangeLog, new_change_set_id
from edits.diffs import content_hash
from edits.lock import EditLock
from edits.writers.folders import deepest_first, parent_folders, remove_empty_folders

# The steps that take a note out of the folder the change put it in, so the folders it created may be left empty.
_LEAVES_FOLDERS: frozenset[UndoAction] = frozenset({"trash", "move_back"})


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
    return await _undo_set(last, changes, writer=writer, log=log, now=now, confirm=confirm)


async def undo_change_set(
    change_set_id: str, *, writer: NoteWriter, log: SqliteChangeLog, now: datetime, confirm: bool
) -> UndoPlan:
    """Return what undoing the change set `change_set_id` would do; with `confirm`, do it and log the undo.

    The same rules as `undo_last`, for any set, not only the last: a note edited since the set (by the user or a
    later change set) is left as it is with a warning step, notes the set created go to `.trash/`. The caller
    holds the EditLock around a confirmed undo.

    Raises:
        NotFound: no change set has that id.
        EditConflict: the set was undone already.
        InvalidRequest: the set is itself an undo.
        UpstreamUnavailable: the writer cannot write now (nothing is undone).

    """
    changes = log.change_set(change_set_id)
    if not changes:
        raise NotFound(f"there is no change set {change_set_id!r} in the change log")
    if changes[0].undoes is not None:
        raise InvalidRequest(
            f"change set {change_set_id} is the undo of {changes[0].undoes}; an undo is not undone, apply the "
            "change again instead"
        )
    if all(change.status == "undone" for change in changes):
        raise EditConflict(f"change set {change_set_id} was already undone; nothing was changed")
    return await _undo_set(change_set_id, changes, writer=writer, log=log, now=now, confirm=confirm)


async def _undo_set(
    change_set_id: str,
    changes: list[AppliedChange],
    *,
    writer: NoteWriter,
    log: SqliteChangeLog,
    now: datetime,
    confirm: bool,
) -> UndoPlan:
    files = sorted({change.path for change in changes})
    with span("undo_changes" if confirm else "plan_undo", {"librarian.change_set.id": change_set_id}) as traced:
        traced.set_attribute("librarian.edit.files", files)
        plan = await _plan_or_undo(change_set_id, changes, writer=writer, log=log, now=now, confirm=confirm)
        traced.set_attribute("librarian.undo.writes", sum(step.is_write for step in plan.steps))
        traced.set_attribute("librarian.undo.conflicts", sum(step.action == "conflict" for step in plan.steps))
        traced.set_attribute("librarian.undo.is_applied", plan.is_applied)
    return plan


async def _plan_or_undo(
    change_set_id: str,
    changes: list[AppliedChange],
    *,
    writer: NoteWriter,
    log: SqliteChangeLog,
    now: datetime,
    confirm: bool,
) -> UndoPlan:
    if confirm and not await writer.is_available():
        raise UpstreamUnavailable(f"the vault writer ({writer.name})", "the vault is read-only right now")
    undo_set = new_change_set_id()
    steps: list[UndoStep] = []
    # A plan not yet confirmed reads each note as the earlier steps will have left it, so two edits of one note
    # in the set plan as two restores, not as "edited since".
    preview = _Preview(writer, log, simulate=not confirm)
    for change in reversed(changes):
        step = await _plan_step(change, preview)
        folders = _created_folders(change, log) if step.action in _LEAVES_FOLDERS else ()
        if confirm and step.is_write:
            step = await _undo_one(change, step, undo_set, writer=writer, log=log, now=now, folders=folders)
        elif folders:
            verb = "go" if len(folders) > 1 else "goes"
            step = replace(step, message=f"{step.message}, and {_folders_text(folders)} {verb} too when empty")
        preview.record(change, step)
        steps.append(step)
    plan = UndoPlan(change_set_id=change_set_id, steps=tuple(steps))
    if not confirm or (not plan.has_writes and plan.warnings):
        return plan
    # Every note already read as before (or some were restored): the set is undone, and the next undo goes further.
    log.mark_undone(change_set_id)
    return UndoPlan(change_set_id=change_set_id, steps=plan.steps, is_applied=True)


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
    change: AppliedChange,
    step: UndoStep,
    undo_set: str,
    *,
    writer: NoteWriter,
    log: SqliteChangeLog,
    now: datetime,
    folders: tuple[str, ...],
) -> UndoStep:
    """Carry out one planned step, logged like any write, then remove the emptied `folders`; return what it did."""
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
    removed = await remove_empty_folders(writer, folders)
    message = _done_message(change, step, trashed)
    return replace(step, message=f"{message} and removed {_folders_text(removed)}" if removed else message)


def _created_folders(change: AppliedChange, log: SqliteChangeLog) -> tuple[str, ...]:
    """Return the folders the change created that hold its note, deepest first.

    Only folders above the note the change wrote can qualify, so a hand-edited change log cannot point undo at any
    other folder; the writer still removes each only when it is empty and inside the vault.
    """
    note = change.new_path if change.kind == "move" and change.new_path else change.path
    holding = set(parent_folders(note))
    return tuple(deepest_first([folder for folder in log.created_folders(change) if folder in holding]))


def _folders_text(folders: tuple[str, ...]) -> str:
    noun = "folders" if len(folders) > 1 else "folder"
    return f"the {noun} it created ({', '.join(folders)})"


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
