"""Apply approved proposals through a NoteWriter, never over a user's edit (undo lives in `edits.undo`).

Only code reached after a strict approval calls `apply_edits`; the model has no tool that gets here. Each write is
preceded by a write-ahead snapshot in the change log, so a crash between snapshot and write stays undoable.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from core.edits import (
    ApplyReport,
    EditOutcome,
    OutcomeStatus,
    ProposalStatus,
    ProposedEdit,
)
from core.errors import AppError, InvalidRequest, UpstreamUnavailable
from core.ports import NoteWriter
from core.settings import WriteSettings
from core.tracing import span
from edits.changelog import ChangeStart, SqliteChangeLog, new_change_set_id
from edits.diffs import content_hash
from edits.proposals import SqliteProposalStore
from edits.scope import check_size, check_writable
from edits.writers.folders import missing_folders

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
    change_set_id: str | None = None,
    max_writes: int | None = None,
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
        change_set_id: the change set to log the writes under (a crew run applies each of its actions tasks into
            its one set); a fresh one when None.
        max_writes: at most this many proposals (a crew's limit); MAX_WRITES_PER_TURN when None.

    Raises:
        InvalidRequest: more proposals than the limit (nothing is written).
        UpstreamUnavailable: the writer cannot write now (nothing is written).

    """
    _check_count(len(proposals), max_writes, settings)
    if change_set_id is not None:
        _check_open(change_set_id, log)
    if proposals and not await writer.is_available():
        raise UpstreamUnavailable(f"the vault writer ({writer.name})", "the vault is read-only right now")
    change_set_id = change_set_id or new_change_set_id()
    files = sorted({path for proposal in proposals for path in (proposal.path, proposal.new_path) if path})
    with span("apply_changes", {"librarian.change_set.id": change_set_id, "librarian.edit.files": files}) as traced:
        outcomes = await _apply_in_order(
            proposals, change_set_id, writer=writer, log=log, settings=settings, now=now, store=store
        )
        report = ApplyReport(change_set_id=change_set_id, outcomes=outcomes)
        traced.set_attribute("librarian.edit.written", len(report.written))
        traced.set_attribute("librarian.edit.conflicts", sum(o.status == "conflict" for o in outcomes))
    return report


async def _apply_in_order(
    proposals: Sequence[ProposedEdit],
    change_set_id: str,
    *,
    writer: NoteWriter,
    log: SqliteChangeLog,
    settings: WriteSettings,
    now: datetime,
    store: SqliteProposalStore | None,
) -> tuple[EditOutcome, ...]:
    outcomes: list[EditOutcome] = []
    applied: set[str] = set()
    held_back = await _changed_groups(proposals, writer)
    for proposal in proposals:
        skip = _skip_reason(proposal, outcomes, applied)
        if proposal.id in held_back:
            outcome = EditOutcome(proposal.id, proposal.path, "conflict", held_back[proposal.id])
        elif skip:
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
    return tuple(outcomes)


def _check_count(count: int, max_writes: int | None, settings: WriteSettings) -> None:
    if max_writes is None:
        if count > settings.max_writes_per_turn:
            raise InvalidRequest(
                f"{count} changes were approved but at most {settings.max_writes_per_turn} are applied per "
                "turn; nothing was written. Approve fewer by id."
            )
    elif count > max_writes:
        raise InvalidRequest(f"{count} changes exceed the limit of {max_writes} writes; nothing was written.")


def _check_open(change_set_id: str, log: SqliteChangeLog) -> None:
    # Writes added to a set that was undone (or to an undo) would be mixed into what undo already reverted.
    if any(entry.status == "undone" or entry.undoes for entry in log.change_set(change_set_id)):
        raise InvalidRequest(f"change set {change_set_id} was undone or is an undo; nothing more is added to it")


async def _changed_groups(proposals: Sequence[ProposedEdit], writer: NoteWriter) -> dict[str, str]:
    """Return, per proposal, why its whole group (a change and those built on it) must not be applied.

    A group is held back when any member's note changed since the proposal: a rename applied without one of its
    link updates would leave that note's links broken, and nothing could repair them afterwards.
    """
    in_set = {proposal.id for proposal in proposals}
    root: dict[str, str] = {}
    for proposal in proposals:
        parent = proposal.depends_on
        root[proposal.id] = root.get(parent, parent) if parent in in_set and parent is not None else proposal.id
    sizes = Counter(root.values())
    touched: dict[str, set[str]] = {}
    reasons: dict[str, str] = {}
    for proposal in proposals:
        group = root[proposal.id]
        if sizes[group] < 2 or group in reasons:
            continue
        seen = touched.setdefault(group, set())
        if proposal.path not in seen:  # the first member to touch a note expects it as it is now
            current = await writer.read(proposal.path)
            is_done = proposal.new_path is None and current is not None and current == proposal.new_text
            if not is_done and (None if current is None else content_hash(current)) != proposal.base_hash:
                reasons[group] = (
                    f"not applied: {proposal.path} changed since the proposal, and the changes proposed with it "
                    "only work together; nothing of them was written. Ask me again for a fresh proposal."
                )
        seen.update(path for path in (proposal.path, proposal.new_path) if path is not None)
    return {proposal.id: reasons[root[proposal.id]] for proposal in proposals if root[proposal.id] in reasons}


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
        # Logged before the write, like the snapshot: a crash after the folders are made still lets undo find them.
        created_folders=await missing_folders(writer, proposal.new_path or proposal.path),
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
