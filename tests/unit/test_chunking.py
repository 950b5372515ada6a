"""Heading-aware chunking: section boundaries, the hard token limit, packing, overlap, code, tables, embeds."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.domain import Chunk, Heading, Link, Note, Section
from rag.chunking import EMBED_CHAR_CAP, chunk_note, heading_link_text
from rag.token_budget import largest_within, prefix_widths

TOKENIZER_JSON = Path(__file__).resolve().parents[2] / "rag" / "assets" / "minilm-tokenizer" / "tokenizer.json"
_WORD_OR_MARK = re.compile(r"\w+|[^\w\s]")


def count_words(text: str) -> int:
    """Whitespace words plus [CLS] and [SEP]."""
    return len(text.split()) + 2


def count_chars(text: str) -> int:
    """About four characters a token, rounded up, plus two special tokens."""
    return math.ceil(len(text) / 4) + 2


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


@dataclass
class Laid:
    """A note laid out on file lines, with the lines, so tests can check chunk line ranges."""

    note: Note
    lines: list[str]


def lay_out(
    parts: Sequence[tuple[tuple[str, ...], str]],
    *,
    title: str = "Note",
    path: str | None = None,
    links: Sequence[Link] = (),
    tags: tuple[str, ...] = (),
    aliases: tuple[str, ...] = (),
) -> Laid:
    """Build a Note whose sections sit on consecutive lines: a heading line (if any), then the text."""
    sections: list[Section] = []
    headings: list[Heading] = []
    lines: list[str] = []
    for heading_path, text in parts:
        level = len(heading_path)
        if heading_path:
            lines.append("#" * level + " " + heading_path[-1])
            start = len(lines)
            headings.append(Heading(level, heading_path[-1], start))
        else:
            start = len(lines) + 1
        if text:
            lines.extend(text.split("\n"))
        sections.append(Section(heading_path, level, start, max(len(lines), start), text))
    note = Note(
        path=path or f"{title}.md",
        title=title,
        sections=tuple(sections),
        headings=tuple(headings),
        links=tuple(links),
        tags=tags,
        aliases=aliases,
    )
    return Laid(note, lines)


def chunk(
    note: Note,
    *,
    count: Callable[[str], int] = count_words,
    max_tokens: int = 256,
    overlap: int = 32,
    link_text: str = "Note",
    embedded: Callable[[Link], str | None] | None = None,
) -> list[Chunk]:
    return chunk_note(
        note,
        link_text=link_text,
        count_tokens=count,
        max_tokens=max_tokens,
        overlap_tokens=overlap,
        embedded_text=embedded,
    )


def squeeze(text: str) -> str:
    return "".join(text.split())


def is_subsequence(needle: str, haystack: str) -> bool:
    remaining = iter(haystack)
    return all(char in remaining for char in needle)


def paragraph(seed: int, words: int) -> str:
    return " ".join(f"w{seed}x{i}" for i in range(words)) + "."


# ---------------------------------------------------------------- sections, anchors, metadata


def test_each_section_becomes_a_chunk_with_its_heading_path() -> None:
    laid = lay_out([((), "Intro text."), (("Alpha",), "Alpha text."), (("Alpha", "Beta"), "Beta text.")])

    chunks = chunk(laid.note)

    assert [(c.heading_path, c.text) for c in chunks] == [
        ((), "Intro text."),
        (("Alpha",), "Alpha text."),
        (("Alpha", "Beta"), "Beta text."),
    ]
    assert chunks[2].embed_text == "Note > Alpha > Beta\nBeta text."
    assert [c.index for c in chunks] == [0, 1, 2]


def test_anchors_name_the_preamble_the_innermost_heading_and_colliding_notes() -> None:
    laid = lay_out([((), "Intro."), (("Top",), "Top."), (("Top", "Deep"), "Deep.")], path="Folder/Note.md")

    plain = chunk(laid.note)
    colliding = chunk(laid.note, link_text="Folder/Note")

    assert [c.anchor for c in plain] == ["[[Note]]", "[[Note#Top]]", "[[Note#Deep]]"]
    assert [c.anchor for c in colliding] == ["[[Folder/Note]]", "[[Folder/Note#Top]]", "[[Folder/Note#Deep]]"]


def test_anchor_strips_characters_obsidian_cannot_link() -> None:
    laid = lay_out([(("Q: what [is] #this | that^%%x%%?",), "Body.")])

    (only,) = chunk(laid.note)

    assert only.anchor == "[[Note#Q what is this that x ?]]"
    assert only.heading_path == ("Q: what [is] #this | that^%%x%%?",)


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("Plain heading", "Plain heading"),
        ("Time: 10:30", "Time 10 30"),
        ("See [[Other note]]", "See Other note"),
        ("a#b|c^d", "a b c d"),
        ("100%% done %%", "100 done"),
        ("50% off", "50% off"),
        ("  spaced   out  ", "spaced out"),
    ],
)
def test_heading_link_text_replaces_unlinkable_characters(heading: str, expected: str) -> None:
    assert heading_link_text(heading) == expected


def test_chunks_carry_note_tags_path_and_title() -> None:
    laid = lay_out([((), "Text.")], title="Alpha", path="Projects/Alpha.md", tags=("project", "area/work"))

    (only,) = chunk(laid.note, link_text="Alpha")

    assert (only.path, only.title, only.tags) == ("Projects/Alpha.md", "Alpha", ("project", "area/work"))


def test_heading_without_text_yields_no_chunk() -> None:
    laid = lay_out([(("Empty",), ""), (("Full",), "Some text."), (("Also empty",), "")])

    chunks = chunk(laid.note)

    assert [(c.heading_path, c.text) for c in chunks] == [(("Full",), "Some text.")]


def test_note_of_headings_only_yields_one_chunk_naming_title_and_headings() -> None:
    laid = lay_out([(("Ideas",), ""), (("Ideas", "Later"), "")], title="Inbox")

    (only,) = chunk(laid.note, link_text="Inbox")

    assert only.text == "Inbox\n# Ideas\n## Later"
    assert (only.heading_path, only.anchor, only.index) == ((), "[[Inbox]]", 0)
    assert (only.line_start, only.line_end) == (1, 2)


def test_empty_note_yields_one_chunk_with_title_aliases_and_tags() -> None:
    related = Link(target="Other", line=3)
    note = Note(path="People/Ann.md", title="Ann", aliases=("Ann B.", "AB"), tags=("person",), links=(related,))

    (only,) = chunk(note, link_text="Ann")

    assert only.text == "Ann\nAliases: Ann B., AB\nTags: #person"
    assert only.embed_text.startswith("Ann\n")
    assert (only.anchor, only.links, only.line_start, only.line_end) == ("[[Ann]]", ("Other",), 1, 3)


def test_whitespace_is_trimmed_and_blank_sections_yield_nothing() -> None:
    laid = lay_out([((), "\n\n   \n"), (("H",), "\n\nText here.\n\n\n   ")])

    chunks = chunk(laid.note)

    assert [c.text for c in chunks] == ["Text here."]
    assert (chunks[0].line_start, chunks[0].line_end) == (8, 8)  # heading on 5, text from 6


# ---------------------------------------------------------------- packing, splitting, overlap


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


# ---------------------------------------------------------------- code blocks and tables


def test_code_block_that_fits_is_never_cut() -> None:
    code = "```python\ndef f():\n\n    return 1\n\n\nprint(f())\n```"
    text = "\n\n".join([paragraph(1, 20), paragraph(2, 20), code, paragraph(3, 20), paragraph(4, 20)])
    laid = lay_out([(("Code",), text)])

    chunks = chunk(laid.note, max_tokens=45, overlap=8)

    holding = [c for c in chunks if "def f():" in c.text]
    assert len(holding) == 1
    assert code in holding[0].text
    assert all(c.text.count("```") % 2 == 0 for c in chunks)


def test_oversized_code_block_is_split_by_lines_with_reopened_fences() -> None:
    body = [f"value_{i} = compute({i})" for i in range(60)]
    code = "\n".join(["~~~python title=demo.py", *body, "~~~"])
    laid = lay_out([(("Code",), code)])

    chunks = chunk(laid.note, max_tokens=50)

    assert len(chunks) > 2
    for piece in chunks:
        rows = piece.text.split("\n")
        assert rows[0] == "~~~python title=demo.py"
        assert rows[-1] == "~~~"
        assert count_words(piece.embed_text) <= 50
    inner = [row for piece in chunks for row in piece.text.split("\n")[1:-1]]
    assert list(dict.fromkeys(inner)) == body  # every line, in order (parts may share lines)


def test_unclosed_code_fence_is_closed_in_every_part() -> None:
    code = "\n".join(["```js", *[f"let v{i} = {i};" for i in range(40)]])
    laid = lay_out([(("Code",), code)])

    chunks = chunk(laid.note, max_tokens=40)

    assert len(chunks) > 1
    assert all(c.text.startswith("```js\n") and c.text.endswith("\n```") for c in chunks)


def test_code_line_longer_than_the_window_is_hard_split_inside_fences() -> None:
    blob = "A" * 3000
    laid = lay_out([(("Blob",), f"```text\n{blob}\n```")])

    chunks = chunk(laid.note, count=count_chars, max_tokens=60)

    assert len(chunks) > 1
    assert all(c.text.startswith("```text\n") and c.text.endswith("\n```") for c in chunks)
    assert "".join(c.text.split("\n")[1] for c in chunks) == blob
    assert all(count_chars(c.embed_text) <= 60 for c in chunks)


def test_oversized_table_repeats_header_and_divider_in_every_part() -> None:
    header, divider = "| Name | Value |", "| :--- | ----: |"
    rows = [f"| item {i} | {i * 10} |" for i in range(50)]
    laid = lay_out([((), "Before the table."), (("Table",), "\n".join([header, divider, *rows]))])

    chunks = [c for c in chunk(laid.note, max_tokens=40) if c.heading == "Table"]

    assert len(chunks) > 2
    for piece in chunks:
        lines = piece.text.split("\n")
        assert lines[:2] == [header, divider]
        assert all(line.startswith("|") for line in lines)
    body = [line for piece in chunks for line in piece.text.split("\n")[2:]]
    assert list(dict.fromkeys(body)) == rows
    assert chunks[0].line_start == 3  # header line of the table
    assert chunks[1].line_start > 5  # later parts cover only their own rows


def test_table_that_fits_stays_whole_beside_prose() -> None:
    table = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |"
    text = "\n\n".join([paragraph(1, 30), table, paragraph(2, 30)])
    laid = lay_out([(("T",), text)])

    chunks = chunk(laid.note, max_tokens=48, overlap=0)

    assert sum(table in c.text for c in chunks) == 1
    assert all(c.text.count("|---|---|") <= 1 for c in chunks)


# ---------------------------------------------------------------- line ranges and links


def test_line_ranges_point_at_the_file_lines_of_the_text() -> None:
    laid = lay_out(
        [
            ((), "Intro line one.\nIntro line two."),
            (("Big",), "\n\n".join("\n".join(f"r{b}_{i} " + "z " * 6 for i in range(4)) for b in range(6))),
            (("Small",), "Tail text."),
        ]
    )

    chunks = chunk(laid.note, max_tokens=40, overlap=6)

    assert (chunks[0].line_start, chunks[0].line_end) == (1, 2)
    assert (chunks[-1].line_start, chunks[-1].line_end) == (len(laid.lines), len(laid.lines))
    big = [c for c in chunks if c.heading == "Big"]
    assert len(big) > 2
    for piece in big:
        source = "\n".join(laid.lines[piece.line_start - 1 : piece.line_end])
        assert all(row.strip() in source for row in piece.text.split("\n"))
        assert piece.text.split("\n")[0].strip() in laid.lines[piece.line_start - 1]
        assert piece.text.split("\n")[-1].strip() in laid.lines[piece.line_end - 1]


def test_links_are_the_targets_written_in_the_chunks_lines() -> None:
    text_one = "See [[Alpha]] and [[Beta|b]].\nAlso [[#Local]] and [[Alpha]] again."
    links = [
        Link(target="Alpha", line=2),
        Link(target="Beta", alias="b", line=2),
        Link(target="", heading="Local", line=3),
        Link(target="Alpha", line=3),
        Link(target="Gamma", line=5),
        Link(target="Pic.png", is_embed=True, line=5),
    ]
    laid = lay_out([(("One",), text_one), (("Two",), "[[Gamma]] ![[Pic.png]]")], links=links)

    one, two = chunk(laid.note)

    assert one.links == ("Alpha", "Beta")
    assert two.links == ("Gamma", "Pic.png")


def test_setext_heading_text_starts_at_the_sections_body_line() -> None:
    lines = ["Multi-line", "setext heading", "--------------", "First body line.", "Second body line."]
    section = Section(("Multi-line setext heading",), 2, 1, 5, "First body line.\nSecond body line.", body_line=4)
    note = Note(path="Note.md", title="Note", sections=(section,), links=(Link(target="X", line=3),))

    (only,) = chunk(note)

    assert (only.line_start, only.line_end) == (4, 5)
    assert lines[only.line_start - 1] == "First body line."
    assert only.links == ()  # the link on the underline's line is not in the text


# ---------------------------------------------------------------- transclusion


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


# ---------------------------------------------------------------- the hard token limit


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


# ---------------------------------------------------------------- cost


def test_largest_within_finds_the_longest_run_with_few_counts() -> None:
    words = [f"w{i}" * (1 + i % 5) for i in range(5000)]
    widths = prefix_widths(words, " ")
    probes: list[int] = []

    def cost_of(count: int) -> int:
        probes.append(count)
        return len(" ".join(words[:count])) // 4

    count, cost = largest_within(cost_of, 300, widths, first_width=10)

    assert cost == cost_of(count) <= 300
    assert cost >= 300 - 300 // 32  # nearly full
    assert len(probes) <= 8


def test_token_counting_grows_linearly_with_note_size() -> None:
    calls = 0

    def counting(text: str) -> int:
        nonlocal calls
        calls += 1
        return count_words(text)

    blocks = 2000
    text = "\n\n".join(paragraph(i, 20) for i in range(blocks))
    laid = lay_out([(("Huge",), text + "\n\n" + "q" * 200_000)])

    chunks = chunk(laid.note, count=counting, max_tokens=256)

    assert len(chunks) > 100
    assert calls < 4 * blocks
