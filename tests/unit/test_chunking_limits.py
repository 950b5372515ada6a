"""The hard token limit: every chunk fits the window on random notes, whatever the token counter."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from core.domain import Chunk
from tests.unit.chunk_notes import Laid, chunk, count_chars, count_words, lay_out, paragraph, squeeze

TOKENIZER_JSON = Path(__file__).resolve().parents[2] / "rag" / "assets" / "minilm-tokenizer" / "tokenizer.json"
_WORD_OR_MARK = re.compile(r"\w+|[^\w\s]")


def count_chars_floor(text: str) -> int:
    """Three characters a token rounded down: summing parts under-estimates the whole, which must still hold."""
    return len(text) // 3 + 2


def count_word_pieces(text: str) -> int:
    """Words and punctuation marks plus two special tokens (like the HashingEmbedder)."""
    return len(_WORD_OR_MARK.findall(text)) + 2


COUNTERS: dict[str, Callable[[str], int]] = {
    "words": count_words,
    "chars": count_chars,
    "chars_floor": count_chars_floor,
    "word_pieces": count_word_pieces,
}


def is_subsequence(needle: str, haystack: str) -> bool:
    remaining = iter(haystack)
    return all(char in remaining for char in needle)


def random_word(rng: random.Random) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyzéü中文,.;:!?()[]#|-"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))


def random_block(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.45:
        return "\n".join(
            " ".join(random_word(rng) for _ in range(rng.randint(1, 40))) + rng.choice([".", "!", "", "?"])
            for _ in range(rng.randint(1, 6))
        )
    if roll < 0.6:
        fence = rng.choice(["```", "~~~", "````"])
        rows = [" ".join(random_word(rng) for _ in range(rng.randint(0, 12))) for _ in range(rng.randint(0, 40))]
        return "\n".join([fence + rng.choice(["", "python", "js title=x"]), *rows, fence])
    if roll < 0.75:
        rows = [f"| {random_word(rng)} | {random_word(rng)} |" for _ in range(rng.randint(1, 40))]
        return "\n".join(["| a | b |", "|---|---|", *rows])
    if roll < 0.85:
        return rng.choice("xy中") * rng.randint(1, 3000)
    return " ".join(random_word(rng) for _ in range(rng.randint(100, 600)))


def random_note(rng: random.Random) -> Laid:
    parts: list[tuple[tuple[str, ...], str]] = []
    for position in range(rng.randint(1, 4)):
        heading_path = (
            () if position == 0 and rng.random() < 0.5 else tuple(random_word(rng) for _ in range(rng.randint(1, 3)))
        )
        parts.append((heading_path, "\n\n".join(random_block(rng) for _ in range(rng.randint(0, 6)))))
    return lay_out(parts, title=random_word(rng))


def assert_well_formed(laid: Laid, chunks: list[Chunk], count: Callable[[str], int], max_tokens: int) -> None:
    assert chunks, "every note yields at least one chunk"
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for piece in chunks:
        assert count(piece.embed_text) <= max_tokens, (count(piece.embed_text), piece.embed_text)
        assert piece.text.strip()
        assert piece.line_start <= piece.line_end
    for section in laid.note.sections:
        # By line range, not heading path: a breadcrumb too long for a tiny window shows a shortened path.
        produced = "".join(c.text for c in chunks if section.line_start <= c.line_start <= section.line_end)
        assert is_subsequence(squeeze(section.text), squeeze(produced)), "section text was lost"


@pytest.mark.parametrize("counter_name", sorted(COUNTERS))
def test_every_chunk_fits_the_window_on_random_notes(counter_name: str) -> None:
    count = COUNTERS[counter_name]
    rng = random.Random(f"chunking-{counter_name}")
    for _ in range(60):
        laid = random_note(rng)
        max_tokens = rng.choice([24, 40, 64, 128, 256])
        chunks = chunk(laid.note, count=count, max_tokens=max_tokens, overlap=rng.choice([0, 8, 32]))
        assert_well_formed(laid, chunks, count, max_tokens)


def test_every_chunk_fits_the_window_with_the_real_tokenizer() -> None:
    tokenizers = pytest.importorskip("tokenizers")
    tokenizer = tokenizers.Tokenizer.from_file(str(TOKENIZER_JSON))
    tokenizer.no_truncation()
    tokenizer.no_padding()

    def count(text: str) -> int:
        return len(tokenizer.encode(text).ids)

    rng = random.Random("chunking-real")
    for _ in range(40):
        laid = random_note(rng)
        max_tokens = rng.choice([32, 64, 256])
        chunks = chunk(laid.note, count=count, max_tokens=max_tokens)
        assert_well_formed(laid, chunks, count, max_tokens)


def test_overlong_breadcrumb_is_shortened_to_leave_room_for_text() -> None:
    heading = " ".join(f"h{i}" for i in range(200))
    laid = lay_out([(("Parent", heading), paragraph(1, 50))], title="Title")

    chunks = chunk(laid.note, max_tokens=64)

    assert all(count_words(c.embed_text) <= 64 for c in chunks)
    assert all(c.heading_path[0].startswith("h0 h1") for c in chunks)  # ancestors dropped, heading cut
    assert all(c.anchor == f"[[Note#{heading}]]" for c in chunks)  # the anchor still names the real heading
    assert "".join(squeeze(c.text) for c in chunks).startswith(squeeze(paragraph(1, 50))[:100])


@pytest.mark.parametrize(("max_tokens", "overlap"), [(2, 0), (1, 0), (256, -1)])
def test_impossible_limits_are_rejected(max_tokens: int, overlap: int) -> None:
    laid = lay_out([((), "Text.")])

    with pytest.raises(ValueError, match="tokens"):
        chunk(laid.note, max_tokens=max_tokens, overlap=overlap)
