"""Incremental re-indexing over a copy of sample_vault: skips, changes, deletes, renames, links, embeds, repair."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.wiring import Services, build_services
from core.domain import SearchFilters
from core.settings import Settings
from rag.chunks.chunking import CHUNKS_VERSION
from rag.notes.links import LinkResolver
from sync.reindex_plan import CHUNKS_VERSION_META
from sync.report import Progress
from tests.fakes import HashingEmbedder

ROOT = Path(__file__).resolve().parents[2]
SOURDOUGH = "Areas/Cooking/Sourdough.md"
REVIEW = "Reviews/2026-W46 Weekly Review.md"
GARLIC = "Areas/Garden/Garlic.md"


def index_snapshot(services: Services) -> dict[str, tuple[object, ...]]:
    """Return, per indexed note, its chunks' payloads (anchor, lines, text) and vectors: the index's content."""
    snapshot: dict[str, tuple[object, ...]] = {}
    for path in sorted(services.store.indexed_paths()):
        hits = services.retriever.search("note", k=200, filters=SearchFilters(paths=(path,)))
        chunks = sorted(
            (h.chunk.index, h.chunk.anchor, h.chunk.line_start, h.chunk.line_end, h.chunk.text) for h in hits
        )
        vectors = services.store.embeddings_for_paths([path])
        rounded = sorted((key, tuple(round(x, 5) for x in e.dense), e.sparse) for key, e in vectors.items())
        snapshot[path] = (tuple(chunks), tuple(rounded))
    return snapshot


def texts_of(services: Services, path: str, query: str) -> str:
    hits = services.retriever.search(query, k=50, filters=SearchFilters(paths=(path,)))
    return "\n".join(hit.chunk.text for hit in hits)


def test_first_run_indexes_every_note_and_second_run_embeds_nothing(services: Services, vault: Path) -> None:
    first = services.reindexer.run_once()
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if ".trash" not in p.parts)
    assert sorted(first.added) == notes
    assert first.chunks_embedded > len(notes)
    assert services.store.indexed_paths() == set(notes)
    assert services.docstore.paths() == set(notes)

    second = services.reindexer.run_once()
    assert (second.added, second.modified, second.deleted, second.chunks_embedded) == ([], [], [], 0)
    assert second.unchanged == len(notes)


def test_an_index_chunked_by_another_version_redoes_every_note_once_reusing_its_vectors(
    services: Services, vault: Path
) -> None:
    first = services.reindexer.run_once()
    services.watermarks.set_meta(CHUNKS_VERSION_META, "1")  # as an index from before the version was recorded

    redone = services.reindexer.run_once()
    again = services.reindexer.run_once()

    assert len(redone.modified) == len(first.added) and redone.chunks_embedded == 0  # unchanged chunks kept vectors
    assert again.modified == [] and services.watermarks.get_meta(CHUNKS_VERSION_META) == CHUNKS_VERSION


def test_dot_folders_and_ignore_globs_are_not_indexed(vault: Path, settings: Settings) -> None:
    (vault / ".hidden.md").write_text("dotfile zebracorn", encoding="utf-8")
    ignoring = settings.model_copy(update={"ignore_globs": ("Templates/**", "Inbox/*.md")})
    built = build_services(ignoring, embedder=HashingEmbedder())
    try:
        built.reindexer.run_once()
        paths = built.store.indexed_paths()
        assert not any(p.startswith(("Templates/", "Inbox/", ".")) for p in paths)
        assert "Projects/Ideas.md" in paths
        hits = built.retriever.search("Quokkaballoon helium zebracorn", k=50)
        assert not any("Quokkaballoon" in hit.chunk.text or "zebracorn" in hit.chunk.text for hit in hits)
    finally:
        built.close()


def test_touched_but_identical_note_is_not_reembedded_and_its_mtime_is_remembered(
    services: Services, vault: Path
) -> None:
    services.reindexer.run_once()
    note = vault / GARLIC
    os.utime(note, ns=(note.stat().st_atime_ns, note.stat().st_mtime_ns + 5_000_000_000))

    report = services.reindexer.run_once()

    assert (report.modified, report.chunks_embedded) == ([], 0)
    assert services.watermarks.all()[GARLIC].mtime_ns == note.stat().st_mtime_ns


def test_modified_note_reembeds_only_its_changed_chunks(services: Services, vault: Path) -> None:
    services.reindexer.run_once()
    note = vault / SOURDOUGH
    text = note.read_text(encoding="utf-8")
    note.write_text(text.replace("rest 45 minutes", "rest 50 minutes with the lid on"), encoding="utf-8")

    report = services.reindexer.run_once()

    assert report.modified == [SOURDOUGH]
    assert 1 <= report.chunks_embedded < report.chunks_indexed
    assert "rest 50 minutes with the lid on" in texts_of(services, SOURDOUGH, "autolyse rest minutes lid")
    assert "rest 45 minutes" not in texts_of(services, SOURDOUGH, "autolyse rest minutes")


def test_deleted_note_leaves_the_index(services: Services, vault: Path) -> None:
    services.reindexer.run_once()
    (vault / GARLIC).unlink()

    report = services.reindexer.run_once()

    assert report.deleted == [GARLIC]
    assert GARLIC not in services.store.indexed_paths()
    assert GARLIC not in services.docstore.paths()
    assert GARLIC not in services.watermarks.all()
    assert all(hit.chunk.path != GARLIC for hit in services.retriever.search("garlic Germidour", k=50))


def test_renamed_note_keeps_its_vectors_and_moves_in_the_index(services: Services, vault: Path) -> None:
    services.reindexer.run_once()
    before = services.store.embeddings_for_paths([GARLIC])
    target = vault / "Areas/Garden/Alliums/Garlic.md"
    target.parent.mkdir()
    (vault / GARLIC).rename(target)

    report = services.reindexer.run_once()

    new_path = "Areas/Garden/Alliums/Garlic.md"
    assert report.renamed == [(GARLIC, new_path)]
    assert (report.added, report.deleted) == ([], [])
    assert report.chunks_embedded == 0
    assert set(services.store.embeddings_for_paths([new_path])) == set(before)
    assert GARLIC not in services.store.indexed_paths() | services.docstore.paths()
    hits = services.retriever.search("Germidour garlic", k=20, filters=SearchFilters(paths=(new_path,)))
    assert hits and all(hit.chunk.anchor.startswith("[[Garlic") for hit in hits)
    assert "Germidour" in texts_of(services, "MOCs/Garden MOC.md", "Germidour garlic")  # ![[Garlic]] still resolves


def test_backlinks_follow_a_link_being_added_and_removed(services: Services, vault: Path) -> None:
    services.reindexer.run_once()
    resolver = LinkResolver(p.relative_to(vault).as_posix() for p in vault.rglob("*") if p.is_file())
    inbox = vault / "Inbox/Quick capture.md"
    original = inbox.read_text(encoding="utf-8")
    assert "Inbox/Quick capture.md" not in services.links.backlinks(GARLIC, resolver)

    inbox.write_text(original + "\nSee also [[Garlic#Harvest]].\n", encoding="utf-8")
    services.reindexer.run_once()
    assert "Inbox/Quick capture.md" in services.links.backlinks(GARLIC, resolver)

    inbox.write_text(original, encoding="utf-8")
    services.reindexer.run_once()
    assert "Inbox/Quick capture.md" not in services.links.backlinks(GARLIC, resolver)


def test_transcluded_section_is_findable_from_the_embedding_note_and_follows_its_source(
    services: Services, vault: Path
) -> None:
    services.reindexer.run_once()
    assert "Autolyse" in texts_of(services, REVIEW, "autolyse levain salt bulk fermentation")

    source = vault / SOURDOUGH
    source.write_text(
        source.read_text(encoding="utf-8").replace("rest 45 minutes", "rest 55 minutes"), encoding="utf-8"
    )
    report = services.reindexer.run_once()

    assert REVIEW in report.refreshed
    assert "rest 55 minutes" in texts_of(services, REVIEW, "autolyse rest minutes")


def test_changing_the_embedding_model_rebuilds_instead_of_mixing_vectors(settings: Settings) -> None:
    first = build_services(settings, embedder=HashingEmbedder(dim=64))
    first.reindexer.run_once()
    first.close()

    second = build_services(settings, embedder=HashingEmbedder(dim=32))
    try:
        report = second.reindexer.run_once()
        assert report.rebuilt_reason is not None
        assert "hashing-64" in report.rebuilt_reason and "hashing-32" in report.rebuilt_reason
        assert report.unchanged == 0 and len(report.added) == report.notes_total
        identity = second.store.identity()
        assert identity is not None and identity.dim == 32
        assert second.retriever.search("sourdough levain", k=3)
    finally:
        second.close()


def test_a_failed_upsert_leaves_the_note_pending_and_the_next_run_repairs_it(
    services: Services, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.errors import UpstreamUnavailable

    services.reindexer.run_once()
    note = vault / SOURDOUGH
    note.write_text(note.read_text(encoding="utf-8") + "\nExtra line about rye.\n", encoding="utf-8")

    def broken_upsert(chunks: object) -> None:
        raise UpstreamUnavailable("qdrant", "disk full")

    monkeypatch.setattr(services.store, "upsert", broken_upsert)
    with pytest.raises(UpstreamUnavailable):
        services.reindexer.run_once()
    assert services.watermarks.all()[SOURDOUGH].is_pending
    monkeypatch.undo()

    report = services.reindexer.run_once()
    assert SOURDOUGH in report.modified
    assert "Extra line about rye." in texts_of(services, SOURDOUGH, "extra line about rye")


CRASHING_RUN = textwrap.dedent(
    """
    import os, signal, sys
    from app.wiring import build_services
    from core.settings import Settings
    from tests.fakes import HashingEmbedder
    import sync.reindex

    sync.reindex.CHUNKS_PER_COMMIT = 16  # several commits, so the kill lands between two of them
    settings = Settings(_env_file=None, vault_path=sys.argv[1], data_dir=sys.argv[2])
    services = build_services(settings, embedder=HashingEmbedder())
    real_upsert = services.store.upsert
    calls = 0

    def upsert(chunks):
        global calls
        calls += 1
        if calls == 2:  # after the batch's old points were deleted, before the new ones are written
            os.kill(os.getpid(), signal.SIGKILL)
        real_upsert(chunks)

    services.store.upsert = upsert
    services.reindexer.run_once()
    """
)


def test_a_killed_run_is_repaired_by_the_next_run_to_equal_a_clean_index(
    settings: Settings, vault: Path, tmp_path: Path
) -> None:
    first = build_services(settings, embedder=HashingEmbedder())
    first.reindexer.run_once()
    first.close()
    for path in sorted(vault.rglob("*.md"))[:20]:
        if ".trash" not in path.parts:
            path.write_text(path.read_text(encoding="utf-8") + "\nAppended after the first run.\n", encoding="utf-8")
    (vault / GARLIC).unlink()

    crashed = subprocess.run(
        [sys.executable, "-c", CRASHING_RUN, str(vault), str(settings.data_dir)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert crashed.returncode == -9, crashed.stderr

    repaired = build_services(settings, embedder=HashingEmbedder())
    clean = build_services(
        settings.model_copy(update={"data_dir": tmp_path / "clean-data"}), embedder=HashingEmbedder()
    )
    try:
        repaired.reindexer.run_once()
        clean.reindexer.run_once()
        assert index_snapshot(repaired) == index_snapshot(clean)
        assert repaired.store.count() == clean.store.count()
        assert repaired.docstore.paths() == clean.docstore.paths()
        marks = repaired.watermarks.all()
        assert set(marks) == set(clean.watermarks.all())
        assert not any(mark.is_pending for mark in marks.values())
        assert repaired.reindexer.run_once().chunks_embedded == 0
    finally:
        repaired.close()
        clean.close()


def test_ambiguous_links_are_reported_as_warnings(services: Services, vault: Path) -> None:
    (vault / "Inbox/Ambiguous.md").write_text("Which one? [[Ideas]]\n", encoding="utf-8")

    report = services.reindexer.run_once()

    warnings = [text for path, text in report.warnings if path == "Inbox/Ambiguous.md"]
    assert len(warnings) == 1
    assert "ambiguous" in warnings[0] and "Projects/Ideas.md" in warnings[0] and "Areas/Garden/Ideas.md" in warnings[0]


def test_a_folder_that_cannot_be_listed_keeps_its_notes_in_the_index(
    services: Services, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rag.notes.vault as vault_files

    services.reindexer.run_once()
    real_scandir = vault_files.os.scandir

    def scandir(path: object) -> object:
        if str(path).endswith("Areas/Garden"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(vault_files.os, "scandir", scandir)
    report = services.reindexer.run_once()

    assert report.deleted == []
    assert ("Areas/Garden", "folder not readable: Permission denied") in report.warnings
    assert GARLIC in services.store.indexed_paths()


def test_fifos_named_like_notes_are_skipped_instead_of_blocking(services: Services, vault: Path) -> None:
    os.mkfifo(vault / "Inbox/pipe.md")

    report = services.reindexer.run_once()

    assert ("Inbox/pipe.md", "not a regular file; skipped") in report.warnings
    assert "Inbox/pipe.md" not in services.store.indexed_paths()


def test_search_refuses_an_index_built_by_another_model(settings: Settings) -> None:
    from core.errors import IndexModelMismatch

    first = build_services(settings, embedder=HashingEmbedder(dim=64))
    first.reindexer.run_once()
    first.close()

    other = build_services(settings, embedder=HashingEmbedder(dim=64, model_id="another-64"))
    try:
        with pytest.raises(IndexModelMismatch, match="librarian index"):
            other.retriever.search("sourdough")
    finally:
        other.close()


def test_an_embedded_note_that_starts_failing_leaves_the_notes_that_embed_it(
    services: Services, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    services.reindexer.run_once()
    assert "Autolyse" in texts_of(services, REVIEW, "autolyse levain salt")
    (vault / SOURDOUGH).write_bytes(b"x" * (services.settings.max_note_bytes + 1))

    report = services.reindexer.run_once()

    assert [path for path, _ in report.errors] == [SOURDOUGH]
    assert REVIEW in report.refreshed
    assert "Autolyse" not in texts_of(services, REVIEW, "autolyse levain salt")


def test_a_model_change_interrupted_mid_reset_is_finished_by_the_next_run(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.errors import UpstreamUnavailable

    first = build_services(settings, embedder=HashingEmbedder(dim=64))
    first.reindexer.run_once()
    first.close()

    interrupted = build_services(settings, embedder=HashingEmbedder(dim=32))

    def reset_fails(identity: object) -> None:
        raise UpstreamUnavailable("qdrant", "killed mid-reset")

    monkeypatch.setattr(interrupted.store, "reset", reset_fails)
    with pytest.raises(UpstreamUnavailable):
        interrupted.reindexer.run_once()
    interrupted.close()

    resumed = build_services(settings, embedder=HashingEmbedder(dim=32))
    clean = build_services(
        settings.model_copy(update={"data_dir": tmp_path / "clean-data"}), embedder=HashingEmbedder(dim=32)
    )
    try:
        resumed.reindexer.run_once()
        clean.reindexer.run_once()
        assert index_snapshot(resumed) == index_snapshot(clean)
    finally:
        resumed.close()
        clean.close()


def test_a_note_that_keeps_failing_is_reported_each_run_without_rewriting_the_index(
    services: Services, vault: Path
) -> None:
    (vault / "Inbox/Huge.md").write_bytes(b"y" * (services.settings.max_note_bytes + 1))
    first = services.reindexer.run_once()
    failed_at = services.watermarks.all()["Inbox/Huge.md"].indexed_at

    again = services.reindexer.run_once()

    assert [path for path, _ in first.errors] == [path for path, _ in again.errors] == ["Inbox/Huge.md"]
    assert services.watermarks.all()["Inbox/Huge.md"].indexed_at == failed_at
    assert again.refreshed == [] and again.chunks_indexed == 0


def test_the_index_phase_and_its_total_are_reported_before_the_first_chunk_is_written(
    services: Services, vault: Path
) -> None:
    # A search reads "scan" as "nothing indexed yet": chunks written under it would be a partial index untold.
    seen: list[tuple[str, int, int, int]] = []

    def record(progress: Progress) -> None:
        seen.append((progress.phase, progress.notes_done, progress.notes_total, services.store.count()))

    services.reindexer.run_once(record)

    notes = len([p for p in vault.rglob("*.md") if ".trash" not in p.parts])
    first_index = next(event for event in seen if event[0] == "index")
    assert first_index == ("index", 0, notes, 0)
    assert all(phase == "scan" and chunks == 0 for phase, _, _, chunks in seen[: seen.index(first_index)])
    last_index = [event for event in seen if event[0] == "index"][-1]
    assert last_index[:3] == ("index", notes, notes) and last_index[3] > 0
