"""Quotes a model says answer the question, checked against the passages it read before any answer is shown.

A quote counts only when it is a substring of an offered passage (the one it names, or another: the citation is
the passage that holds it). The comparison forgives what copying a note changes without changing what it says: runs
of whitespace (a table row or list copied onto one line) and Markdown markup (`**bold**`, `_italic_`, `` `code` ``,
`==highlight==`, `[[link]]` brackets). Digits, units and punctuation must match: "24 °C" is no quote of "4 °C",
and a sentence the model wrote in its own words is none at all. A copy that differs only in case is shown in the
note's own case.

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
from itertools import accumulate, pairwise

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
    """Return the quotes some offered passage holds, each once, at most `limit`, in the model's order.

    Each quote is looked for in the passage it names first, then in the others in rank order: small models credit
    the wrong id (the bake times "from N1" that are in N2). Its citation is always the passage that holds the
    words, never merely the one named, so a link never points at a note that does not say the quote.
    """
    by_id = {passage.id: passage for passage in passages}
    kept: list[VerifiedQuote] = []
    seen: set[str] = set()
    for quote in quotes:
        named = by_id.get(quote.passage)
        candidates = [*([named] if named else []), *(passage for passage in passages if passage is not named)]
        found = next(((p, text) for p in candidates if (text := shown_quote(quote.text, p.text)) is not None), None)
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


def shown_quote(quote: str, passage: str) -> str | None:
    """Return the words to show for `quote` when `passage` holds it, else None.

    An exact copy (as `is_in_passage` reads it) is shown as the model wrote it; a copy that differs only in case, or
    a near copy, is shown in the passage's own words.
    """
    if is_in_passage(quote, passage):
        return _WHITESPACE.sub(" ", quote).strip().strip(_WRAPPING)
    return _case_blind_copy(quote, passage) or near_copy_source(quote, passage)


def _case_blind_copy(quote: str, passage: str) -> str | None:
    """Return the passage's words that `quote` copies but for case ("patellofemoral" for "Patellofemoral")."""
    wanted = normalised(quote).strip(_WRAPPING).lower()
    if len(_WORDS.findall(wanted)) < MIN_QUOTE_WORDS:
        return None
    text = normalised(passage)
    lowered = text.lower()
    if len(lowered) != len(text):  # a letter whose lower case is longer: positions would not map back
        return None
    at = lowered.find(wanted)
    return text[at : at + len(wanted)] if at >= 0 else None


_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")


def near_copy_source(quote: str, passage: str) -> str | None:
    """Return the passage's own words for a loose copy of them (see the module's docstring), else None.

    Of the spans of one to NEAR_COPY_SPAN sentences that hold NEAR_COPY_WORDS of the quote's words in order, each of
    its numbers and names among them, the shortest is returned (the sentence the model copied, not the paragraph
    around it).
    """
    words = _WORDS.findall(normalised(quote))
    if len(words) < NEAR_COPY_MIN_WORDS:
        return None
    wanted = [word.casefold() for word in words]
    names = names_in([passage])
    essential = [_is_essential(word, index, names) for index, word in enumerate(words)]
    numbers = _NUMBER.findall(normalised(quote))
    sentences = [text for part in _SENTENCE_END.split(passage) if (text := _LINE_MARKER.sub("", normalised(part)))]
    words_of = [[word.casefold() for word in _WORDS.findall(sentence)] for sentence in sentences]
    best: str | None = None
    for start in range(len(sentences)):
        for end in range(start + 1, min(start + NEAR_COPY_SPAN, len(sentences)) + 1):
            span = " ".join(sentences[start:end])
            if best is not None and len(span) >= len(best):
                break
            matched = _copied_in_order(wanted, essential, [word for words in words_of[start:end] for word in words])
            if matched is None or len(matched) < NEAR_COPY_WORDS * len(wanted) or not _holds_numbers(span, numbers):
                continue
            # Each sentence of a longer span must give the copy two words or more: a name in the sentence before
            # ("Two stems for Sungold. Three plants gave ...") does not make "Sungold gave ..." a copy.
            bounds = [0, *accumulate(len(words) for words in words_of[start:end])]
            if end - start > 1 and any(
                sum(low <= index < high for index in matched) < 2 for low, high in pairwise(bounds)
            ):
                continue
            best = span
            break
    return best


def _is_essential(word: str, index: int, names: frozenset[str]) -> bool:
    """Return True for a word a copy may not change: a number or a name."""
    return word.isdigit() or _is_name(word, index, names)


def _copied_in_order(wanted: Sequence[str], essential: Sequence[bool], held: Sequence[str]) -> list[int] | None:
    """Return the positions in `held` of `wanted`'s words found there in order; None when an essential one is not.

    The words are aligned as their longest common subsequence. A number the alignment leaves out is a misread one
    ("at 24 °C" where the span says "at 4 °C" and 24 elsewhere), a name left out is another subject ("Sungold gave
    11 fruits" for "Three plants gave 11 fruits"): no share of other words makes up for either.
    """
    table = [[0] * (len(held) + 1) for _ in range(len(wanted) + 1)]
    for i, word in enumerate(wanted):
        for j, other in enumerate(held):
            table[i + 1][j + 1] = table[i][j] + 1 if word == other else max(table[i][j + 1], table[i + 1][j])
    i, j, matched = len(wanted), len(held), []
    while i and j:
        if wanted[i - 1] == held[j - 1]:
            i, j = i - 1, j - 1
            matched.append(j)
        elif table[i - 1][j] >= table[i][j - 1]:
            if essential[i - 1]:
                return None
            i -= 1
        else:
            j -= 1
    return None if any(essential[:i]) else matched[::-1]


def _holds_numbers(span: str, numbers: Sequence[str]) -> bool:
    """Return True when every number in `numbers` is one of `span`'s numbers (a whole number, not part of one)."""
    held = set(_NUMBER.findall(span))
    return all(number in held for number in numbers)


def names_in(texts: Sequence[str]) -> frozenset[str]:
    """Return the words `texts` write as names: capitalised after a sentence's first word (casefolded).

    A word opening a sentence is capitalised whatever it is; these tell which of those are names ("Sungold" of
    "Sungold gave", once a note also writes "two stems for Sungold").
    """
    return frozenset(
        word.casefold()
        for text in texts
        for sentence in _SENTENCE_END.split(normalised(text))
        for index, word in enumerate(_WORDS.findall(sentence))
        if _is_capitalised_inside(word, index)
    )


def unquoted_names(answer: str, quotes: Sequence[VerifiedQuote], names: frozenset[str] = frozenset()) -> list[str]:
    """Return the names `answer` states that no quote holds: capitalised inside a sentence, or one of `names`.

    "Sungold gave 11 fruits" over a quote that says "Three plants gave 11 fruits": the numbers are quoted, the
    subject is the model's.
    """
    held = {word.casefold() for quote in quotes for word in _WORDS.findall(normalised(quote.text))}
    return [
        word
        for sentence in _SENTENCE_END.split(normalised(answer))
        for index, word in enumerate(_WORDS.findall(sentence))
        if _is_name(word, index, names) and word.casefold() not in held
    ]


def _is_capitalised_inside(word: str, index: int) -> bool:
    """Return True for a capitalised word after a sentence's first ("I" aside): written so, it is a name."""
    return index > 0 and len(word) > 1 and not word.islower() and not word.isdigit()


def _is_name(word: str, index: int, names: frozenset[str]) -> bool:
    return not word.isdigit() and (_is_capitalised_inside(word, index) or word.casefold() in names)


def unquoted_numbers(answer: str, quotes: Sequence[VerifiedQuote]) -> list[str]:
    """Return the numbers `answer` states that no quote holds: a number the answer made up (or misread)."""
    held = {number for quote in quotes for number in _NUMBER.findall(normalised(quote.text))}
    return [number for number in _NUMBER.findall(normalised(answer)) if number not in held]


def closest_sources(passages: Sequence[OfferedPassage], *, limit: int = MAX_QUOTES) -> list[str]:
    """Return the citation links of the first `limit` distinct notes offered (best ranked first)."""
    return list(dict.fromkeys(passage.source for passage in passages))[:limit]
