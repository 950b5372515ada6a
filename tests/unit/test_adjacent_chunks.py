"""Neighbouring chunks of one section are one passage for the model, the lines they share read once."""

from __future__ import annotations

from dataclasses import replace

from core.domain import Chunk, SearchHit
from rag.answer.adjacent_chunks import join_adjacent, join_texts
from rag.answer.context import build_context
from tests.unit.chunk_notes import chunk, lay_out

# The shape of vaultofknowledge's "Local AI Requirements > Sample Calculations": what is assumed first, the
# figures after it; the answer needs both, and the chunk cut falls between them.
CALCULATIONS = "\n\n".join(
    [
        "Assume GPT-3.5, unquantized. It has 175B Parameters, in FP32 precision (32 BPW). We'll assume the "
        "Context Size as 2048 tokens and a token rate of 10 tokens per second.",
        "- Weights Memory: 175B x 32 / 8 = 700 GB\n- Activation Memory = 175B x 2048/1000 = 358 GB",
        "- Bandwidth: 175B x 32 / 8 x 10 = 7 TB/s\n- Compute Required: 2 x 175B x 2048 = 717 TFLOPs per Token",
        "NVIDIA A100 has 80 GB VRAM. So one would need to offload the resources into the system memory.",
        "NVIDIA H100 has 1000 TFLOPS, so it can compute at most 1000 / 717 = 1.4 tokens per second. Real world "
        "performance is only 30-50% of the theoretical peak, so one could expect 0.5-1 tokens per second.",
    ]
)


def section_chunks() -> tuple[list[Chunk], list[str]]:
    laid = lay_out([(("Sample Calculations",), CALCULATIONS)], title="Local AI Requirements")
    chunks = chunk(laid.note, max_tokens=70, overlap=16, link_text="Local AI Requirements")
    return chunks, laid.lines


def test_the_chunker_cuts_the_section_into_neighbours_that_repeat_a_tail() -> None:
    chunks, _ = section_chunks()
    # The premise of joining: more than one chunk, all of one anchor, the second repeating the first's end.
    assert len(chunks) >= 2
    assert {piece.anchor for piece in chunks} == {"[[Local AI Requirements#Sample Calculations]]"}
    assert chunks[1].text.split("\n")[0] in chunks[0].text


def test_neighbouring_chunks_found_in_any_order_are_one_passage_of_the_section_in_note_order() -> None:
    chunks, lines = section_chunks()
    joined = join_adjacent(list(reversed(chunks)))

    assert len(joined) == 1
    passage = joined[0]
    assert passage.line_start == chunks[0].line_start
    assert passage.line_end == chunks[-1].line_end
    # Every line of the section once, in order: the repeated tails are read once.
    body = [line for line in lines[1:] if line.strip()]
    assert [row for row in passage.text.split("\n") if row.strip()] == body


def test_the_context_sends_the_joined_passage_once_under_the_better_hits_rank() -> None:
    chunks, _ = section_chunks()
    other = Chunk(path="Garlic.md", title="Garlic", heading_path=(), anchor="[[Garlic]]", text="Planted 40 cloves.")
    hits = [SearchHit(chunks[-1], 0.9), SearchHit(other, 0.8), *(SearchHit(piece, 0.5) for piece in chunks[:-1])]

    context = build_context(hits, "How fast could one H100 run GPT-3.5?")

    assert context.count("<note ") == 2
    assert context.index("Local AI Requirements") < context.index("Garlic")
    assert context.count("NVIDIA A100 has 80 GB VRAM.") == 1
    assert "Assume GPT-3.5" in context and "0.5-1 tokens per second" in context
    assert f'lines="{chunks[0].line_start}-{chunks[-1].line_end}"' in context


def test_chunks_of_other_sections_or_not_next_to_each_other_stay_apart() -> None:
    chunks, _ = section_chunks()
    first, second = chunks[0], chunks[1]
    other_heading = replace(second, anchor="[[Local AI Requirements#Scaling]]", heading_path=("Scaling",))
    other_note = replace(second, path="Copy.md", anchor="[[Copy#Sample Calculations]]")
    far = replace(second, index=first.index + 2)

    for neighbour in (other_heading, other_note, far):
        assert join_adjacent([first, neighbour]) == [first, neighbour]


def test_a_chunk_bridging_two_found_neighbours_makes_one_passage() -> None:
    rows = [f"Row {number} says something of its own about the section." for number in range(5)]
    pieces = [
        Chunk(
            path="N.md", title="N", heading_path=(), anchor="[[N]]", text=row, line_start=n + 1, line_end=n + 1, index=n
        )
        for n, row in enumerate(rows)
    ]
    joined = join_adjacent([pieces[1], pieces[3], pieces[2]])

    assert [piece.text for piece in joined] == ["\n".join(rows[1:4])]


def test_join_texts_drops_the_repeated_rows_or_characters_and_keeps_a_short_chance_match() -> None:
    assert join_texts("a\nshared row one\nshared row two", "shared row one\nshared row two\nb") == (
        "a\nshared row one\nshared row two\nb"
    )
    # A long paragraph cut between sentences repeats the end of a row.
    assert join_texts("First sentence. The repeated second sentence.", "The repeated second sentence. Third.") == (
        "First sentence. The repeated second sentence. Third."
    )
    # A common "- " is no repeated tail.
    assert join_texts("- one\n- ", "- two") == "- one\n- \n- two"
    assert join_texts("ends here", "starts there") == "ends here\nstarts there"
