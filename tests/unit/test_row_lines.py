"""Where a trimmed passage is in its note: the lines of the rows kept, found in the note's text."""

from __future__ import annotations

from core.domain import Chunk
from rag.answer.row_lines import locate_rows, part_lines

NOTE = (
    "---\n"  # 1
    "tags: [garden]\n"  # 2
    "---\n"  # 3
    "# Beds\n"  # 4
    "\n"  # 5
    "Bed 1 has garlic.\n"  # 6
    "\n"  # 7
    "\n"  # 8  two blank lines: the chunk keeps one
    "Bed 2 has onions. <!-- the old plan --> Rotated yearly.\n"  # 9: the comment is not in the chunk
    "![[Bed 3 plan]]\n"  # 10: an embed, its text shown after it
    "Bed 4 is fallow.\n"  # 11
    "- [ ] water bed 4\n"  # 12
)
ROWS = [
    "Bed 1 has garlic.",
    "",
    "Bed 2 has onions.  Rotated yearly.",
    "![[Bed 3 plan]]",
    "Bed 3 grows beans (embedded from another note).",
    "Bed 4 is fallow.",
    "- [ ] water bed 4",
]
CHUNK = Chunk("Garden/Beds.md", "Beds", ("Beds",), "[[Beds#Beds]]", "\n".join(ROWS), line_start=6, line_end=12)


def test_rows_are_found_in_order_and_the_missing_ones_say_so() -> None:
    found = locate_rows(ROWS, NOTE.split("\n"), 6, 12)

    assert found == [6, None, None, 10, None, 11, 12]


def test_a_part_gets_the_lines_of_its_first_and_last_row() -> None:
    assert part_lines(CHUNK, 5, 6, NOTE) == (11, 12)
    assert part_lines(CHUNK, 0, 0, NOTE) == (6, 6)


def test_an_unlocated_row_reaches_to_its_located_neighbours() -> None:
    # Row 2 lost its comment, row 4 is embedded text: each range still holds the row.
    assert part_lines(CHUNK, 2, 3, NOTE) == (6, 10)
    assert part_lines(CHUNK, 4, 5, NOTE) == (10, 11)


def test_the_whole_chunk_keeps_its_own_range() -> None:
    assert part_lines(CHUNK, 0, len(ROWS) - 1, None) == (6, 12)


def test_without_the_note_a_part_gets_the_chunks_range_which_holds_it() -> None:
    # Seven rows on seven lines, yet row 2 is on line 9, not 8: a blank line went, an embedded row came.
    assert part_lines(CHUNK, 2, 2, None) == (6, 12)
