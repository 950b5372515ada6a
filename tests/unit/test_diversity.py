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


def scored(*pairs: tuple[str, float]) -> list[SearchHit]:
    """Return hits in rank order with the given fused scores."""
    return [
        SearchHit(Chunk(f"{label[0]}.md", label[0], (), f"[[{label[0]}]]", label, index=int(label[1:])), score)
        for label, score in pairs
    ]


def test_a_far_stronger_chunk_over_its_notes_share_takes_the_weakest_slot_of_passages() -> None:
    # The best note's third chunk (0.14) holds the fact; the last slots went to words in one list only (0.06, 0.05).
    ranked = scored(("A0", 0.18), ("A2", 0.17), ("A1", 0.14), ("B1", 0.07), ("C1", 0.06), ("D1", 0.05))

    assert labels(diversify_by_note(ranked, limit=5, per_note=2)) == ["A0", "A2", "B1", "C1", "D1"]
    assert labels(diversify_by_note(ranked, limit=5, per_note=2, outweigh=2.0)) == ["A0", "A2", "A1", "B1", "C1"]


def test_a_chunk_only_somewhat_stronger_leaves_the_second_note_its_slot() -> None:
    # A two-note question's second note is often a weaker hit: breadth wins until the gap is wide.
    ranked = scored(("A0", 0.18), ("A1", 0.17), ("A2", 0.12), ("B1", 0.09), ("C1", 0.08))

    assert labels(diversify_by_note(ranked, limit=4, per_note=2, outweigh=2.0)) == ["A0", "A1", "B1", "C1"]


def test_each_weakest_slot_goes_while_the_next_chunk_outweighs_it() -> None:
    ranked = scored(("A0", 0.2), ("A1", 0.2), ("A2", 0.15), ("A3", 0.12), ("A4", 0.11), ("B1", 0.07), ("C1", 0.05))

    # A2 (0.15) takes C1's slot (0.05); A3 (0.12) is not twice B1 (0.07), so B1 stays, and so does the rest.
    assert labels(diversify_by_note(ranked, limit=4, per_note=2, outweigh=2.0)) == ["A0", "A1", "A2", "B1"]


def test_scores_not_above_zero_turn_the_swap_off() -> None:
    ranked = scored(("A0", 3.0), ("A1", 2.5), ("A2", 2.0), ("B1", -1.0))

    assert labels(diversify_by_note(ranked, limit=3, per_note=2, outweigh=2.0)) == ["A0", "A1", "B1"]
