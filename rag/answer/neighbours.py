"""The chunks around the best hit, added while the passages leave room: an answer often sits beside its hit.

A question matches a chunk by its words, and the fact it asks for may be a row further on or a few rows before,
cut into the next chunk: asked which cheese goes into Käsespätzle, the search finds the method and the tips, not
the ingredients two chunks above them. When a turn's passages leave room in their budget (ANSWER_PASSAGE_CHARS,
the elements' tags counted), it may go to the best hit's neighbours (ANSWER_NEIGHBOUR_CHUNKS, off by default:
at the default budget the real models gained nothing measurable, docs/benchmarks.md at stop 30), read by their
place in the note rather than searched for. Only the best hit's: the neighbours of every hit filled the room on
obsidian-tasks-demo with task lists of other sections (the third turn of `bench.prompt_tokens` went from 740 to
1,713 tokens new to the cache) and found no more golden evidence than the best hit's alone
(`bench.context_recall`). A neighbour of the same section is joined to its hit (rag/answer/adjacent_chunks.py); one
of another section is a passage of its own after the hits', with its own citation. Nothing retrieved is displaced
or cut for a neighbour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.domain import Chunk, SearchHit
from rag.answer.adjacent_chunks import join_adjacent

Place = tuple[str, int]  # a chunk's note path and its index in the note
MAX_DISTANCE = 2
# A passage's `<note source="">`, `</note>` and the blank line after it, besides its link (rag/answer/context.py).
ELEMENT_CHARS = len('<note source="">\n\n</note>\n\n')


def passage_chars(chunks: Sequence[Chunk]) -> int:
    """Return the characters `chunks` make as passages, each with its element's tags (one section's joined).

    The tags count: the model reads them too, and on a vault of short sections (obsidian-tasks-demo) a neighbour
    of another section costs as much in its `<note source="[[…]]">` as in its text.
    """
    return sum(len(chunk.text) + len(chunk.anchor) + ELEMENT_CHARS for chunk in join_adjacent(chunks))


def with_neighbours(
    hits: Sequence[SearchHit],
    read_chunks: Callable[[Sequence[Place]], list[Chunk]],
    *,
    max_chars: int,
    max_distance: int = MAX_DISTANCE,
) -> list[SearchHit]:
    """Return `hits` with the chunks around the best one added while the passages fit `max_chars`.

    The window grows a chunk a side at a time (the one after first), up to `max_distance` chunks away, only over
    chunks already added (no gaps). Neighbours come after all hits, with the best hit's score: one of its section
    is joined to it where it stands, one of another section is a passage after every hit's, so what lists the
    passages best first ("the closest notes") still lists the hits first. One too long for the room left is
    skipped (a shorter one may still fit). Hits that fill the room already are returned as they are.

    Args:
        hits: the retrieved hits, best first.
        read_chunks: reads the stored chunks at these places (absent ones left out).
        max_chars: the passage characters a turn sends (ANSWER_PASSAGE_CHARS).
        max_distance: how many chunks away from the best hit a neighbour may be.

    """
    chosen = list(hits)
    if not hits:
        return chosen
    best = hits[0]
    present = {_place(hit.chunk) for hit in chosen}
    wanted = [place for place in _window(best.chunk, max_distance) if place not in present]
    if not wanted or passage_chars(_unique_chunks(chosen)) >= max_chars:
        return chosen
    found = {_place(chunk): chunk for chunk in read_chunks(wanted)}
    for distance in range(1, max_distance + 1):
        for place in _reachable(best.chunk, distance, present):
            neighbour = found.get(place)
            if neighbour is None or place in present:
                continue
            trial = [*chosen, SearchHit(neighbour, best.score)]
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
