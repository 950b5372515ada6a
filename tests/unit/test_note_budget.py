"""What one note may cost to index (rag.notes.budget, rag.indexer): deadline, chunk cap, text check, warnings cap."""

from __future__ import annotations

import itertools
import re

import pytest

from core.domain import Link
from rag.indexer import NoteIndexer
from rag.notes.budget import NoteBudget, NoteLimits, NoteTooCostly, NotText, cap_warnings, check_is_text
from rag.notes.links import LinkResolver
from tests.fakes import HashingEmbedder
from tests.hostile_notes import random_bytes

RESOLVER = LinkResolver(["Note.md"])


class SteppingClock:
    """A clock that moves `step` seconds per read while running, and stands still once stopped."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_the_budget_is_spent_by_clock_reads_and_names_the_stage() -> None:
    ticks = itertools.count(step=1.0)
    budget = NoteBudget(NoteLimits(seconds=3), clock=lambda: next(ticks))
    budget.check("scanning lines")
    budget.check("scanning lines")
    budget.check("scanning lines")
    with pytest.raises(NoteTooCostly, match=r"took more than 3 s \(stopped while chunking\)"):
        budget.check("chunking")


def test_random_bytes_are_not_text_but_nul_padding_and_latin_1_are() -> None:
    with pytest.raises(NotText, match=r"not a text file \(\d+% of its characters"):
        check_is_text(random_bytes(20_000).decode("utf-8", errors="replace"))
    with pytest.raises(NotText):
        check_is_text(random_bytes(20_000, has_nul=False).decode("utf-8", errors="replace"))
    # A real vault holds a note of a few lines followed by 3,836 NUL bytes (a crash or sync artefact).
    check_is_text("A note about magic numbers.\n\n" + "\x00" * 4_000)
    latin_1 = "Le café est très bon, même en été à Orléans.\n" * 50
    check_is_text(latin_1.encode("latin-1").decode("utf-8", errors="replace"))
    check_is_text("")


def test_warnings_past_the_cap_are_counted_in_the_last_one() -> None:
    warnings = [f"line {n}: odd" for n in range(100)]

    capped = cap_warnings(warnings, limit=5)

    assert capped == [*warnings[:4], "... and 96 more warnings like these"]
    assert cap_warnings(warnings[:5], limit=5) == warnings[:5]


def test_a_note_past_its_chunk_cap_keeps_its_first_chunks_and_says_how_many_of_how_many() -> None:
    indexer = NoteIndexer(HashingEmbedder(max_tokens=32), overlap_tokens=4, limits=NoteLimits(max_chunks=5))
    long_text = "".join(f"# Part {n}\n\nSome words about part {n}.\n\n" for n in range(20))

    capped = indexer.prepare("Note.md", long_text, resolver=RESOLVER)
    whole = indexer.prepare("Note.md", long_text, resolver=RESOLVER, max_chunks=50)

    assert len(whole.chunks) == 20
    assert capped.chunks == whole.chunks[:5]  # the note's beginning, as a whole run would index it
    assert capped.note.warnings[0] == (
        "indexed only its first 5 of at least 6 chunks (MAX_NOTE_CHUNKS), to line 19 of 80: "
        "the rest is not searchable; split the note or raise the limit"
    )
    assert not whole.note.warnings


def test_a_one_line_note_past_its_chunk_cap_counts_all_its_chunks() -> None:
    indexer = NoteIndexer(HashingEmbedder(max_tokens=32), overlap_tokens=0, limits=NoteLimits(max_chunks=3))
    line = " ".join(f"word{n}" for n in range(400))

    prepared = indexer.prepare("Note.md", line, resolver=RESOLVER)

    made = len(indexer.prepare("Note.md", line, resolver=RESOLVER, max_chunks=10_000).chunks)
    assert len(prepared.chunks) == 3 and made > 3
    expected = f"indexed only its first 3 of {made} chunks (MAX_NOTE_CHUNKS): the rest"
    assert prepared.note.warnings[0].startswith(expected)
    assert "word0 " in prepared.chunks[0].text and "word399" not in " ".join(c.text for c in prepared.chunks)


def test_embeds_past_what_the_capped_chunks_hold_are_not_read_and_the_note_keeps_its_beginning() -> None:
    reads: list[str] = []

    def shown(link: Link) -> str:
        reads.append(link.target)
        return f"Chapter {link.target}. " + "Words of the chapter. " * 100

    indexer = NoteIndexer(HashingEmbedder(max_tokens=32), overlap_tokens=0, limits=NoteLimits(max_chunks=4))
    text = "# Book\n\n" + "".join(f"![[ch{n}]]\n" for n in range(200))
    resolver = LinkResolver([f"ch{n}.md" for n in range(200)])

    prepared = indexer.prepare("Book.md", text, resolver=resolver, embedded_text=lambda _path, link: shown(link))

    assert len(prepared.chunks) == 4 and "Chapter ch0." in prepared.chunks[1].text
    assert len(reads) < 10  # 4 chunks hold 8,000 characters at most: reading 200 chapters would be wasted
    cut = r"indexed only its first 4 of at least \d+ chunks \(MAX_NOTE_CHUNKS\), to line 3 of 202: "
    assert re.match(cut, prepared.note.warnings[0])


def test_nul_padding_at_the_end_is_dropped_before_chunking() -> None:
    indexer = NoteIndexer(HashingEmbedder(), overlap_tokens=4)

    prepared = indexer.prepare("Note.md", "# Note\n\nMagic numbers.\n\n" + "\x00" * 3_836, resolver=RESOLVER)

    assert [chunk.text for chunk in prepared.chunks] == ["Magic numbers."]


def test_an_unchanged_refused_note_is_refused_again_without_spending_its_budget_again() -> None:
    clock = SteppingClock(step=10.0)
    indexer = NoteIndexer(HashingEmbedder(), overlap_tokens=4, limits=NoteLimits(seconds=100), clock=clock)
    slow = "a line\n" * 100_000
    with pytest.raises(NoteTooCostly, match="stopped while scanning lines"):
        indexer.prepare("Note.md", slow, resolver=RESOLVER)
    reads = clock.now

    with pytest.raises(NoteTooCostly, match="stopped while scanning lines"):
        indexer.prepare("Note.md", slow, resolver=RESOLVER)
    assert clock.now == reads  # not parsed again

    clock.step = 0.0  # the machine is fast again: a changed note is prepared afresh
    assert indexer.prepare("Note.md", slow + "one more line\n", resolver=RESOLVER).chunks
