"""Chunking cost: the longest-run search and token counting stay cheap as notes grow."""

from __future__ import annotations

from rag.chunks.token_budget import largest_within, prefix_widths
from tests.unit.chunk_notes import chunk, count_words, lay_out, paragraph


def test_largest_within_finds_the_longest_run_with_few_counts() -> None:
    words = [f"w{i}" * (1 + i % 5) for i in range(5000)]
    widths = prefix_widths(words, " ")
    probes: list[int] = []

    def cost_of(count: int) -> int:
        probes.append(count)
        return len(" ".join(words[:count])) // 4

    count, cost = largest_within(cost_of, 300, widths, first_width=10)

    assert cost == cost_of(count) <= 300
    assert cost >= 300 - 300 // 32  # nearly full
    assert len(probes) <= 8


def test_token_counting_grows_linearly_with_note_size() -> None:
    calls = 0

    def counting(text: str) -> int:
        nonlocal calls
        calls += 1
        return count_words(text)

    blocks = 2000
    text = "\n\n".join(paragraph(i, 20) for i in range(blocks))
    laid = lay_out([(("Huge",), text + "\n\n" + "q" * 200_000)])

    chunks = chunk(laid.note, count=counting, max_tokens=256)

    assert len(chunks) > 100
    assert calls < 4 * blocks
