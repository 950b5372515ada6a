"""Quotes a model says answer the question, checked against the passages it read before any answer is shown.

A quote counts only when it is a substring of the passage it names. The comparison forgives what copying a note
changes without changing what it says: runs of whitespace (a table row or list copied onto one line) and Markdown
markup (`**bold**`, `_italic_`, `` `code` ``, `==highlight==`, `[[link]]` brackets). Case, digits, units and
punctuation must match: "24 °C" is no quote of "4 °C", and a sentence the model wrote in its own words is none at all.
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
        if passage is None or not is_in_passage(quote.text, passage.text):
            continue
        text = _WHITESPACE.sub(" ", quote.text).strip().strip(_WRAPPING)
        key = normalised(text).casefold()
        if any(key in earlier or earlier in key for earlier in seen):  # one inside another says it once
            continue
        seen.add(key)
        kept.append(VerifiedQuote(text=text, source=passage.source))
        if len(kept) == limit:
            break
    return kept


_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")


def unquoted_numbers(answer: str, quotes: Sequence[VerifiedQuote]) -> list[str]:
    """Return the numbers `answer` states that no quote holds: a number the answer made up (or misread)."""
    held = {number for quote in quotes for number in _NUMBER.findall(normalised(quote.text))}
    return [number for number in _NUMBER.findall(normalised(answer)) if number not in held]


def closest_sources(passages: Sequence[OfferedPassage], *, limit: int = MAX_QUOTES) -> list[str]:
    """Return the citation links of the first `limit` distinct notes offered (best ranked first)."""
    return list(dict.fromkeys(passage.source for passage in passages))[:limit]
