"""Citations checked while the answer streams: text flows, links are held only until they close."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from agent.citation_stream import CitationChecker, CitationStream
from rag.notes.links import LinkResolver

PATHS = ["Areas/Cooking/Sourdough.md", "Projects/Ideas.md", "Areas/Garden/Ideas.md"]
HEADINGS = {"Areas/Cooking/Sourdough.md": ["Sourdough", "Final recipe"], "Projects/Ideas.md": ["Ideas"]}


def checker() -> CitationChecker:
    def headings(path: str) -> Sequence[str]:
        return HEADINGS.get(path, [])

    return CitationChecker(LinkResolver(PATHS), headings, allowed={"[[Sourdough#Final recipe]]"})


def stream_all(pieces: list[str]) -> tuple[list[str], CitationChecker]:
    check = checker()
    stream = CitationStream(check)
    shown = [stream.feed(piece) for piece in pieces]
    shown.append(stream.flush())
    return shown, check


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
