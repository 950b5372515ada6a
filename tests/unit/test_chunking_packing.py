"""Chunking inside a section: packing small paragraphs, cutting long text at natural boundaries, overlap."""

from __future__ import annotations

from tests.unit.chunk_notes import chunk, count_chars, count_words, lay_out, paragraph


def test_small_paragraphs_are_packed_and_cut_only_at_blank_lines() -> None:
    paragraphs = [paragraph(i, 8) for i in range(30)]
    laid = lay_out([(("Log",), "\n\n".join(paragraphs))])

    chunks = chunk(laid.note, max_tokens=40, overlap=0)

    assert len(chunks) > 1
    for piece in chunks:
        assert count_words(piece.embed_text) <= 40
        assert piece.text.split("\n\n") == [p for p in paragraphs if p in piece.text.split("\n\n")]
        assert len(piece.text.split("\n\n")) >= 2  # packed, not one paragraph a chunk
    assert [p for c in chunks for p in c.text.split("\n\n")] == paragraphs


def test_long_paragraph_is_cut_at_lines_before_sentences() -> None:
    lines = [f"Line {i} " + " ".join(f"t{i}_{j}" for j in range(6)) + "." for i in range(20)]
    laid = lay_out([(("Para",), "\n".join(lines))])

    chunks = chunk(laid.note, max_tokens=30, overlap=0)

    assert len(chunks) > 1
    assert all(row in lines for c in chunks for row in c.text.split("\n"))
    assert [row for c in chunks for row in c.text.split("\n")] == lines


def test_long_line_is_cut_at_sentences_then_words_then_characters() -> None:
    sentences = [f"Sentence {i} has a few words." for i in range(12)]
    words_only = " ".join(f"plain{i}" for i in range(80))
    giant = "x" * 5000
    laid = lay_out([(("A",), " ".join(sentences)), (("B",), words_only), (("C",), giant)])

    chunks = chunk(laid.note, count=count_chars, max_tokens=40, overlap=0)

    by_heading = {h: [c.text for c in chunks if c.heading == h] for h in ("A", "B", "C")}
    assert all(text.endswith(".") for text in by_heading["A"])  # whole sentences
    assert " ".join(by_heading["A"]) == " ".join(sentences)
    assert " ".join(by_heading["B"]) == words_only  # whole words
    assert "".join(by_heading["C"]) == giant  # characters, nothing lost
    assert all(count_chars(c.embed_text) <= 40 for c in chunks)


def test_next_chunk_of_a_section_starts_with_the_tail_of_the_previous_one() -> None:
    text = "\n\n".join(f"Topic {i} begins here. " + paragraph(i, 25) + f" Topic {i} ends here." for i in range(8))
    laid = lay_out([(("Long",), text)])

    chunks = chunk(laid.note, max_tokens=80, overlap=12)

    assert len(chunks) > 2
    for previous, current in zip(chunks, chunks[1:], strict=False):
        shared = next(
            (
                current.text[:size]
                for size in range(len(current.text), 0, -1)
                if previous.text.endswith(current.text[:size])
            ),
            "",
        )
        assert shared.strip(), f"no overlap between chunk {previous.index} and {current.index}"
        assert len(shared.split()) <= 12
        assert shared.endswith(".")  # whole sentences, not cut words
        assert current.line_start <= previous.line_end


def test_overlap_zero_repeats_nothing() -> None:
    text = "\n\n".join(paragraph(i, 20) for i in range(10))
    laid = lay_out([(("S",), text)])

    chunks = chunk(laid.note, max_tokens=50, overlap=0)

    assert [p for c in chunks for p in c.text.split("\n\n")] == text.split("\n\n")


def test_overlap_never_crosses_sections() -> None:
    laid = lay_out([(("One",), paragraph(1, 60)), (("Two",), paragraph(2, 60))])

    chunks = chunk(laid.note, max_tokens=40, overlap=10)

    for current in chunks:
        assert f"w{1 if current.heading == 'Two' else 2}x" not in current.text
