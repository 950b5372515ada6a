"""Quotes a model says answer the question, checked against the passages it read before any answer is shown.

A quote counts only when it is a substring of the passage it names. The comparison forgives what copying a note
changes without changing what it says: runs of whitespace (a table row or list copied onto one line) and Markdown
markup (`**bold**`, `_italic_`, `` `code` ``, `==highlight==`, `[[link]]` brackets). Case, digits, units and
punctuation must match: "24 °C" is no quote of "4 °C", and a sentence the model wrote in its own words is none at all.

Small models copy loosely: a word dropped, a tense changed, "the" added. A quote that is no substring is still kept
when it is a near copy of one sentence of its passage (or two or three in a row): nearly all of its words are that
span's, in the same order, and every number it states is the span's. It is then shown as the note says it (the span's
own words), never as the model wrote it, so what the user reads as a quote is always in the note.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

MIN_QUOTE_WORDS = 2  # "the", "4 °C" alone say nothing checkable about the question
MAX_QUOTES = 3  # what an answer is drawn from; more is the model copying the notes out

# Markup a copy may keep or drop: emphasis and code marks, highlight marks, wikilink brackets.
_MARKUP = re.compile(r"\*+|(?<!\w)_+|_+(?!\w)|`+|==|\[\[|\]\]")
_WHITESPACE = re.compile(r"\s+")
# Quote marks a model wraps a quote in, and the ellipsis a cut passage is marked with.
_WRAPPING = "\"'\u201c\u201d\u2018\u2019 \u2026."
_WORDS = re.compile(r"[^\W_]+")
# Where a passage is cut into the sentences a near copy is matched against: a sentence's end (not a list number's
# "4. "), or a line break.
_SENTENCE_END = re.compile(r"(?<=[^\d\s][.!?])\s+|\n+")
# A list item's or heading's marker, left out of a snapped quote: "- [ ] ", "1. ", "> ", "## ".
_LINE_MARKER = re.compile(r"^(?:[-*+]\s+(?:\[.\]\s+)?|\d+[.)]\s+|>\s*|#+\s+)")
NEAR_COPY_WORDS = 0.8  # share of a quote's words, in order, a span must hold to count as what it copied
NEAR_COPY_MIN_WORDS = 4  # below this a loose copy cannot be told from a chance match
NEAR_COPY_SPAN = 3  # sentences in a row a quote may span


@dataclass(frozen=True, slots=True)
class OfferedPassage:
    """A passage offered to quote from: the id the model names it by, its citation link and its text."""

    id: str
    source: str  # e.g. "[[Sourdough#Final recipe]]"
    text: str


@dataclass(frozen=True, slots=True)
class Quote:
    """What the model claims a passage says."""

    passage: str  # the id of an offered passage
    text: str


@dataclass(frozen=True, slots=True)
class VerifiedQuote:
    """A quote found in its passage: the words as the model copied them and the passage's citation link."""

    text: str
    source: str


def normalised(text: str) -> str:
    """Return `text` as quotes are compared: entities decoded, markup dropped, whitespace runs as one space."""
    plain = unicodedata.normalize("NFKC", html.unescape(text))
    return _WHITESPACE.sub(" ", _MARKUP.sub("", plain)).strip()


def is_in_passage(quote: str, passage: str) -> bool:
    """Return True when `quote` (wrapping quote marks aside) is a substring of `passage`, as `normalised` reads both."""
    wanted = normalised(quote).strip(_WRAPPING)
    return len(_WORDS.findall(wanted)) >= MIN_QUOTE_WORDS and wanted in normalised(passage)


def verified_quotes(
    quotes: Sequence[Quote], passages: Sequence[OfferedPassage], *, limit: int = MAX_QUOTES
) -> list[VerifiedQuote]:
    """Return the quotes found in the passage they name, each once, at most `limit`, in the model's order.

    A quote naming a passage that was not offered, or not found in the one it names, is dropped: the model may
    not quote one passage and credit another, since the citation would then point at a note that does not say it.
    """
    by_id = {passage.id: passage for passage in passages}
    kept: list[VerifiedQuote] = []
    seen: set[str] = set()
    for quote in quotes:
        passage = by_id.get(quote.passage)
        if passage is None:
            continue
        if is_in_passage(quote.text, passage.text):
            text = _WHITESPACE.sub(" ", quote.text).strip().strip(_WRAPPING)
        elif (copied := near_copy_source(quote.text, passage.text)) is not None:
            text = copied
        else:
            continue
        key = normalised(text).casefold()
        if any(key in earlier or earlier in key for earlier in seen):  # one inside another says it once
            continue
        seen.add(key)
        kept.append(VerifiedQuote(text=text, source=passage.source))
        if len(kept) == limit:
            break
    return kept


_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")


def near_copy_source(quote: str, passage: str) -> str | None:
    """Return the passage's own words for a loose copy of them (see the module's docstring), else None.

    Of the spans of one to NEAR_COPY_SPAN sentences that hold NEAR_COPY_WORDS of the quote's words in order, each of
    its numbers among them, the shortest is returned (the sentence the model copied, not the paragraph around it).
    """
    wanted = [word.casefold() for word in _WORDS.findall(normalised(quote))]
    if len(wanted) < NEAR_COPY_MIN_WORDS:
        return None
    numbers = _NUMBER.findall(normalised(quote))
    sentences = [text for part in _SENTENCE_END.split(passage) if (text := _LINE_MARKER.sub("", normalised(part)))]
    best: str | None = None
    for start in range(len(sentences)):
        for end in range(start + 1, min(start + NEAR_COPY_SPAN, len(sentences)) + 1):
            span = " ".join(sentences[start:end])
            if best is not None and len(span) >= len(best):
                break
            held = [word.casefold() for word in _WORDS.findall(span)]
            if _copied_in_order(wanted, held) >= NEAR_COPY_WORDS * len(wanted) and _holds_numbers(span, numbers):
                best = span
                break
    return best


def _copied_in_order(wanted: Sequence[str], held: Sequence[str]) -> int:
    """Return how many of `wanted`'s words `held` has in the same order, or 0 when a number is not among them.

    The words are aligned as their longest common subsequence; a number the alignment leaves out is a misread one
    ("at 24 °C" where the span says "at 4 °C" and 24 elsewhere), which no share of other words makes up for.
    """
    table = [[0] * (len(held) + 1) for _ in range(len(wanted) + 1)]
    for i, word in enumerate(wanted):
        for j, other in enumerate(held):
            table[i + 1][j + 1] = table[i][j] + 1 if word == other else max(table[i][j + 1], table[i + 1][j])
    i, j, unmatched_number = len(wanted), len(held), False
    while i and j:
        if wanted[i - 1] == held[j - 1]:
            i, j = i - 1, j - 1
        elif table[i - 1][j] >= table[i][j - 1]:
            unmatched_number |= wanted[i - 1].isdigit()
            i -= 1
        else:
            j -= 1
    unmatched_number |= any(word.isdigit() for word in wanted[:i])
    return 0 if unmatched_number else table[-1][-1]


def _holds_numbers(span: str, numbers: Sequence[str]) -> bool:
    """Return True when every number in `numbers` is one of `span`'s numbers (a whole number, not part of one)."""
    held = set(_NUMBER.findall(span))
    return all(number in held for number in numbers)


def unquoted_numbers(answer: str, quotes: Sequence[VerifiedQuote]) -> list[str]:
    """Return the numbers `answer` states that no quote holds: a number the answer made up (or misread)."""
    held = {number for quote in quotes for number in _NUMBER.findall(normalised(quote.text))}
    return [number for number in _NUMBER.findall(normalised(answer)) if number not in held]


def closest_sources(passages: Sequence[OfferedPassage], *, limit: int = MAX_QUOTES) -> list[str]:
    """Return the citation links of the first `limit` distinct notes offered (best ranked first)."""
    return list(dict.fromkeys(passage.source for passage in passages))[:limit]
