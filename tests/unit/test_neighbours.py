"""The room the hits leave in the passages goes to the chunks around the best hit."""

from __future__ import annotations

from collections.abc import Sequence

from core.domain import Chunk, SearchHit
from rag.answer.context import build_context
from rag.answer.neighbours import ELEMENT_CHARS, Place, passage_chars, with_neighbours


def note_chunks(path: str, texts: Sequence[str], anchors: Sequence[str] | None = None) -> list[Chunk]:
    title = path.removesuffix(".md")
    return [
        Chunk(
            path=path,
            title=title,
            heading_path=(),
            anchor=(anchors[index] if anchors else f"[[{title}]]"),
            text=text,
            line_start=index * 10 + 1,
            line_end=index * 10 + 5,
            index=index,
        )
        for index, text in enumerate(texts)
    ]


class Reader:
    """Reads stored chunks by place, as VectorStore.chunks_at does (in the order asked, absent ones left out)."""

    def __init__(self, *notes: list[Chunk]) -> None:
        self.stored = {(chunk.path, chunk.index): chunk for chunks in notes for chunk in chunks}
        self.asked: list[list[Place]] = []

    def __call__(self, places: Sequence[Place]) -> list[Chunk]:
        self.asked.append(list(places))
        return [self.stored[place] for place in places if place in self.stored]


def hits(*chunks: Chunk) -> list[SearchHit]:
    return [SearchHit(chunk, 1.0 - rank / 10) for rank, chunk in enumerate(chunks)]


RECIPE = note_chunks(
    "Käsespätzle.md",
    ["Das Rezept meiner Großmutter.", "250 g Bergkäse, 100 g Emmentaler.", "Teig schlagen.", "Käse einschichten."],
    ["[[Käsespätzle]]", "[[Käsespätzle#Zutaten]]", "[[Käsespätzle#Zubereitung]]", "[[Käsespätzle#Zubereitung]]"],
)
OTHER = note_chunks("Kitchen.md", ["Recipes: Sourdough, Käsespätzle.", "Still to write down: plum cake."])


def test_the_chunks_around_a_hit_fill_the_room_left_up_to_two_chunks_away() -> None:
    found = with_neighbours(hits(RECIPE[3]), Reader(RECIPE), max_chars=1_000)

    # The method was found; the ingredients two chunks before it are what "which cheese?" needs.
    assert [hit.chunk.index for hit in found] == [3, 2, 1]
    assert all(hit.score == 1.0 for hit in found)


def test_a_neighbour_of_the_hits_section_is_joined_to_it_and_one_of_another_section_comes_after_every_hit() -> None:
    found = with_neighbours(hits(RECIPE[3], OTHER[0]), Reader(RECIPE, OTHER), max_chars=1_000)

    context = build_context(found, "Welchen Käse?", with_location=False)

    sources = [line.split('"')[1] for line in context.splitlines() if line.startswith("<note")]
    assert sources == ["[[Käsespätzle#Zubereitung]]", "[[Kitchen]]", "[[Käsespätzle#Zutaten]]"]
    assert "Teig schlagen.\nKäse einschichten." in context  # note order, one passage


def test_only_the_best_hit_gets_neighbours() -> None:
    reader = Reader(RECIPE, OTHER)

    found = with_neighbours(hits(OTHER[0], RECIPE[2]), reader, max_chars=10_000)

    assert [hit.chunk for hit in found] == [OTHER[0], RECIPE[2], OTHER[1]]
    assert reader.asked == [[("Kitchen.md", 1), ("Kitchen.md", 2)]]


def test_the_room_counts_each_passages_element_and_link() -> None:
    best = RECIPE[2]
    joined = passage_chars([best, RECIPE[3]])  # the chunk after, of the same section: one element for both
    assert joined == len("Teig schlagen.\nKäse einschichten.") + len(best.anchor) + ELEMENT_CHARS

    assert [hit.chunk for hit in with_neighbours(hits(best), Reader(RECIPE), max_chars=joined)] == [best, RECIPE[3]]
    assert with_neighbours(hits(best), Reader(RECIPE), max_chars=joined - 1) == hits(best)


def test_a_neighbour_too_long_for_the_room_is_skipped_and_a_shorter_one_still_fits() -> None:
    note = note_chunks("Log.md", ["Morning run.", "Standup at nine.", "x" * 500])

    found = with_neighbours(hits(note[1]), Reader(note), max_chars=passage_chars(note[:2]))

    assert [hit.chunk.index for hit in found] == [1, 0]  # the one after is too long; the one before fits


def test_the_window_grows_only_over_chunks_it_took() -> None:
    texts = ["a" * 40, "b" * 400, "c" * 40]
    note = note_chunks("Gaps.md", texts)

    found = with_neighbours(hits(note[0]), Reader(note), max_chars=passage_chars([note[0], note[2]]))

    assert [hit.chunk.index for hit in found] == [0]  # chunk 1 does not fit, so chunk 2 is not reached over it


def test_hits_that_fill_the_room_are_returned_as_they_are_without_reading_the_store() -> None:
    reader = Reader(RECIPE)
    retrieved = hits(*RECIPE[1:3])

    found = with_neighbours(retrieved, reader, max_chars=passage_chars([RECIPE[1], RECIPE[2]]))

    assert found == retrieved
    assert reader.asked == []


def test_no_hits_give_no_neighbours_and_the_first_chunk_has_none_before_it() -> None:
    reader = Reader(RECIPE)

    assert with_neighbours([], reader, max_chars=1_000) == []
    with_neighbours(hits(RECIPE[0]), reader, max_chars=1_000)
    assert all(index >= 0 for places in reader.asked for _, index in places)
