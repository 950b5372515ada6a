"""Answer passages leave out chunks that are only tags: they say nothing to read (rag/retrieve.saying_something)."""

from __future__ import annotations

from core.domain import Chunk, SearchHit
from rag.retrieve import saying_something


def hit(text: str, index: int = 0) -> SearchHit:
    return SearchHit(Chunk("Daily/2026-11-11.md", "2026-11-11", (), "[[2026-11-11]]", text, index=index), 0.1)


def test_a_chunk_of_tags_alone_is_left_out_of_passages_and_others_are_kept() -> None:
    hits = [
        hit("#project/librarian"),  # a daily note's title section under its heading
        hit("# Wednesday, 11 November 2026\n\n#daily #work\n", 1),
        hit("- 09:00 Ticket #4711 finally fixed.", 2),  # a number after "#" in a sentence stays
        hit("Tags: #garden #plot47", 3),
    ]

    assert [h.chunk.index for h in saying_something(hits)] == [2, 3]
