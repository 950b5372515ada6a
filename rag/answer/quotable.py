"""Sentences as a quote shows them: without list markers or table pipes, a short one with its neighbour.

What `rag.answer.evidence` quotes under an answer, and what it compares an answer with to see it repeat a sentence
(`plain`): split from it, which reads what the sentences hold.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rag.answer.attribution import Passage
from rag.answer.citations import note_title
from rag.answer.excerpts import ELLIPSIS, LINKS, sentences_of
from rag.answer.passages import BLOCK_MARK
from rag.answer.quote_words import normalised
from rag.chunks.pieces import TABLE_DIVIDER, table_cells

_WORD = re.compile(r"\w+")
SHORT_SENTENCE_WORDS = 3  # a quoted sentence of fewer words is shown with its neighbour in the line ("€18.")
_HEADING = re.compile(r"^\s*#{1,6}\s")

# A URL, a path or a host/file name ("<https://publish.obsidian.md/x>", "./scripts/run.py", "minimal.guide"): no
# words of a sentence, only where they are.
# Each alternative starts only where a token does: unanchored, one 32k-character token took seconds.
_ADDRESS = re.compile(
    r"<[^<>\s]+>|(?<!\S)\S*[/\\]\S*|(?<![\w.-])(?=[\w.-]*[^\W\d_])[\w-]+(?:\.[\w-]+)+\b"  # not "7.20.0"
)


def quotable_sentences(passage: Passage) -> list[str]:
    """Return the sentences of `passage` as a quote shows them, in order: none of a table's header row.

    Nor a line that is only the note's title (a properties passage opens with it), which quotes nothing the link
    under it does not already say: "2023 Japan Trip" [[2023 Japan Trip]].
    """
    return list(_quotable(passage))


@lru_cache(maxsize=1024)  # read for each early judgement of a streamed opening, and by each test of it
def _quotable(passage: Passage) -> tuple[str, ...]:
    title = plain(note_title(passage.source))
    rows = passage.text.split("\n")
    return tuple(
        text
        for number, row in enumerate(rows)
        if not (number + 1 < len(rows) and TABLE_DIVIDER.match(rows[number + 1]))  # a table's header row
        for sentence in sentences_of(row)
        if (text := display(sentence)) and plain(text) != title
    )


@lru_cache(maxsize=1024)
def with_neighbour(passage: Passage) -> dict[str, str]:
    """Return the short sentences of `passage` (under SHORT_SENTENCE_WORDS words) as quoted: with their neighbour.

    Alone, "€18." says nothing of what cost it: quoted under "€18" for the new chain's price, it is shown with the
    sentence before it in its line ("New chain on 10 November: KMC X9, … closed with the quick link. €18."), or the one
    after it when it opens the line. What the sentence holds is still judged alone.
    """
    widened: dict[str, str] = {}
    for row in passage.text.split("\n"):
        shown = [text for sentence in sentences_of(row) if (text := display(sentence))]
        for place, text in enumerate(shown):
            if len(_WORD.findall(text)) >= SHORT_SENTENCE_WORDS or len(shown) < 2:
                continue
            widened[text] = f"{shown[place - 1]} {text}" if place else f"{text} {shown[1]}"
    return widened


def display(sentence: str) -> str:
    """Return a sentence as shown: no list marker or quote bar, a table row as its cells ("" for no sentence).

    Headings, rules and lines that are only links or embeds are no sentences.
    """
    if _HEADING.match(sentence) or TABLE_DIVIDER.match(sentence) or sentence.strip() == ELLIPSIS:
        return ""
    text = sentence.strip()
    if text.startswith("|"):  # a table row as its cells: "| Salt | 10 g | 2 % |" -> "Salt | 10 g | 2 %"
        cells = (cell.replace("\\|", "|") for cell in table_cells(text))
        return " | ".join(cell for cell in cells if cell)  # out of its table, "\|" would be a plain backslash
    text = BLOCK_MARK.sub("", text).strip()
    text = text.removeprefix(ELLIPSIS).removesuffix(ELLIPSIS).strip()
    # A line that is only a link or an embed ("![[Books.base#Author]]") says nothing to quote, and a chat app
    # rendering Obsidian Markdown would embed it; one that is only an address ("publish.obsidian.md", a script's
    # path in a code block) says nothing either.
    return text if _WORD.search(_ADDRESS.sub("", LINKS.sub("", text))) else ""


def plain(text: str) -> str:
    """Return `text` as compared for repetition: as quotes are compared (rag.answer.quote_words), case folded."""
    return normalised(text).casefold()
