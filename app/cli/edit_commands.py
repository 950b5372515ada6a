"""`librarian changes` and `librarian undo`: the change log of applied edits, and undoing the last change set."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from app.wiring import build_note_writer, open_change_log, open_edit_lock
from core.edits import UndoPlan
from core.errors import AppError
from core.settings import Settings

if TYPE_CHECKING:
    from core.ports import NoteWriter
    from edits.changelog import SqliteChangeLog
    from edits.lock import EditLock


def print_changes(console: Console, settings: Settings, limit: int) -> None:
    """Print the newest applied changes: time, change set, proposal, operation, paths, hashes."""
    log = open_change_log(settings)
    try:
        changes = log.list(limit)
    finally:
        log.close()
    if not changes:
        console.print("no changes have been applied yet")
        return
    for change in changes:
        target = f" → {change.new_path}" if change.new_path else ""
        hashes = f"{(change.hash_before or 'new')[:8]} → {(change.hash_after or 'gone')[:8]}"
        undo = f" (undoes {change.undoes})" if change.undoes else ""
        line = (
            f"{change.at:%Y-%m-%d %H:%M} set {change.change_set_id} proposal {change.proposal_id} "
            f"{change.operation} {change.path}{target} [{hashes}] {change.status}{undo}"
        )
        console.print(escape(line))  # plain text: "[f37bd24b → 02ffa339]" and "[draft].md" are no markup tags


def print_plan(console: Console, plan: UndoPlan) -> None:
    """Print what an undo restores (or restored), warnings included."""
    from edits.messages.reports import undo_headline

    if plan.change_set_id is None:
        console.print("nothing to undo")
        return
    head = undo_headline(plan, plan.change_set_id)
    console.print(escape(head))
    for step in plan.steps:
        mark = "[yellow]![/yellow]" if step.action == "conflict" else "-"
        console.print(f"  {mark} {escape(step.path)}: {escape(step.message)}")


async def _confirm_undo(writer: NoteWriter, log: SqliteChangeLog, lock: EditLock, *, expected: str) -> UndoPlan:
    from edits.undo import undo_last

    # `expected`: undo exactly the change set shown, not one applied while the prompt waited.
    async with lock.hold():
        return await undo_last(writer=writer, log=log, now=datetime.now(UTC), confirm=True, expected=expected)


def run_undo(console: Console, settings: Settings, *, assume_yes: bool, vault_root: Path) -> int:
    """Show the undo plan, ask for confirmation, apply it; return the exit code."""
    from app.cli.console import confirm
    from app.process.data_dir_vault import check_vault
    from edits.undo import plan_undo

    try:
        check_vault(settings.data_dir, vault_root)  # the change log of another vault's DATA_DIR is not this vault's
    except AppError as exc:
        console.print(f"[red]error:[/red] {escape(exc.message)}")
        return 1
    writer = build_note_writer(settings.with_vault(vault_root))
    if writer is None:
        console.print("[red]error:[/red] WRITE_BACKEND=none: the vault is read-only, so nothing can be undone")
        return 1
    log = open_change_log(settings)
    try:
        lock = open_edit_lock(settings)
        plan = asyncio.run(plan_undo(writer=writer, log=log, now=datetime.now(UTC), lock=lock))
        print_plan(console, plan)
        if plan.change_set_id is None or not plan.has_writes:
            return 0
        if not assume_yes and not confirm("Apply this undo?"):
            console.print("nothing changed")
            return 0
        done = asyncio.run(_confirm_undo(writer, log, lock, expected=plan.change_set_id))
        print_plan(console, done)
        return 0
    except AppError as exc:
        console.print(f"[red]error:[/red] {escape(exc.message)}")
        return 1
    finally:
        log.close()
