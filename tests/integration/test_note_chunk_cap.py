"""MAX_NOTE_CHUNKS changed between runs: notes it cut grow back, notes over the new limit are cut, others stay."""

from __future__ import annotations

from pathlib import Path

from app.wiring import build_services
from core.settings import Settings
from sync.report import ReindexReport
from tests.fakes import HashingEmbedder
from tests.hostile_notes import write_hostile_vault

PLAN = "".join(f"# Part {n}\n\nA few words about part {n} of the plan.\n\n" for n in range(6))


def index_with_cap(vault: Path, data_dir: Path, cap: int) -> tuple[ReindexReport, int, tuple[str, ...]]:
    """Run the index with MAX_NOTE_CHUNKS=`cap`; return the report, Plan.md's chunks and its warnings."""
    settings = Settings(_env_file=None, vault_path=vault, data_dir=data_dir, max_note_chunks=cap)
    services = build_services(settings, embedder=HashingEmbedder())
    try:
        report = services.reindexer.run_once()
        return report, services.store.chunk_counts()["Plan.md"], services.watermarks.all()["Plan.md"].warnings
    finally:
        services.close()


def test_a_raised_limit_indexes_the_rest_of_a_cut_note_and_a_lowered_one_cuts_it_again(tmp_path: Path) -> None:
    vault, data_dir = tmp_path / "vault", tmp_path / "data"
    write_hostile_vault(vault, "Plan.md", PLAN)

    _, cut_chunks, cut_warnings = index_with_cap(vault, data_dir, 3)
    raised, whole_chunks, whole_warnings = index_with_cap(vault, data_dir, 50)
    same, _, _ = index_with_cap(vault, data_dir, 50)
    lowered, again_chunks, again_warnings = index_with_cap(vault, data_dir, 4)

    assert (cut_chunks, whole_chunks, again_chunks) == (3, 6, 4)
    assert cut_warnings[0].startswith("indexed only its first 3 of at least 4 chunks")
    assert whole_warnings == ()
    assert again_warnings[0].startswith("indexed only its first 4 of at least 5 chunks")
    # Only the cut note is indexed again, and its chunks already embedded are reused.
    assert (raised.modified, raised.unchanged, raised.chunks_embedded) == (["Plan.md"], 2, 3)
    assert (same.modified, same.unchanged) == ([], 3)
    assert (lowered.modified, lowered.unchanged, lowered.chunks_embedded) == (["Plan.md"], 2, 0)
