"""A section the question names by its numbered heading comes first (rag/named_sections.py)."""

from __future__ import annotations

from core.domain import Chunk, SearchHit
from rag.named_sections import named_sections_first


def hit(path: str, *headings: str, score: float = 0.5) -> SearchHit:
    chunk = Chunk(
        path=path, title=path.removesuffix(".md"), heading_path=headings, anchor=f"[[{path}]]", text="4 runs, 28.6 km"
    )
    return SearchHit(chunk=chunk, score=score)


def order(question: str, hits: list[SearchHit]) -> list[tuple[str, ...]]:
    return [found.chunk.heading_path for found in named_sections_first(question, hits)]


def test_a_section_named_by_its_numbered_heading_goes_first() -> None:
    # sample_vault: "Week 44"'s "4 runs, 28.6 km" was closest to "how many km did I run", and the note's share of
    # the passages went to it and the year so far
    hits = [
        hit("Running Log.md", "Running Log", "Week 44 (26 Oct – 1 Nov)", score=0.18),
        hit("Running Log.md", "Running Log", "Year so far", score=0.14),
        hit("Running Log.md", "Running Log", "Week 45 (2 – 8 Nov)", score=0.13),
    ]
    assert order("How many km did I run in week 45?", hits) == [
        ("Running Log", "Week 45 (2 – 8 Nov)"),
        ("Running Log", "Week 44 (26 Oct – 1 Nov)"),
        ("Running Log", "Year so far"),
    ]


def test_a_heading_of_words_alone_or_a_number_inside_another_is_no_name() -> None:
    hits = [hit("Smoke Testing.md", "Time zones"), hit("Pacific-Auckland.md"), hit("Log.md", "Week 45")]
    # "Recurring tasks", "Dataview format": said in questions about other notes too
    assert order("How do I test time zones in Auckland?", hits) == [("Time zones",), (), ("Week 45",)]
    assert order("What happened in week 451?", hits) == [("Time zones",), (), ("Week 45",)]  # "451" is not "45"
