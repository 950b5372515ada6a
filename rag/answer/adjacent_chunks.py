"""Neighbouring chunks of one section read as one passage: the text between them is read once, in note order.

A section longer than a chunk is cut into chunks that repeat the previous chunk's tail (rag/chunks/chunking.py),
and an answer often sits across such a cut, so both halves are among the hits. Sent apart they repeat the shared
lines (paid for twice out of one character budget) and split the statement from what it is about: asked how fast
a datacenter card runs GPT-3.5, the 1.5B read "Assume GPT-3.5 … 175B Parameters" and "NVIDIA H100 … 0.5-1 tokens
per second" in two passages, the second cut before the first's lines, and refused. Joined, they are one passage
under the better hit's rank, with one citation: only chunks of the same heading (the same `anchor`) are joined.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from core.domain import Chunk

MIN_CHAR_OVERLAP = 16  # a shorter common end and start is chance (a "- " bullet), not the repeated tail


def join_adjacent(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Return `chunks` (best first, each once) with each run of neighbouring chunks of one section joined.

    A chunk joins an earlier one's group when it has the same note and anchor and its index is next to one of the
    group's; the group stands where its best chunk stood. Chunks of other sections or notes keep their places.
    """
    groups: list[list[Chunk]] = []
    for chunk in chunks:
        group = next((group for group in groups if _is_next_to(chunk, group)), None)
        if group is None:
            groups.append([chunk])
        else:
            group.append(chunk)
            # A chunk may bridge two groups of the section (hits 3 and 5 come before 4): one passage, not two.
            bridged = next((other for other in groups if other is not group and _is_next_to(chunk, other)), None)
            if bridged is not None:
                group.extend(bridged)
                groups.remove(bridged)
    return [_joined(sorted(group, key=lambda chunk: chunk.index)) for group in groups]


def _is_next_to(chunk: Chunk, group: Sequence[Chunk]) -> bool:
    return any(
        other.path == chunk.path and other.anchor == chunk.anchor and abs(other.index - chunk.index) == 1
        for other in group
    )


def _joined(run: Sequence[Chunk]) -> Chunk:
    """Return one chunk holding a run of neighbours (in note order): their text without the repeated tails."""
    first = run[0]
    if len(run) == 1:
        return first
    text = first.text
    for chunk in run[1:]:
        text = join_texts(text, chunk.text)
    return replace(
        first,
        text=text,
        tags=tuple(dict.fromkeys(tag for chunk in run for tag in chunk.tags)),
        links=tuple(dict.fromkeys(link for chunk in run for link in chunk.links)),
        line_start=min(chunk.line_start for chunk in run),
        line_end=max(chunk.line_end for chunk in run),
    )


def join_texts(before: str, after: str) -> str:
    """Return `before` followed by `after`, the rows (else characters) `after` repeats from `before`'s end left out."""
    rows_before, rows_after = before.split("\n"), after.split("\n")
    for size in range(min(len(rows_before), len(rows_after)), 0, -1):
        if rows_before[-size:] == rows_after[:size] and any(row.strip() for row in rows_after[:size]):
            return "\n".join([*rows_before, *rows_after[size:]])
    # The repeated tail may start inside a row (a long paragraph cut between sentences).
    for size in range(min(len(before), len(after)), MIN_CHAR_OVERLAP - 1, -1):
        if before.endswith(after[:size]):
            return before + after[size:]
    return f"{before}\n{after}"
