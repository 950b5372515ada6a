"""One hostile note beside ordinary ones (issue 8): the run finishes, the rest indexes, the note is listed and why.

No test here is timed: a case that would hang (as each did before its fix) fails through pytest-timeout.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.wiring import Services, build_services, utc_now
from core.domain import SearchFilters
from core.settings import Settings
from rag.indexer import NoteIndexer
from rag.notes.budget import NoteLimits
from sync.index_status import FileIssue, read_stored_status
from sync.reindex import Reindexer
from sync.report import ReindexReport
from tests.fakes import HashingEmbedder
from tests.hostile_notes import (
    big_note,
    billion_laughs,
    missing_links,
    quote_tower,
    random_bytes,
    repeated_embeds,
    write_hostile_vault,
)

ORDINARY = {"Ordinary.md", "Second.md"}
pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def hostile_vault(tmp_path: Path) -> Path:
    return tmp_path / "hostile"


@pytest.fixture
def hostile_services(hostile_vault: Path, tmp_path: Path) -> Iterator[Services]:
    hostile_vault.mkdir()
    settings = Settings(_env_file=None, vault_path=hostile_vault, data_dir=tmp_path / "data")
    built = build_services(settings, embedder=HashingEmbedder())
    yield built
    built.close()


def assert_ordinary_notes_indexed(services: Services, report: ReindexReport) -> None:
    assert set(report.added) >= ORDINARY
    assert services.store.indexed_paths() >= ORDINARY
    hits = services.retriever.search("rhubarb allotment", k=3)
    assert hits and hits[0].chunk.path == "Ordinary.md"


def error_of(services: Services, report: ReindexReport, path: str) -> str:
    """Return the reason `path` was not indexed, checking the run report and the watermarks agree on it."""
    reported = dict(report.errors)[path]
    assert services.watermarks.all()[path].last_error == reported
    assert path not in services.store.indexed_paths()
    return reported


def test_billion_laughs_frontmatter_is_ignored_and_the_note_indexes(
    hostile_services: Services, hostile_vault: Path
) -> None:
    write_hostile_vault(hostile_vault, "Laughs.md", billion_laughs(levels=9, width=9))

    report = hostile_services.reindexer.run_once()

    assert_ordinary_notes_indexed(hostile_services, report)
    assert "Laughs.md" in report.added
    warning = "frontmatter ignored: YAML aliases expand to more than 10000 values"
    assert ("Laughs.md", warning) in report.warnings
    assert warning in hostile_services.watermarks.all()["Laughs.md"].warnings
    hits = hostile_services.retriever.search("frontmatter bomb body", k=5)
    assert any(hit.chunk.path == "Laughs.md" for hit in hits)


def test_a_megabyte_of_random_bytes_is_not_a_text_file(hostile_services: Services, hostile_vault: Path) -> None:
    write_hostile_vault(hostile_vault, "Random.md", random_bytes(1_000_000))

    report = hostile_services.reindexer.run_once()

    assert_ordinary_notes_indexed(hostile_services, report)
    assert error_of(hostile_services, report, "Random.md").startswith("not a text file (")
    assert [warning for path, warning in report.warnings if path == "Random.md"] == []  # refused, not "replaced"


def test_random_bytes_without_nul_are_not_a_text_file_either(hostile_services: Services, hostile_vault: Path) -> None:
    write_hostile_vault(hostile_vault, "Garbage.md", random_bytes(200_000, has_nul=False))

    report = hostile_services.reindexer.run_once()

    assert_ordinary_notes_indexed(hostile_services, report)
    assert "invalid UTF-8" in error_of(hostile_services, report, "Garbage.md")


def test_sixty_thousand_links_on_one_line_index_their_first_chunks_by_default_and_the_status_says_so(
    hostile_services: Services, hostile_vault: Path
) -> None:
    # 1.37 MB, 2,067 chunks with the bundled model: about two minutes of embedding before its cost was bounded.
    write_hostile_vault(hostile_vault, "Links.md", missing_links(60_000))
    cap = hostile_services.settings.max_note_chunks

    report = hostile_services.reindexer.run_once()

    assert_ordinary_notes_indexed(hostile_services, report)
    assert "Links.md" in report.added and not report.errors
    assert hostile_services.store.chunk_counts()["Links.md"] == cap == 500
    warning = next(warning for path, warning in report.warnings if path == "Links.md")
    assert re.fullmatch(
        rf"indexed only its first {cap} of \d+ chunks \(MAX_NOTE_CHUNKS\): the rest is not searchable; "
        "split the note or raise the limit",
        warning,
    )
    status = read_stored_status(hostile_services.watermarks, hostile_services.store, hostile_services.docstore)
    assert FileIssue("Links.md", warning) in status.warnings
    only_links = SearchFilters(paths=("Links.md",))
    beginning = hostile_services.retriever.search("missing note 7", k=5, filters=only_links)
    assert beginning and "[[missing note 7]]" in beginning[0].chunk.text
    assert all(len(hit.chunk.links) < 300 for hit in beginning)
    end = hostile_services.retriever.search("missing note 59999", k=50, filters=only_links)
    assert not any("missing note 59999" in hit.chunk.text for hit in end)


def test_max_note_chunks_raised_indexes_the_whole_note(tmp_path: Path, hostile_vault: Path) -> None:
    write_hostile_vault(hostile_vault, "Links.md", missing_links(60_000))
    settings = Settings(_env_file=None, vault_path=hostile_vault, data_dir=tmp_path / "data", max_note_chunks=4000)
    services = build_services(settings, embedder=HashingEmbedder())
    try:
        report = services.reindexer.run_once()

        assert_ordinary_notes_indexed(services, report)
        assert 500 < services.store.chunk_counts()["Links.md"] < 4000
        assert not [warning for path, warning in report.warnings if path == "Links.md"]
        hits = services.retriever.search("missing note 59999", k=5, filters=SearchFilters(paths=("Links.md",)))
        assert hits and any("[[missing note 59999]]" in hit.chunk.text for hit in hits)
    finally:
        services.close()


def test_a_note_of_many_links_within_the_limit_indexes_with_the_links_its_chunks_show(
    hostile_services: Services, hostile_vault: Path
) -> None:
    write_hostile_vault(hostile_vault, "Links.md", missing_links(3_000))

    report = hostile_services.reindexer.run_once()

    assert "Links.md" in report.added
    hits = hostile_services.retriever.search("missing note", k=200, filters=SearchFilters(paths=("Links.md",)))
    assert len(hits) > 10
    # Every chunk of the one long line names the links it shows, not all 3,000 of the line.
    for chunk in (hit.chunk for hit in hits):
        shown = {f"missing note {n}" for n in range(3_000) if f"[[missing note {n}]]" in chunk.text}
        assert set(chunk.links) <= shown
        assert len(chunk.links) < 300


def test_a_deep_quote_tower_indexes(hostile_services: Services, hostile_vault: Path) -> None:
    write_hostile_vault(hostile_vault, "Quotes.md", quote_tower(100_000))

    report = hostile_services.reindexer.run_once()

    assert_ordinary_notes_indexed(hostile_services, report)
    assert "Quotes.md" in report.added
    assert not report.errors


def test_a_note_embedding_one_note_sixty_thousand_times_keeps_its_first_chunks(
    hostile_services: Services, hostile_vault: Path
) -> None:
    write_hostile_vault(hostile_vault, "Embeds.md", repeated_embeds(60_000, target="Big"))
    (hostile_vault / "Big.md").write_text(big_note(400), encoding="utf-8")

    report = hostile_services.reindexer.run_once()

    assert_ordinary_notes_indexed(hostile_services, report)
    assert {"Big.md", "Embeds.md"} <= set(report.added)
    assert hostile_services.store.chunk_counts()["Embeds.md"] == hostile_services.settings.max_note_chunks
    warning = hostile_services.watermarks.all()["Embeds.md"].warnings[0]
    cut = r"indexed only its first 500 of at least \d+ chunks \(MAX_NOTE_CHUNKS\), to line \d+ of 60000: "
    assert re.match(cut, warning)


def test_a_note_over_its_time_budget_is_skipped_with_the_reason(
    hostile_services: Services, hostile_vault: Path
) -> None:
    write_hostile_vault(hostile_vault, "Slow.md", "a line\n" * 200_000)
    ticks = itertools.count(step=10.0)  # every clock read is ten seconds later: the budget is spent by reads
    services = hostile_services
    indexer = NoteIndexer(
        services.embedder, overlap_tokens=32, limits=NoteLimits(seconds=1_000), clock=lambda: next(ticks)
    )
    reindexer = Reindexer(
        vault=services.settings.vault,
        embedder=services.embedder,
        indexer=indexer,
        store=services.store,
        docstore=services.docstore,
        watermarks=services.watermarks,
        links=services.links,
        clock=utc_now,
    )

    report = reindexer.run_once()

    assert_ordinary_notes_indexed(services, report)
    error = error_of(services, report, "Slow.md")
    assert error == "parsing and chunking took more than 1000 s (stopped while scanning lines)"


def test_a_refused_note_is_indexed_once_it_is_fixed(hostile_services: Services, hostile_vault: Path) -> None:
    path = write_hostile_vault(hostile_vault, "Links.md", random_bytes(100_000, has_nul=True))
    first = hostile_services.reindexer.run_once()
    assert "Links.md" in dict(first.errors)

    path.write_text("# Links\n\nNow only [[Ordinary]] and [[missing note 1]].\n", encoding="utf-8")
    second = hostile_services.reindexer.run_once()

    assert "Links.md" in second.added
    assert hostile_services.watermarks.all()["Links.md"].last_error is None
    assert "Links.md" in hostile_services.store.indexed_paths()


def test_warnings_of_one_note_are_capped_in_the_report_and_the_watermarks(
    hostile_services: Services, hostile_vault: Path
) -> None:
    write_hostile_vault(hostile_vault, "Hub.md", "".join(f"See [[Dup]] ({n}).\n" for n in range(100)))
    for folder in ("A", "B"):
        (hostile_vault / folder).mkdir()
        (hostile_vault / folder / "Dup.md").write_text(f"# Dup in {folder}\n", encoding="utf-8")

    report = hostile_services.reindexer.run_once()

    assert_ordinary_notes_indexed(hostile_services, report)
    warnings = [warning for path, warning in report.warnings if path == "Hub.md"]
    assert len(warnings) == 20
    assert warnings[0].startswith("line 1: link to 'Dup' is ambiguous")
    assert warnings[-1] == "... and 81 more warnings like these"
    assert list(hostile_services.watermarks.all()["Hub.md"].warnings) == warnings


def test_max_note_chunks_is_the_setting_the_run_applies(tmp_path: Path, hostile_vault: Path) -> None:
    sections = "".join(f"# Part {n}\n\nA few words about part {n} of the plan.\n\n" for n in range(6))
    write_hostile_vault(hostile_vault, "Plan.md", sections)
    settings = Settings(_env_file=None, vault_path=hostile_vault, data_dir=tmp_path / "data", max_note_chunks=3)
    services = build_services(settings, embedder=HashingEmbedder())
    try:
        report = services.reindexer.run_once()

        assert_ordinary_notes_indexed(services, report)
        assert services.store.chunk_counts()["Plan.md"] == 3
        warning = (
            "indexed only its first 3 of at least 4 chunks (MAX_NOTE_CHUNKS), to line 11 of 24: "
            "the rest is not searchable; split the note or raise the limit"
        )
        assert ("Plan.md", warning) in report.warnings
        hits = services.retriever.search("part 5 of the plan", k=3, filters=SearchFilters(paths=("Plan.md",)))
        assert all("part 5" not in hit.chunk.text for hit in hits)
    finally:
        services.close()
