"""The plan of a re-index run: which notes to read and index, which to drop, and which could not be indexed."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from core.domain import Watermark
from core.ports import DocStore, VectorStore, WatermarkStore
from core.settings import VaultSettings
from rag.chunks.chunking import CHUNKS_VERSION
from rag.notes.budget import NotText, check_is_text
from rag.notes.linkindex import SqliteLinkIndex, link_name_key
from rag.notes.links import LinkResolver
from rag.notes.vault import FileStat, VaultScan, read_note_text
from sync.consistency import Healing
from sync.report import ReindexReport
from sync.vault_changes import has_same_stat

CHUNK_CAP = "max_note_chunks"  # MAX_NOTE_CHUNKS of the last run, to redo notes a changed limit cuts differently
CHUNKS_VERSION_META = "chunks_version"  # rag.chunks.chunking.CHUNKS_VERSION of the last run


@dataclass(slots=True)
class PendingNote:
    """A note read from the vault that this run indexes."""

    path: str
    stat: FileStat
    sha256: str
    text: str
    kind: Literal["added", "modified", "refreshed", "restored"] = "added"
    renamed_from: str | None = None
    warnings: list[str] = field(default_factory=list)  # from reading the file (e.g. not valid UTF-8)


@dataclass(slots=True)
class ReindexPlan:
    """What one run indexes, drops and newly found failing, against the watermarks it started from."""

    marks: dict[str, Watermark] = field(default_factory=dict)  # the watermarks as the run found them
    to_index: dict[str, PendingNote] = field(default_factory=dict)
    deleted: list[str] = field(default_factory=list)
    newly_failed: set[str] = field(default_factory=set)  # failures that changed the index this run
    healing: Healing = field(default_factory=Healing)


class ReindexPlanner:
    """Compare the vault with the watermarks to plan a run, and take notes that cannot be indexed out of it."""

    def __init__(
        self,
        *,
        vault: VaultSettings,
        store: VectorStore,
        docstore: DocStore,
        watermarks: WatermarkStore,
        links: SqliteLinkIndex,
        clock: Callable[[], datetime],
    ) -> None:
        self._vault = vault
        self._store = store
        self._docstore = docstore
        self._watermarks = watermarks
        self._links = links
        self._clock = clock

    def plan(self, scan: VaultScan, report: ReindexReport, healing: Healing) -> ReindexPlan:
        """Read the new and changed notes of the scan, and list the vanished ones to delete."""
        marks = self._watermarks.all()
        plan = ReindexPlan(marks=marks, healing=healing)
        # A note that could not be listed this time is not gone: keep it rather than drop it from the index.
        vanished = [path for path in marks if path not in scan.notes and not scan.is_unreadable(path)]
        vanished_by_hash = {marks[p].sha256: p for p in vanished if marks[p].sha256}
        recut = self._recut_from()
        # Parsed and chunked by another version: every note is redone once (its unchanged chunks keep their vectors).
        is_reparse = bool(marks) and self._watermarks.get_meta(CHUNKS_VERSION_META) != CHUNKS_VERSION
        for path, stat in scan.notes.items():
            mark = marks.get(path)
            is_recut = mark is not None and mark.chunks is not None and recut is not None and mark.chunks >= recut
            is_recut = is_recut or (is_reparse and mark is not None and bool(mark.sha256))
            # Only a confirmed note is skipped on mtime and size: one that failed (unreadable, too large, bad
            # markup) is retried, since chmod or a raised MAX_NOTE_BYTES fixes it without touching the file.
            if mark and mark.sha256 and has_same_stat(mark, stat) and not is_recut:
                report.unchanged += 1
                continue
            pending = self._read(scan, path, stat, plan, report)
            if pending is None:
                continue
            report.warnings.extend((path, warning) for warning in pending.warnings)
            if mark and mark.sha256 == pending.sha256 and not is_recut:
                # Touched but identical: remember the new mtime so the next run skips hashing.
                self._watermarks.record_success(
                    path, mtime_ns=stat.mtime_ns, size=stat.size, sha256=pending.sha256, at=self._clock()
                )
                report.unchanged += 1
                continue
            if path in healing.reindex or (mark is None and path in healing.known_paths):
                pending.kind = "restored"  # its file did not change; its index entries were lost
            elif mark is None:
                pending.renamed_from = vanished_by_hash.pop(pending.sha256, None)
            elif mark.sha256 or (mark.is_pending and mark.indexed_at):
                pending.kind = "modified"  # it was in the index; a note that only ever failed counts as added
            plan.to_index[path] = pending
        renamed_from = {p.renamed_from for p in plan.to_index.values() if p.renamed_from}
        plan.deleted = sorted(set(vanished) - renamed_from)
        return plan

    def _recut_from(self) -> int | None:
        """Return the chunk count from which notes are redone as MAX_NOTE_CHUNKS changed, None when it did not.

        A raised limit lets notes cut at the old one (as many chunks as it) grow; a lowered one cuts notes with
        more chunks than it. An index from before the limit was recorded is checked against the current one.
        """
        wanted = self._vault.max_note_chunks
        recorded = self._watermarks.get_meta(CHUNK_CAP)
        if recorded == str(wanted):
            return None
        return min(int(recorded), wanted) if recorded else wanted

    def _read(
        self, scan: VaultScan, path: str, stat: FileStat, plan: ReindexPlan, report: ReindexReport
    ) -> PendingNote | None:
        limit = self._vault.max_note_bytes
        if stat.size > limit:
            error = f"note is {stat.size / 1e6:.1f} MB, above the {limit / 1e6:.1f} MB limit (MAX_NOTE_BYTES)"
            self.fail(path, stat, error, plan, report)
            return None
        try:
            data, text, warnings = read_note_text(scan.root, path)
            check_is_text(text)
        except OSError as exc:
            self.fail(path, stat, f"cannot read: {exc.strerror or exc}", plan, report)
            return None
        except NotText as exc:  # refused here, so its bytes are not reported as a note with odd characters
            self.fail(path, stat, str(exc), plan, report)
            return None
        return PendingNote(path=path, stat=stat, sha256=hashlib.sha256(data).hexdigest(), text=text, warnings=warnings)

    def fail(self, path: str, stat: FileStat, error: str, plan: ReindexPlan, report: ReindexReport) -> None:
        """Report a note that cannot be indexed, and take what the index holds of it out."""
        report.errors.append((path, error))
        mark = plan.marks.get(path)
        if mark and mark.last_error == error and has_same_stat(mark, stat):
            return  # failing exactly as last time: the index already reflects it, so nothing to write
        # A file that can no longer be indexed must not keep stale chunks in the index.
        self._store.delete_paths([path])
        self._docstore.delete(path)
        self._links.delete_source(path)
        self._watermarks.record_error(path, mtime_ns=stat.mtime_ns, size=stat.size, error=error, at=self._clock())
        plan.newly_failed.add(path)

    def add_dependents(self, plan: ReindexPlan, scan: VaultScan, report: ReindexReport) -> None:
        """Re-index unchanged notes whose indexed text depends on changed ones (embeds, colliding names)."""
        failed = {path for path, _ in report.errors}
        changed = set(plan.to_index) | set(plan.deleted) | plan.newly_failed
        changed |= {p.renamed_from for p in plan.to_index.values() if p.renamed_from}
        if not changed:
            return
        # Resolve against old and new files alike, so embeds of deleted notes are found too.
        resolver = LinkResolver([*scan.all_paths, *changed])
        dependents = self._links.linking_sources(changed, resolver, embeds_only=True)
        changed_names = {link_name_key(path) for path in changed}
        dependents |= {path for path in scan.notes if link_name_key(path) in changed_names}
        for path in sorted(dependents - set(plan.to_index) - failed):
            stat = scan.notes.get(path)
            if stat is None or stat.size > self._vault.max_note_bytes:
                continue
            pending = self._read(scan, path, stat, plan, report)
            if pending is not None:
                report.warnings.extend((path, warning) for warning in pending.warnings)
                pending.kind = "refreshed"
                plan.to_index[path] = pending
                # Their own files did not change, so only a pending mark makes a crashed run redo them.
                self._watermarks.mark_pending(path, mtime_ns=stat.mtime_ns, size=stat.size)
