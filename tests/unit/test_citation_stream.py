"""Citations checked while the answer streams: text flows, links are held only until they close, code is left alone."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import pytest

from agent.citation_stream import CitationChecker, CitationStream
from rag.answer.citations import verify_citations
from rag.notes.links import LinkResolver

PATHS = ["Areas/Cooking/Sourdough.md", "Projects/Ideas.md", "Areas/Garden/Ideas.md"]
HEADINGS = {"Areas/Cooking/Sourdough.md": ["Sourdough", "Final recipe"], "Projects/Ideas.md": ["Ideas"]}
ALLOWED = {"[[Sourdough#Final recipe]]"}


def headings(path: str) -> Sequence[str]:
    return HEADINGS.get(path, [])


def checker() -> CitationChecker:
    return CitationChecker(LinkResolver(PATHS), headings, allowed=ALLOWED)


def stream_all(pieces: Sequence[str], check: CitationChecker | None = None) -> tuple[list[str], CitationChecker]:
    check = check or checker()
    stream = CitationStream(check)

    async def run() -> list[str]:
        shown = [await stream.feed(piece) for piece in pieces]
        return [*shown, stream.flush()]

    return asyncio.run(run()), check


def final_check(text: str) -> str:
    return verify_citations(text, allowed=ALLOWED, resolver=LinkResolver(PATHS), headings=headings).text


def every_split(text: str) -> list[list[str]]:
    """Return `text` cut into two pieces at every position, and into single characters."""
    return [[text[:cut], text[cut:]] for cut in range(1, len(text))] + [list(text)]


@pytest.mark.parametrize(
    "pieces",
    [
        ["Rest 45 min [[Sourdough#Final recipe]]."],
        ["Rest 45 min [", "[Sourdough#Fin", "al recipe]", "]."],
        ["Rest 45 min [[Sour", "dough#Final recipe]]", "."],
    ],
)
def test_a_valid_citation_passes_whatever_the_token_boundaries(pieces: list[str]) -> None:
    shown, check = stream_all(pieces)

    assert "".join(shown) == "Rest 45 min [[Sourdough#Final recipe]]."
    assert check.cited == ["[[Sourdough#Final recipe]]"]


def test_text_before_a_link_is_not_held_back() -> None:
    shown, _ = stream_all(["Plain words ", "then [[Sourd", "ough#Final recipe]]"])

    assert shown[0] == "Plain words " and shown[1] == "then "


def test_an_invented_note_is_unlinked() -> None:
    shown, check = stream_all(["See [[Bread Bible#Autolyse]]."])

    assert "[[" not in "".join(shown)
    assert check.cited == []


def test_an_unclosed_link_is_shown_as_typed_at_the_end() -> None:
    shown, _ = stream_all(["Odd [[never closed"])

    assert "".join(shown) == "Odd [[never closed"


@pytest.mark.parametrize("opened", ["[[", "![["])
def test_an_unclosed_link_where_a_reply_was_cut_short_is_dropped(opened: str) -> None:
    # The 1.5B looped on "[[Blade Runner]]" and was stopped inside its next copy: "[[Bl" is the cut, not a link.
    stream = CitationStream(checker())

    async def run() -> str:
        return await stream.feed(f"Rest 45 min [[Sourdough#Final recipe]]{opened}Sour") + stream.flush(is_cut=True)

    assert asyncio.run(run()) == "Rest 45 min [[Sourdough#Final recipe]]"


def test_a_link_cut_by_a_line_break_is_not_held_back() -> None:
    shown, _ = stream_all(["Odd [[not a link\n", "Next line"])

    assert shown[0] == "Odd [[not a link\n"


CODE_ANSWERS = [
    "Write `[[Bread Bible#Autolyse]]` to link, as in [[Bread Bible#Autolyse]].",
    "Use ``[[Bread Bible]] and ` ticks`` then [[Bread Bible]].",
    "Example:\n```markdown\nSee [[Bread Bible#Autolyse]]\n```\nAnd [[Bread Bible]] outside.",
    "Example:\n~~~~\n```\n[[Bread Bible]]\n~~~~\nAfter [[Bread Bible]].",
    "```\n[[Bread Bible]] in a fence never closed",
    "A stray ` tick\n\nthen [[Bread Bible]] after the paragraph.",
]


@pytest.mark.parametrize("answer", CODE_ANSWERS, ids=range(len(CODE_ANSWERS)))
def test_code_streams_untouched_and_matches_the_final_check_at_any_token_boundary(answer: str) -> None:
    expected = final_check(answer)

    for pieces in every_split(answer):
        shown, _ = stream_all(pieces)
        assert "".join(shown) == expected, pieces


def test_a_link_in_inline_code_is_not_cited() -> None:
    _, check = stream_all(["Type `[[Sourdough#Final", " recipe]]` to cite."])

    assert check.cited == []


def test_each_reply_starts_outside_code() -> None:
    check = checker()
    stream = CitationStream(check)

    async def run() -> str:
        first = await stream.feed("Unclosed `tick")
        first += stream.flush()
        second = await stream.feed("[[Bread Bible]]")
        return first + "|" + second + stream.flush()

    assert asyncio.run(run()) == "Unclosed `tick|Bread Bible"


def test_links_are_checked_off_the_event_loop() -> None:
    threads: list[str] = []

    def recording_headings(path: str) -> Sequence[str]:
        threads.append(threading.current_thread().name)
        return headings(path)

    check = CitationChecker(LinkResolver(PATHS), recording_headings, allowed=())
    shown, _ = stream_all(["See [[Sourdough#final recipe]]."], check)

    assert "".join(shown) == "See [[Sourdough#Final recipe]]."
    assert threads and threading.main_thread().name not in threads


def test_a_link_names_the_path_of_its_note_whatever_its_heading_or_alias() -> None:
    check = checker()

    assert check.note_path("[[Sourdough#Final recipe|the recipe]]") == check.note_path("Sourdough")
    assert check.note_path("Sourdough") is not None
    assert check.note_path("[[No Such Note]]") is None
    assert check.note_path("[[#Heading]]") is None  # names no note outside a note
