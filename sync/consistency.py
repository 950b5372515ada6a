"""Do the docstore, the vector store and the watermarks describe the same index? Checked cheaply, mended in place.

The three live apart (Redis, a Qdrant server, SQLite), so one can lose data the others keep: a Redis restarted
without persistence, a recreated Qdrant volume, a deleted watermark file. The check is counts plus a generation
marker (a random id the index and its docstore share, which an emptied Redis loses), never a scan of every entry;
only when they disagree does the repair look at entries, and it re-embeds only notes whose vectors are gone.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field

from core.domain import StoredDoc, Watermark
from core.ports import DocStore, VectorStore, WatermarkStore
from core.settings import VaultSettings
from rag.notes.vault import read_note_text

GENERATION = "generation"  # the watermarks' meta key of the index generation marker


@dataclass(frozen=True, slots=True)
class Consistency:
    """What the cheap check found: the counts it compared and a sentence per disagreement."""

    notes: int  # confirmed in the watermarks
    docstore_notes: int
    chunks: int  # points in the vector store
    expected_chunks: int | None  # what the watermarks account for (None: counts not yet recorded)
    problems: tuple[str, ...]

    @property
    def is_consistent(self) -> bool:
        """Return True when nothing disagrees."""
        return not self.problems

    def to_json(self) -> dict[str, object]:
        """Return a JSON-ready dict."""
        return {
            "ok": self.is_consistent,
            "notes": self.notes,
            "docstore_notes": self.docstore_notes,
            "chunks": self.chunks,
            "expected_chunks": self.expected_chunks,
            "problems": list(self.problems),
        }


@dataclass(slots=True)
class Healing:
    """What a repair did, and what the run must still do about it."""

    messages: list[str] = field(default_factory=list)  # one sentence per repair, for the report and the log
    reindex: set[str] = field(default_factory=set)  # notes whose points or stored text must be rebuilt
    known_paths: set[str] = field(default_factory=set)  # notes already in the vector store (lost watermarks)


def check_consistency(
    watermarks: WatermarkStore,
    docstore: DocStore,
    store: VectorStore,
    *,
    marks: dict[str, Watermark] | None = None,
) -> Consistency:
    """Compare counts and the generation marker; raises UpstreamUnavailable when a store cannot be reached."""
    marks = watermarks.all() if marks is None else marks
    confirmed = [mark for mark in marks.values() if mark.sha256]
    generation = watermarks.get_meta(GENERATION)
    docstore_notes = docstore.count()
    chunks = store.count()
    expected = sum(m.chunks or 0 for m in confirmed) if all(m.chunks is not None for m in confirmed) else None
    problems: list[str] = []
    if not marks and chunks:
        # Everything else would disagree too; this is the one cause to name.
        problems.append(f"the watermarks are missing: {chunks} chunks in the vector store belong to no known note")
        return Consistency(0, docstore_notes, chunks, 0, tuple(problems))
    if confirmed and generation is not None and docstore.generation() != generation:
        problems.append(
            f"the docstore was emptied or replaced: it holds {docstore_notes} of {len(confirmed)} indexed notes"
        )
    elif docstore_notes != len(confirmed):
        problems.append(f"the docstore holds {docstore_notes} notes, the index {len(confirmed)}")
    if expected is not None and chunks != expected:
        problems.append(f"the vector store holds {chunks} chunks, the index accounts for {expected}")
    return Consistency(len(confirmed), docstore_notes, chunks, expected, tuple(problems))


def heal(vault: VaultSettings, watermarks: WatermarkStore, docstore: DocStore, store: VectorStore) -> Healing:
    """Bring the docstore and the watermarks in line with the index; name notes whose vectors must be rebuilt.

    Cheap when all agree (the counts of `check_consistency`); otherwise the docstore is refilled from the vault
    files the watermarks vouch for, notes with lost points are marked for re-indexing (the intact vectors of
    their other chunks are reused), and points of unknown notes are dropped.
    """
    healing = Healing()
    marks = watermarks.all()
    generation = _generation(watermarks, docstore)
    if not marks:
        chunks = store.count()
        if chunks:
            healing.known_paths = store.indexed_paths()
            healing.messages.append(
                f"the watermarks were missing; rebuilding them from the vault, reusing the {chunks} stored chunks"
            )
        docstore.set_generation(generation)
        return healing
    confirmed = {path: mark for path, mark in marks.items() if mark.sha256}
    if docstore.generation() != generation or docstore.count() != len(confirmed):
        _refill_docstore(vault, watermarks, docstore, confirmed, healing)
        docstore.set_generation(generation)
    _mend_vectors(watermarks, store, confirmed, healing)
    return healing


def new_generation() -> str:
    """Return a fresh index generation marker."""
    return secrets.token_hex(8)


def _generation(watermarks: WatermarkStore, docstore: DocStore) -> str:
    generation = watermarks.get_meta(GENERATION)
    if generation is None:
        # An index from before markers were kept, or lost watermarks: adopt the docstore's, else start one.
        generation = docstore.generation() or new_generation()
        watermarks.set_meta(GENERATION, generation)
    return generation


def _has_its_points(mark: Watermark, points: int) -> bool:
    return points > 0 and (mark.chunks is None or mark.chunks == points)


def _refill_docstore(
    vault: VaultSettings,
    watermarks: WatermarkStore,
    docstore: DocStore,
    confirmed: dict[str, Watermark],
    healing: Healing,
) -> None:
    stored = docstore.paths()
    for path in sorted(stored - set(confirmed)):
        docstore.delete(path)
    missing = sorted(set(confirmed) - stored)
    restored = 0
    for path in missing:
        mark = confirmed[path]
        try:
            data, text, _warnings = read_note_text(vault.path, path)
        except OSError:
            data, text = b"", None
        if text is not None and hashlib.sha256(data).hexdigest() == mark.sha256:
            docstore.put(StoredDoc(path=path, markdown=text, content_hash=mark.sha256))
            restored += 1
        else:  # changed or gone since it was indexed: the run indexes it afresh
            watermarks.mark_pending(path, mtime_ns=mark.mtime_ns, size=mark.size)
            healing.reindex.add(path)
    if missing:
        healing.messages.append(
            f"the docstore was missing {len(missing)} of {len(confirmed)} notes; restored {restored} from the vault"
            + (f", {len(missing) - restored} changed since and are re-indexed" if restored < len(missing) else "")
        )


def _mend_vectors(
    watermarks: WatermarkStore, store: VectorStore, confirmed: dict[str, Watermark], healing: Healing
) -> None:
    unknown = [path for path, mark in confirmed.items() if mark.chunks is None]
    expected = sum(mark.chunks or 0 for mark in confirmed.values())
    if not unknown and store.count() == expected:
        return
    counts = store.chunk_counts()
    if unknown:  # marks written before counts were kept: take the store's word once
        watermarks.set_chunk_counts({path: counts[path] for path in unknown if path in counts})
    # Every indexed note has at least one point (an empty note is one chunk of its title).
    lost = sorted(path for path, mark in confirmed.items() if not _has_its_points(mark, counts.get(path, 0)))
    strays = sorted(set(counts) - set(confirmed))
    if strays:
        store.delete_paths(strays)
    for path in lost:
        mark = confirmed[path]
        watermarks.mark_pending(path, mtime_ns=mark.mtime_ns, size=mark.size)
        healing.reindex.add(path)
    if lost:
        healing.messages.append(f"the vector store was missing chunks of {len(lost)} notes; re-indexing them")
    if strays:
        healing.messages.append(f"dropped the chunks of {len(strays)} notes the index does not know")
