"""Watches the vault for saved, added, moved and deleted notes, and asks the index runner for a run."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path, PurePosixPath

from watchfiles import Change, awatch

from core.errors import AppError
from core.settings import SyncSettings, VaultSettings
from rag.notes.vault import check_vault_path, is_ignored
from sync.index_runner import IndexRunner

logger = logging.getLogger(__name__)

WATCHED_SUFFIXES = (".md", ".base")
# watchfiles yields a batch once no new change arrived for one step, or after `debounce` ms at the latest.
STEP_MS = 50


def is_relevant_change(change: Change, path: str, *, root: Path, ignore_globs: tuple[str, ...] = ()) -> bool:
    """Return True when a file event may change what the index holds.

    Notes and bases count; dot-entries (`.obsidian/`, `.trash/`, `.git/`, dotfiles) and IGNORE_GLOBS never do.
    A deletion counts whatever its name, and so does an added folder: moving or removing a folder is reported
    for the folder alone, not for the notes inside it.
    """
    try:
        rel = PurePosixPath(Path(path).relative_to(root).as_posix())
    except ValueError:
        return False
    if not rel.parts or any(part.startswith(".") for part in rel.parts):
        return False
    if is_ignored(rel.as_posix(), ignore_globs):
        return False
    if rel.suffix.lower() in WATCHED_SUFFIXES or change == Change.deleted:
        return True
    return change == Change.added and Path(path).is_dir()


class VaultWatcher:
    """Run the runner after each batch of relevant changes in the vault, until stopped."""

    def __init__(self, runner: IndexRunner, *, vault: VaultSettings, debounce_ms: int) -> None:
        self._runner = runner
        self._vault = vault
        self._debounce_ms = max(debounce_ms, STEP_MS)
        self._stop_event = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._batches_seen = 0
        self._runs_requested = 0
        self._error: str | None = None

    @property
    def is_running(self) -> bool:
        """Return True while the vault is being watched."""
        return self._task is not None and not self._task.done()

    @property
    def batches_seen(self) -> int:
        """Return how many batches of file events arrived, relevant or not."""
        return self._batches_seen

    @property
    def runs_requested(self) -> int:
        """Return how many batches held a relevant change and so asked for a run."""
        return self._runs_requested

    @property
    def error(self) -> str | None:
        """Return why watching ended early, if it did (the periodic run still keeps the index fresh)."""
        return self._error

    async def start(self) -> None:
        """Start watching in a task on the running event loop; changes made after this returns are seen."""
        if self.is_running:
            return
        self._stop_event.clear()
        self._error = None
        self._task = asyncio.create_task(self._watch(), name="vault-watcher")
        # One turn of the loop runs the task up to its first wait, and awatch registers the OS watch before it.
        await asyncio.sleep(0)

    async def stop(self) -> None:
        """Stop watching and wait for the task to end; a run already started goes on in the runner."""
        if self._task is None:
            return
        # Set first: awatch's worker thread sees the event within one step and returns, so cancelling is prompt.
        self._stop_event.set()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None

    async def _watch(self) -> None:
        try:
            root = check_vault_path(self._vault.path)
            batches = awatch(
                root,
                watch_filter=None,  # filtered below, so that batches with nothing relevant are still counted
                debounce=self._debounce_ms,
                step=STEP_MS,
                stop_event=self._stop_event,
                ignore_permission_denied=True,
            )
            # aclosing: on cancellation the OS watch is released now, not whenever the generator is collected.
            async with contextlib.aclosing(batches):
                async for changes in batches:
                    await self._handle(root, changes)
        except AppError as exc:
            self._stopped_by(exc.message)
        # watchfiles raises OSError (missing folder, inotify limits) and a RuntimeError subclass for
        # "error in underlying watcher" (e.g. the vault folder itself was removed).
        except (OSError, RuntimeError) as exc:
            self._stopped_by(f"{type(exc).__name__}: {exc}")

    async def _handle(self, root: Path, changes: set[tuple[Change, str]]) -> None:
        self._batches_seen += 1
        relevant = sorted(
            path
            for change, path in changes
            if is_relevant_change(change, path, root=root, ignore_globs=self._vault.ignore_globs)
        )
        if not relevant:
            return
        self._runs_requested += 1
        logger.debug("vault changed (%d paths, e.g. %s): re-indexing", len(relevant), relevant[0])
        await self._runner.run("watch")

    def _stopped_by(self, error: str) -> None:
        self._error = error
        logger.error("file watcher stopped: %s; the periodic re-index still runs", error)


async def start_watcher(runner: IndexRunner, vault: VaultSettings, settings: SyncSettings) -> VaultWatcher:
    """Start watching `vault` with the debounce of `settings`, and return the watcher (stop it with `stop`)."""
    watcher = VaultWatcher(runner, vault=vault, debounce_ms=settings.watch_debounce_ms)
    await watcher.start()
    return watcher
