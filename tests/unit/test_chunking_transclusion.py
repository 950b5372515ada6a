"""Chunking embeds: transcluded text follows the embed line, and long transclusions are split and capped."""

from __future__ import annotations

from core.domain import Link
from rag.chunks.sections import EMBED_CHAR_CAP
from tests.unit.chunk_notes import chunk, count_words, lay_out, paragraph, squeeze


def test_transcluded_text_follows_the_embed_line_and_is_findable() -> None:
    embed = Link(target="Recipe", heading="Sauce", is_embed=True, line=3)
    laid = lay_out([(("Dinner",), "Before the embed.\n![[Recipe#Sauce]]\nAfter the embed.")], links=[embed])
    seen: list[Link] = []

    def shown(link: Link) -> str:
        seen.append(link)
        return "Simmer tomatoes with basil."

    (only,) = chunk(laid.note, embedded=shown)

    assert seen == [embed]
    assert only.text == "Before the embed.\n![[Recipe#Sauce]]\n\nSimmer tomatoes with basil.\n\nAfter the embed."
    assert only.links == ("Recipe",)


def test_embeds_outside_sections_or_without_text_add_nothing() -> None:
    embed = Link(target="Missing", is_embed=True, line=2)
    laid = lay_out([(("H",), "![[Missing]]")], links=[embed])

    (only,) = chunk(laid.note, embedded=lambda link: None)

    assert only.text == "![[Missing]]"


def test_long_transcluded_text_is_split_and_capped() -> None:
    embed = Link(target="Book", is_embed=True, line=2)
    laid = lay_out([(("Reading",), "![[Book]]")], links=[embed])
    book = "\n\n".join(paragraph(i, 10) for i in range(5000))  # far over the cap

    chunks = chunk(laid.note, embedded=lambda link: book, max_tokens=128)

    joined = "".join(squeeze(c.text) for c in chunks)
    assert "w0x0" in joined
    assert "w4999x0" not in joined  # past EMBED_CHAR_CAP
    assert sum(len(c.text) for c in chunks) < 2 * EMBED_CHAR_CAP
    assert all(count_words(c.embed_text) <= 128 for c in chunks)
    assert all((c.line_start, c.line_end) == (2, 2) for c in chunks)
    assert all(c.links == ("Book",) for c in chunks)
