"""Incremental re-indexing: skip what is unchanged, index what changed, repair what a crash left behind."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime

from core.domain import IndexIdentity, StoredDoc
from core.errors import AppError, EmptyVault
from core.ports import DocStore, Embedder, VectorStore, WatermarkStore
from core.settings import VaultSettings
from rag.chunks.chunking import CHUNKS_VERSION
from rag.indexer import NoteIndexer, PreparedNote
from rag.notes.budget import NoteSkipped, cap_warnings
from rag.notes.linkindex import SqliteLinkIndex
from rag.notes.links import LinkResolver
from rag.notes.vault import VaultScan, scan_vault
from rag.retrieve import EMPTY_VAULT_META
from sync.consistency import GENERATION, heal, new_generation
from sync.embeds import EmbedReader
from sync.reindex_plan import CHUNK_CAP, CHUNKS_VERSION_META, PendingNote, ReindexPlan, ReindexPlanner
from sync.report import Progress, ReindexReport

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[Progress], None]
RUN_FLAG = "run_in_progress"
LAST_RUN = "last_run"
SCAN_WARNINGS = "scan_warnings"  # files the scan skipped and why (JSON), for the status
CHUNKS_PER_COMMIT = 128


def ambiguous_links(prepared: PreparedNote, resolver: LinkResolver) -> list[str]:
    """Describe each link of the note that more than one file could answer, and which one Obsidian picks."""
    warnings = []
    for link in prepared.note.links:
        if not link.target:
            continue
        resolution = resolver.resolve(link.target, source_path=prepared.path)
        if resolution.is_ambiguous:
            others = ", ".join(c for c in resolution.candidates if c != resolution.path)
            warnings.append(
                f"line {link.line}: link to {link.target!r} is ambiguous; it resolves to {resolution.path} "
                f"(also: {others}); use the path form to be explicit"
            )
    return warnings


class Reindexer:
    """Brings the index in line with the vault; `run_once` is safe to repeat and to interrupt."""

    def __init__(
        self,
        *,
        vault: VaultSettings,
        embedder: Embedder,
        indexer: NoteIndexer,
        store: VectorStore,
        docstore: DocStore,
        watermarks: WatermarkStore,
        links: SqliteLinkIndex,
        clock: Callable[[], datetime],
    ) -> None:
        self._vault = vault
        self._embedder = embedder
        self._indexer = indexer
        self._store = store
        self._docstore = docstore
        self._watermarks = watermarks
        self._links = links
        self._clock = clock
        self._planner = ReindexPlanner(
            vault=vault, store=store, docstore=docstore, watermarks=watermarks, links=links, clock=clock
        )

    def run_once(self, on_progress: ProgressCallback | None = None) -> ReindexReport:
        """Index new and changed notes, drop removed ones, and return what was done."""
        notify = on_progress or (lambda _progress: None)
        report = ReindexReport(started_at=self._clock())
        notify(Progress("scan"))
        scan = scan_vault(self._vault)
        if not scan.notes:
            # Refused rather than indexed as empty: a vault on an unmounted drive must not wipe the index.
            self._watermarks.set_meta(EMPTY_VAULT_META, str(scan.root))
            raise EmptyVault(f"no notes (*.md) found in the vault {scan.root}; is VAULT_PATH right?")
        self._watermarks.set_meta(EMPTY_VAULT_META, "")
        report.notes_total = len(scan.notes)
        report.warnings.extend(scan.skipped)
        self._watermarks.set_meta(SCAN_WARNINGS, json.dumps(scan.skipped))
        # The flag goes up before anything is written, so a kill at any later point is repaired next run.
        was_interrupted = self._watermarks.get_meta(RUN_FLAG) == "1"
        self._watermarks.set_meta(RUN_FLAG, "1")
        self._ensure_identity(report)
        if was_interrupted:
            self._repair_interrupted_run(report)
        healing = heal(self._vault, self._watermarks, self._docstore, self._store)
        report.healed.extend(healing.messages)
        for message in healing.messages:
            logger.warning("index repair: %s", message)
        plan = self._planner.plan(scan, report, healing)
        self._planner.add_dependents(plan, scan, report)
        self._delete(plan.deleted, report)
        if plan.to_index:
            self._index(plan, scan, LinkResolver(scan.all_paths), report, notify)
        # Every run, not only one that changed something: the embedded store reloads its shard here after deletions
        # (its BM25 statistics count deleted points until then), at most once a minute, so deletions made within a
        # minute of the last reload are reflected by the next run, even one that finds nothing new (with nothing
        # written since its last flush, it touches no file).
        self._store.flush()
        report.finished_at = self._clock()
        self._watermarks.set_meta(CHUNK_CAP, str(self._vault.max_note_chunks))
        self._watermarks.set_meta(CHUNKS_VERSION_META, CHUNKS_VERSION)
        self._watermarks.set_meta(LAST_RUN, json.dumps(report.to_json()))
        self._watermarks.set_meta(RUN_FLAG, "0")
        notify(Progress("done", len(plan.to_index), len(plan.to_index), report.chunks_indexed))
        return report

    def _ensure_identity(self, report: ReindexReport) -> None:
        wanted = self._embedder.identity
        current = self._store.identity()
        if current == wanted:
            return
        if current is not None:
            report.rebuilt_reason = (
                f"the index was built with {current.model_id} ({current.dim} dimensions) but EMBED_MODEL is "
                f"{wanted.model_id} ({wanted.dim} dimensions); rebuilding the whole index"
            )
        elif self._watermarks.all():
            report.rebuilt_reason = "the vector index is missing; rebuilding the whole index"
        if report.rebuilt_reason:
            logger.warning("%s", report.rebuilt_reason)
        self._reset(wanted)

    def _reset(self, identity: IndexIdentity) -> None:
        # Forget the files first: a kill before the store is reset leaves the old identity, so the next run
        # resets again; a kill after it finds no watermarks and indexes everything.
        self._watermarks.clear()
        self._docstore.clear()
        self._links.clear()
        self._store.reset(identity)
        generation = new_generation()
        self._watermarks.set_meta(GENERATION, generation)
        self._docstore.set_generation(generation)

    def _repair_interrupted_run(self, report: ReindexReport) -> None:
        """Drop index entries that no confirmed watermark vouches for (left by a crash mid-run)."""
        confirmed = {path for path, mark in self._watermarks.all().items() if mark.sha256}
        orphans = (self._store.indexed_paths() | self._docstore.paths() | self._links.sources()) - confirmed
        if orphans:
            self._store.delete_paths(sorted(orphans))
            for path in orphans:
                self._docstore.delete(path)
                self._links.delete_source(path)
        report.repaired = sorted(orphans)

    def _delete(self, paths: list[str], report: ReindexReport) -> None:
        if not paths:
            return
        self._store.delete_paths(paths)
        for path in paths:
            self._links.delete_source(path)
            self._docstore.delete(path)
            self._watermarks.delete(path)
        report.deleted.extend(paths)

    def _index(
        self,
        plan: ReindexPlan,
        scan: VaultScan,
        resolver: LinkResolver,
        report: ReindexReport,
        notify: ProgressCallback,
    ) -> None:
        texts = {p: item.text for p, item in plan.to_index.items()}
        reader = EmbedReader(scan.root, resolver, texts, max_bytes=self._vault.max_note_bytes)
        total = len(plan.to_index)
        batch: list[tuple[PendingNote, PreparedNote]] = []
        done = 0
        # Said before the first batch is written: a search between that write and the first commit's report would
        # otherwise see a partial index while progress still says "scan", and be told nothing about it.
        notify(Progress("index", done, total, report.chunks_indexed))
        for path in sorted(plan.to_index):
            item = plan.to_index[path]
            try:
                prepared = self._indexer.prepare(
                    path,
                    item.text,
                    resolver=resolver,
                    embedded_text=reader.lookup,
                    previous_path=item.renamed_from,
                    max_chunks=self._vault.max_note_chunks,
                )
            except (ValueError, AppError) as exc:
                # A note refused on purpose (not text, over its budget) says why; anything else failed to parse.
                error = str(exc) if isinstance(exc, NoteSkipped) else f"cannot parse: {exc}"
                self._planner.fail(path, item.stat, error, plan, report)
                if item.renamed_from:
                    self._delete([item.renamed_from], report)
                continue
            note_warnings = cap_warnings([*prepared.note.warnings, *ambiguous_links(prepared, resolver)])
            report.warnings.extend((path, warning) for warning in note_warnings)
            item.warnings.extend(note_warnings)
            batch.append((item, prepared))
            if sum(len(p.chunks) for _, p in batch) >= CHUNKS_PER_COMMIT:
                done += self._commit(batch, report)
                notify(Progress("index", done, total, report.chunks_indexed))
                batch = []
        if batch:
            done += self._commit(batch, report)
            notify(Progress("index", done, total, report.chunks_indexed))

    def _commit(self, batch: list[tuple[PendingNote, PreparedNote]], report: ReindexReport) -> int:
        """Write a batch of notes; watermarks go pending first so a crash in between is redone next run."""
        old_paths = [item.renamed_from for item, _ in batch if item.renamed_from]
        paths = [item.path for item, _ in batch]
        known = self._store.embeddings_for_paths([*paths, *old_paths])
        embedded, fresh = self._indexer.embed([prepared for _, prepared in batch], known=known)
        for item, _ in batch:
            self._watermarks.mark_pending(item.path, mtime_ns=item.stat.mtime_ns, size=item.stat.size)
        self._store.delete_paths([*paths, *old_paths])
        self._store.upsert([chunk for chunks in embedded for chunk in chunks])
        now = self._clock()
        for (item, prepared), chunks in zip(batch, embedded, strict=True):
            self._links.replace_links(item.path, prepared.note.links)
            self._docstore.put(StoredDoc(path=item.path, markdown=item.text, content_hash=item.sha256))
            if item.renamed_from:
                self._links.delete_source(item.renamed_from)
                self._docstore.delete(item.renamed_from)
                self._watermarks.delete(item.renamed_from)
            self._watermarks.record_success(
                item.path,
                mtime_ns=item.stat.mtime_ns,
                size=item.stat.size,
                sha256=item.sha256,
                at=now,
                chunks=len(chunks),
                warnings=item.warnings,
            )
            self._classify(item, report)
        report.chunks_indexed += sum(len(chunks) for chunks in embedded)
        report.chunks_embedded += fresh
        return len(batch)

    @staticmethod
    def _classify(item: PendingNote, report: ReindexReport) -> None:
        if item.renamed_from:
            report.renamed.append((item.renamed_from, item.path))
        elif item.kind == "refreshed":
            report.refreshed.append(item.path)
        elif item.kind == "restored":
            report.restored.append(item.path)
        elif item.kind == "modified":
            report.modified.append(item.path)
        else:
            report.added.append(item.path)
