"""Quotes a model says answer the question, checked against the passages it read before any answer is shown.

A quote counts only when it is a substring of an offered passage (the one it names, or another: the citation is
the passage that holds it). The comparison forgives what copying a note changes without changing what it says: runs
of whitespace (a table row or list copied onto one line) and Markdown markup (`**bold**`, `_italic_`, `` `code` ``,
`==highlight==`, `[[link]]` brackets). Digits, units and punctuation must match: "24 °C" is no quote of "4 °C",
and a sentence the model wrote in its own words is none at all. A copy that differs only in case is shown in the
note's own case.

A quote that is no substring may still be a near copy of a passage's sentences (rag/answer/near_copy.py): it is
then shown in the note's own words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.answer.near_copy import names_in, near_copy_source
from rag.answer.quote_words import NUMBERS, WHITESPACE, WORDS, normalised

MIN_QUOTE_WORDS = 2  # "the", "4 °C" alone say nothing checkable about the question
MAX_QUOTES = 3  # what an answer is drawn from; more is the model copying the notes out

# Quote marks a model wraps a quote in, and the ellipsis a cut passage is marked with.
_WRAPPING = "\"'\u201c\u201d\u2018\u2019 \u2026."


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


def is_in_passage(quote: str, passage: str) -> bool:
    """Return True when `quote` (wrapping quote marks aside) is a substring of `passage`, as `normalised` reads both."""
    wanted = normalised(quote).strip(_WRAPPING)
    return len(WORDS.findall(wanted)) >= MIN_QUOTE_WORDS and wanted in normalised(passage)


def verified_quotes(
    quotes: Sequence[Quote], passages: Sequence[OfferedPassage], *, limit: int = MAX_QUOTES
) -> list[VerifiedQuote]:
    """Return the quotes some offered passage holds, each once, at most `limit`, in the model's order.

    Each quote is looked for in the passage it names first, then in the others in rank order: small models credit
    the wrong id (the bake times "from N1" that are in N2). Its citation is always the passage that holds the
    words, never merely the one named, so a link never points at a note that does not say the quote.
    """
    by_id = {passage.id: passage for passage in passages}
    names = names_in([passage.text for passage in passages])
    kept: list[VerifiedQuote] = []
    seen: set[str] = set()
    for quote in quotes:
        named = by_id.get(quote.passage)
        candidates = [*([named] if named else []), *(passage for passage in passages if passage is not named)]
        found = next(
            ((p, text) for p in candidates if (text := shown_quote(quote.text, p.text, names)) is not None), None
        )
        if found is None:
            continue
        passage, text = found
        key = normalised(text).casefold()
        if any(key in earlier or earlier in key for earlier in seen):  # one inside another says it once
            continue
        seen.add(key)
        kept.append(VerifiedQuote(text=text, source=passage.source))
        if len(kept) == limit:
            break
    return kept


def shown_quote(quote: str, passage: str, names: frozenset[str] | None = None) -> str | None:
    """Return the words to show for `quote` when `passage` holds it, else None.

    An exact copy (as `is_in_passage` reads it) is shown as the model wrote it; a copy that differs only in case, or
    a near copy, is shown in the passage's own words.
    """
    if is_in_passage(quote, passage):
        return WHITESPACE.sub(" ", quote).strip().strip(_WRAPPING)
    return _case_blind_copy(quote, passage) or near_copy_source(quote, passage, names)


def _case_blind_copy(quote: str, passage: str) -> str | None:
    """Return the passage's words that `quote` copies but for case ("patellofemoral" for "Patellofemoral")."""
    wanted = normalised(quote).strip(_WRAPPING).lower()
    if len(WORDS.findall(wanted)) < MIN_QUOTE_WORDS:
        return None
    text = normalised(passage)
    lowered = text.lower()
    if len(lowered) != len(text):  # a letter whose lower case is longer: positions would not map back
        return None
    at = lowered.find(wanted)
    return text[at : at + len(wanted)] if at >= 0 else None


def unquoted_numbers(answer: str, quotes: Sequence[VerifiedQuote]) -> list[str]:
    """Return the numbers `answer` states that no quote holds: a number the answer made up (or misread)."""
    held = {number for quote in quotes for number in NUMBERS.findall(normalised(quote.text))}
    return [number for number in NUMBERS.findall(normalised(answer)) if number not in held]


def closest_sources(passages: Sequence[OfferedPassage], *, limit: int = MAX_QUOTES) -> list[str]:
    """Return the citation links of the first `limit` distinct notes offered (best ranked first)."""
    return list(dict.fromkeys(passage.source for passage in passages))[:limit]
