"""Diversity by note: at most N chunks of one note among the top k, the rest filled in ranking order."""

from __future__ import annotations

from core.domain import Chunk, SearchHit
from rag.diversity import diversify_by_note


def hits(*labels: str) -> list[SearchHit]:
    """Return hits in rank order; "A2" is the second chunk of note A.md, scores falling with rank."""
    return [
        SearchHit(Chunk(f"{label[0]}.md", label[0], (), f"[[{label[0]}]]", label, index=int(label[1:])), 1.0 - i / 100)
        for i, label in enumerate(labels)
    ]


def labels(result: list[SearchHit]) -> list[str]:
    return [hit.chunk.text for hit in result]


def test_a_note_with_many_matching_chunks_no_longer_crowds_out_the_next_notes() -> None:
    ranked = hits("A1", "A2", "A3", "A4", "A5", "B1", "A6", "C1")

    assert labels(diversify_by_note(ranked, limit=4, per_note=2)) == ["A1", "A2", "B1", "C1"]
    assert labels(diversify_by_note(ranked, limit=4, per_note=0)) == ["A1", "A2", "A3", "A4"]


def test_the_ranking_order_is_kept_among_the_chosen_hits() -> None:
    ranked = hits("A1", "B1", "A2", "A3", "B2", "C1", "B3")

    assert labels(diversify_by_note(ranked, limit=5, per_note=2)) == ["A1", "B1", "A2", "B2", "C1"]


def test_chunks_over_a_notes_share_fill_the_slots_no_other_note_can() -> None:
    # A search filtered to one note, or a vault where little else matches, still gets k hits.
    assert labels(diversify_by_note(hits("A1", "A2", "A3", "A4"), limit=3, per_note=1)) == ["A1", "A2", "A3"]
    assert labels(diversify_by_note(hits("A1", "A2", "A3", "B1"), limit=3, per_note=1)) == ["A1", "A2", "B1"]


def test_fewer_hits_than_the_limit_are_all_returned() -> None:
    assert labels(diversify_by_note(hits("A1", "A2", "B1"), limit=6, per_note=2)) == ["A1", "A2", "B1"]
    assert diversify_by_note([], limit=6, per_note=2) == []


def test_one_chunk_per_note_gives_as_many_notes_as_there_are() -> None:
    ranked = hits("A1", "A2", "B1", "B2", "C1", "D1")

    assert labels(diversify_by_note(ranked, limit=4, per_note=1)) == ["A1", "B1", "C1", "D1"]
