"""A line an embed repeats in another passage is sent once, in the passage of the note that holds it."""

from __future__ import annotations

from core.domain import Chunk, Link, SearchHit
from rag.answer.attribution import passages_in
from rag.answer.context import build_context
from rag.answer.repeated_lines import without_repeated_lines
from tests.unit.chunk_notes import chunk, lay_out

GARLIC = (
    "42 cloves of 'Germidour' (a French softneck) planted on 8 November 2026 in bed 3, 15 cm apart.\n"
    "Harvest expected early July 2027, when the lower third of the leaves has turned brown."
)


def garlic_note() -> Chunk:
    (only,) = chunk(lay_out([(("Garlic",), GARLIC)], title="Garlic").note, link_text="Garlic")
    return only


def map_of_content(*, own_text: str = "") -> Chunk:
    """A note embedding the Garlic note (indexed with its text in place), with `own_text` after the embed."""
    body = "![[Garlic]]" + (f"\n{own_text}" if own_text else "")
    embed = Link(target="Garlic", is_embed=True, line=2)
    laid = lay_out([(("In the ground",), body)], title="Garden MOC", links=[embed])
    (only,) = chunk(laid.note, link_text="Garden MOC", embedded=lambda link: GARLIC)
    return only


def hits(*chunks: Chunk) -> list[SearchHit]:
    return [SearchHit(chunk=c, score=1.0 - rank / 10) for rank, c in enumerate(chunks)]


def test_an_embedding_note_found_first_leaves_the_lines_to_the_note_that_holds_them() -> None:
    moc, garlic = (
        map_of_content(own_text="Beds 1 and 2 rest under leaf mulch until March, nothing sown in them."),
        garlic_note(),
    )
    assert GARLIC in moc.text  # indexed as Obsidian shows it: the embedded text in place

    passages = passages_in(build_context(hits(moc, garlic), "How many garlic cloves did I plant?"))

    assert [p.source for p in passages] == ["[[Garden MOC#In the ground]]", "[[Garlic#Garlic]]"]
    assert "42 cloves" not in passages[0].text and "Beds 1 and 2 rest" in passages[0].text
    assert "![[Garlic]]" in passages[0].text  # still says what it embeds
    assert GARLIC in passages[1].text


def test_an_embedding_note_with_nothing_of_its_own_is_left_out() -> None:
    garlic, moc = garlic_note(), map_of_content()

    passages = passages_in(build_context(hits(garlic, moc), "How many garlic cloves did I plant?"))

    assert [p.source for p in passages] == ["[[Garlic#Garlic]]"]


def test_a_line_repeated_with_no_embed_is_kept_in_the_first_passage_and_short_lines_repeat() -> None:
    task = "- [ ] Water the plants"  # short: such lines repeat by chance across notes
    copied = "Copied into two notes by hand, this line is long enough to count as a repeat."
    first = chunk(lay_out([(("A",), f"{copied}\n{task}\nThe first note's own line.")], title="First").note)[0]
    second = chunk(lay_out([(("B",), f"{task}\n{copied}\nThe second note's own line.")], title="Second").note)[0]

    kept = without_repeated_lines([first, second])

    assert kept[0] == first
    assert kept[1].text == f"{task}\nThe second note's own line."
    assert without_repeated_lines([garlic_note()]) == [garlic_note()]


HEADER = "| Album | Artist | Rating | Year | Genre |"  # 41 characters: long enough to count as a repeat
DELIMITER = "| --- | --- | --- | --- | --- |"
ROW = "| [[Bass on Top]] | [[Paul Chambers]] | 7 | 1957 | [[Jazz]] |"


def note_with(title: str, body: str) -> Chunk:
    return chunk(lay_out([((title,), body)], title=title).note)[0]


def test_a_table_whose_rows_another_passage_holds_leaves_no_delimiter_row_behind() -> None:
    # kepano-obsidian: the artist's note and the category notes show one base view's rows (written out at
    # answer time); the category notes sent "| --- | --- | --- | --- | --- |" alone.
    artist = note_with("Paul Chambers", f"{HEADER}\n{DELIMITER}\n{ROW}")
    category = note_with("Albums", f"{HEADER}\n{DELIMITER}\n{ROW}")
    with_text = note_with("Jazz", f"Jazz records I keep coming back to.\n{HEADER}\n{DELIMITER}\n{ROW}")

    kept = without_repeated_lines([artist, category, with_text])

    assert [c.title for c in kept] == ["Paul Chambers", "Jazz"]
    assert kept[0] == artist
    assert kept[1].text.endswith("Jazz records I keep coming back to.")
    assert DELIMITER not in kept[1].text


def test_a_short_header_without_its_rows_goes_with_its_delimiter_row() -> None:
    header = "| Album | Year |"  # short: not a repeat itself
    rows = "| [[Bass on Top]] by Paul Chambers on Blue Note | 1957 |"
    first = note_with("Paul Chambers", f"{header}\n| --- | --- |\n{rows}")
    second = note_with("Albums", f"Bought on vinyl in Lyon.\n{header}\n| --- | --- |\n{rows}\nPlayed weekly.")

    kept = without_repeated_lines([first, second])

    assert "|" not in kept[1].text
    assert "Bought on vinyl in Lyon." in kept[1].text and "Played weekly." in kept[1].text


def test_an_untouched_passage_keeps_its_rules_and_tables_as_written() -> None:
    own = note_with("Log", "---\nA rule above.\n| Album | Year |\n| --- | --- |\n\nAn empty table above.")

    assert without_repeated_lines([own]) == [own]
