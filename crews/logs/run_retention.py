"""Run-log retention: after a run ends, its crew's oldest finished logs beyond the newest `keep` are removed.

Always kept, whatever their age: the run just written, runs not finished (going, or left `running` by a process
that died until recovery marks them), and runs whose writes can still be undone, since `librarian crew undo RUN`
and `/v1/crews/runs/RUN/undo` find a run's change set through its state.json (the snapshots themselves live in
DATA_DIR's change log). There is no "waiting for approval" run: the writes of a dry run shown in chat or over MCP
are copied into the proposal store when the run ends and never read from its log again.

Only run logs this code wrote are removed: a folder directly in the runs folder, no symlink, named as its
state.json's run id, holding nothing but state.json, run.md (with the run frontmatter), artifacts/ (plain files)
and write_atomically's temp files; anything else there (a note of the user's, a link) keeps the whole folder.
Nothing is deleted recursively: the known files are unlinked one by one, state.json last, so a removal cut short
leaves a folder that is still recognised and retried by the next prune. The caller holds the crew's run lock (no
run of it starts meanwhile); another process may still save a run (recovery, undo) or remove a log too, so a file
already gone is no error.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from core.errors import AppError
from crews.logs.run_state import RunState
from crews.logs.runlog import ARTIFACTS, RUN_NOTE, STATE_FILE, RunStore
from edits.changelog import SqliteChangeLog

logger = logging.getLogger(__name__)

# write_atomically's temp files (`.<name>.<random>.tmp`), left beside the log by a crash mid-write.
_TEMP_FILE = re.compile(r"\.(?:state\.json|run\.md)\.[A-Za-z0-9_]+\.tmp")
_RUN_KIND = re.compile(r'crew-kind:\s*"?run"?\s*')  # as render_run_note writes it, or as Obsidian re-saves it
_FRONTMATTER_BYTES = 4096


@dataclass(frozen=True, slots=True)
class PruneReport:
    """What one prune of a crew's logs did: the runs removed, and those it could not remove (with why)."""

    removed: tuple[str, ...] = ()
    failed: tuple[tuple[str, str], ...] = ()


def prune_after_run(state: RunState, stores: Iterable[RunStore], *, keep: int, log: SqliteChangeLog | None) -> None:
    """Prune the logs of `state`'s crew in each store once `state` ended; log what went, warn on what could not.

    Never raises for the file system: the run is over and logged, and a log that cannot be removed now is retried
    after the crew's next run.
    """
    for store in stores:
        try:
            report = prune_run_logs(
                store,
                crew=state.crew,
                keep=keep,
                current=state.id,
                is_undoable=lambda run: has_undoable_writes(run, log),
            )
        except OSError as exc:  # the runs folder itself is unreadable
            logger.warning("crew %s: could not prune the run logs in %s: %s", state.crew, store.folder, exc)
            continue
        for run_id, why in report.failed:
            logger.warning("crew %s: could not remove the old run log %s: %s", state.crew, store.folder / run_id, why)
        if report.removed:
            logger.info(
                "crew %s: removed %d old run log(s) from %s (CREW_RUN_LOGS_KEEP=%d)",
                state.crew,
                len(report.removed),
                store.folder,
                keep,
            )


def has_undoable_writes(state: RunState, log: SqliteChangeLog | None) -> bool:
    """Return True unless the run wrote nothing, was a dry run, or its change set is known to be undone.

    An empty or unreadable change log proves nothing (DATA_DIR may be another process's, or moved): the run is kept.
    """
    if state.dry_run or not state.change_set_id or not state.writes or state.undone:
        return False
    if log is None:
        return True
    try:
        changes = log.change_set(state.change_set_id)
    except AppError:
        return True
    return not changes or any(change.status != "undone" for change in changes)


def prune_run_logs(
    store: RunStore, *, crew: str, keep: int, current: str, is_undoable: Callable[[RunState], bool]
) -> PruneReport:
    """Remove `crew`'s finished run logs in `store` beyond its newest `keep` (0: keep all); report what happened.

    Args:
        store: the run logs (the vault's, or DATA_DIR's).
        crew: the team whose logs are pruned; other crews' logs are not looked at.
        keep: how many of the crew's newest logs stay, whatever state they are in.
        current: the run just written, kept even when the clock went back (run ids sort by start time).
        is_undoable: whether a finished run's writes can still be undone (such a run is kept).

    """
    if keep <= 0 or store.folder.is_symlink() or not store.folder.is_dir():
        return PruneReport()
    removed: list[str] = []
    failed: list[tuple[str, str]] = []
    for state in _saved_runs(store, crew)[keep:]:
        if state.id == current or not state.is_finished or is_undoable(state):
            continue
        try:
            if remove_run_log(store.folder / state.id):
                removed.append(state.id)
        except OSError as exc:
            failed.append((state.id, exc.strerror or str(exc)))
    return PruneReport(tuple(removed), tuple(failed))


def remove_run_log(folder: Path) -> bool:
    """Remove `folder` if it is one of our run logs; return False when it is not (or already gone): left alone.

    Raises:
        OSError: a file or the folder could not be removed (what was removed stays removed).

    """
    files = _run_log_files(folder)
    if files is None:
        return False
    for path in files:  # state.json last: until it goes, the folder is still recognisably a run log
        path.unlink(missing_ok=True)
    with contextlib.suppress(FileNotFoundError):
        (folder / ARTIFACTS).rmdir()
    try:
        folder.rmdir()  # fails when anything appeared meanwhile: it is then left, and reported
    except FileNotFoundError:
        return False
    return True


def _saved_runs(store: RunStore, crew: str) -> list[RunState]:
    """Return `crew`'s runs whose state.json names the folder it is in, newest first (run ids sort by start time)."""
    try:
        names = sorted((entry.name for entry in store.folder.iterdir()), reverse=True)
    except FileNotFoundError:
        return []
    runs = []
    for name in names:
        state = None if name.startswith(".") else store.load(name)
        if state is not None and state.id == name and state.crew.casefold() == crew.casefold():
            runs.append(state)
    return runs


def _run_log_files(folder: Path) -> list[Path] | None:
    """Return the files of the run log `folder`, state.json last; None when it is no run log of ours."""
    try:
        if not stat.S_ISDIR(folder.lstat().st_mode):
            return None
        entries = list(folder.iterdir())
    except FileNotFoundError:
        return None
    state = folder / STATE_FILE
    if not _is_file(state) or not _names_run(state, folder.name):
        return None
    files: list[Path] = []
    for entry in entries:
        if entry.name == STATE_FILE:
            continue
        if _is_file(entry) and (_TEMP_FILE.fullmatch(entry.name) or entry.name == RUN_NOTE and _is_run_note(entry)):
            files.append(entry)
        elif entry.name == ARTIFACTS and (artifacts := _artifact_files(entry)) is not None:
            files.extend(artifacts)
        else:
            return None  # something we did not write (a note of the user's, a link): the whole log stays
    return [*files, state]


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)  # lstat: a symlink is not one of our files
    except FileNotFoundError:
        return False


def _names_run(state: Path, run_id: str) -> bool:
    """Return True when state.json is a run's saved state, of the run its folder is named after."""
    try:
        data = json.loads(state.read_text(encoding="utf-8"))
        return isinstance(data, dict) and RunState.from_json(data).id == run_id
    except (OSError, ValueError, TypeError, KeyError):
        return False


def _is_run_note(path: Path) -> bool:
    """Return True when run.md opens with the frontmatter render_run_note writes (`crew-kind: run`)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_FRONTMATTER_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return False
    lines = head.splitlines()
    if not lines or lines[0] != "---":
        return False
    for line in lines[1:]:
        if line == "---":
            return False
        if _RUN_KIND.fullmatch(line):
            return True
    return False


def _artifact_files(folder: Path) -> list[Path] | None:
    """Return the files in a run's artifacts/ folder; None when it holds anything but plain files."""
    try:
        if not stat.S_ISDIR(folder.lstat().st_mode):
            return None
        entries = list(folder.iterdir())
    except FileNotFoundError:
        return []
    return entries if all(_is_file(entry) for entry in entries) else None
