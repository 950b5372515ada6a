"""The chunks next to the best hits, added while the passages leave room: an answer often sits beside its hit.

A question matches a chunk by its words, and the fact it asks for may be a row further on or a few rows before,
cut into the next chunk: asked which cheese goes into Käsespätzle, the search finds the method and the tips, not
the ingredients just above them; asked whether cdmaOne phones take SIM cards, the line saying so followed the 4th
hit and ranked 20th. The passages of a turn rarely fill their budget (ANSWER_PASSAGE_CHARS), so the room left is
given to the hits' neighbours, best hit first, each read by its place in the note rather than searched for. A
neighbour of the same section is joined to its hit (rag/answer/adjacent_chunks.py); one of another section is a
passage of its own after the hits', with its own citation. Nothing retrieved is displaced or cut for a neighbour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.domain import Chunk, SearchHit
from rag.answer.adjacent_chunks import join_adjacent

Place = tuple[str, int]  # a chunk's note path and its index in the note
MAX_DISTANCE = 2


def passage_chars(chunks: Sequence[Chunk]) -> int:
    """Return the characters of text `chunks` make as passages (neighbours of one section joined)."""
    return sum(len(chunk.text) for chunk in join_adjacent(chunks))


def with_neighbours(
    hits: Sequence[SearchHit],
    read_chunks: Callable[[Sequence[Place]], list[Chunk]],
    *,
    max_chars: int,
    max_distance: int = MAX_DISTANCE,
) -> list[SearchHit]:
    """Return `hits` with the chunks around each added (best hit first) while the passages fit `max_chars`.

    The window around a hit grows a chunk a side at a time, up to `max_distance` chunks away, only over chunks
    already added (no gaps). Neighbours come after all hits, with their hit's score: one of a hit's section is
    joined to it where it stands, one of another section is a passage after every hit's, so what lists the
    passages best first ("the closest notes") still lists the hits first. One too long for the room left is
    skipped (a shorter one may still fit). Hits that fill the room already are returned as they are.

    Args:
        hits: the retrieved hits, best first.
        read_chunks: reads the stored chunks at these places (absent ones left out).
        max_chars: the passage text a turn sends (ANSWER_PASSAGE_CHARS).
        max_distance: how many chunks away from a hit a neighbour may be.

    """
    chosen = list(hits)
    present = {_place(hit.chunk) for hit in chosen}
    wanted = [place for hit in hits for place in _window(hit.chunk, max_distance) if place not in present]
    if not wanted or passage_chars(_unique_chunks(chosen)) >= max_chars:
        return chosen
    found = {_place(chunk): chunk for chunk in read_chunks(list(dict.fromkeys(wanted)))}
    for hit in hits:  # the best hit's window first: its note is the likeliest to hold the rest of the answer
        for distance in range(1, max_distance + 1):
            for place in _reachable(hit.chunk, distance, present):
                neighbour = found.get(place)
                if neighbour is None or place in present:
                    continue
                trial = [*chosen, SearchHit(neighbour, hit.score)]
                if passage_chars(_unique_chunks(trial)) <= max_chars:
                    chosen = trial
                    present.add(place)
    return chosen


def _window(chunk: Chunk, max_distance: int) -> list[Place]:
    """Return the places up to `max_distance` chunks after and before `chunk`."""
    indexes = [chunk.index + step * distance for distance in range(1, max_distance + 1) for step in (1, -1)]
    return [(chunk.path, index) for index in indexes if index >= 0]


def _reachable(chunk: Chunk, distance: int, present: set[Place]) -> list[Place]:
    """Return the places `distance` after and before `chunk` reached over present chunks, the one after first.

    Text that follows a hit more often completes it than text before it.
    """
    places = []
    for step in (1, -1):
        index = chunk.index + step * distance
        if index >= 0 and (distance == 1 or (chunk.path, index - step) in present):
            places.append((chunk.path, index))
    return places


def _unique_chunks(hits: Sequence[SearchHit]) -> list[Chunk]:
    return list({_place(hit.chunk): hit.chunk for hit in hits}.values())


def _place(chunk: Chunk) -> Place:
    return (chunk.path, chunk.index)
