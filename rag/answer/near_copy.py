"""Near copies: a quote a small model copied loosely, matched to the sentences of the passage it copied.

Small models copy loosely: a word dropped, a tense changed, "the" added. A quote that is no substring is still kept
when nearly all of its words are those of one sentence of its passage (or two or three in a row), in the same
order, and every number and name it states is among them. It is then shown as the note says it (the span's own
words), never as the model wrote it, so what the user reads as a quote is always in the note. A name is a word a
text writes capitalised inside a sentence (`names_in`); the same test keeps a model's answer from naming what no
quote names (`unquoted_names`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import accumulate, pairwise

from rag.answer.quote_words import NUMBERS, SENTENCE_END, WORDS, normalised

# A list item's or heading's marker, left out of a snapped quote: "- [ ] ", "1. ", "> ", "## ".
_LINE_MARKER = re.compile(r"^(?:[-*+]\s+(?:\[.\]\s+)?|\d+[.)]\s+|>\s*|#+\s+)")
NEAR_COPY_WORDS = 0.8  # share of a quote's words, in order, a span must hold to count as what it copied
NEAR_COPY_MIN_WORDS = 4  # below this a loose copy cannot be told from a chance match
NEAR_COPY_SPAN = 3  # sentences in a row a quote may span


def near_copy_source(quote: str, passage: str, names: frozenset[str] | None = None) -> str | None:
    """Return the passage's own words for a loose copy of them (see the module's docstring), else None.

    Of the spans of one to NEAR_COPY_SPAN sentences that hold NEAR_COPY_WORDS of the quote's words in order, each of
    its numbers and names among them, the shortest is returned (the sentence the model copied, not the paragraph
    around it). `names`: the words written as names (`names_in`) in every passage the model read, so that a name
    opening the quote's sentence is known as one ("India allows ..." is no copy of "FCC allows ..."); default: this
    passage's.
    """
    words = WORDS.findall(normalised(quote))
    if len(words) < NEAR_COPY_MIN_WORDS:
        return None
    wanted = [word.casefold() for word in words]
    names = names_in([passage]) if names is None else names
    essential = [_is_essential(word, index, names) for index, word in enumerate(words)]
    numbers = NUMBERS.findall(normalised(quote))
    sentences = [text for part in SENTENCE_END.split(passage) if (text := _LINE_MARKER.sub("", normalised(part)))]
    words_of = [[word.casefold() for word in WORDS.findall(sentence)] for sentence in sentences]
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
    held = set(NUMBERS.findall(span))
    return all(number in held for number in numbers)


def names_in(texts: Sequence[str]) -> frozenset[str]:
    """Return the words `texts` write as names: capitalised after a sentence's first word (casefolded).

    A word opening a sentence is capitalised whatever it is; these tell which of those are names ("Sungold" of
    "Sungold gave", once a note also writes "two stems for Sungold").
    """
    return frozenset(
        word.casefold()
        for text in texts
        for sentence in SENTENCE_END.split(normalised(text))
        for index, word in enumerate(WORDS.findall(sentence))
        if _is_capitalised_inside(word, index)
    )


def unquoted_names(answer: str, quotes: Sequence[str], names: frozenset[str] = frozenset()) -> list[str]:
    """Return the names `answer` states that no quote holds: capitalised inside a sentence, or one of `names`.

    "Sungold gave 11 fruits" over a quote that says "Three plants gave 11 fruits": the numbers are quoted, the
    subject is the model's.
    """
    held = {word.casefold() for quote in quotes for word in WORDS.findall(normalised(quote))}
    return [
        word
        for sentence in SENTENCE_END.split(normalised(answer))
        for index, word in enumerate(WORDS.findall(sentence))
        if _is_name(word, index, names) and word.casefold() not in held
    ]


def _is_capitalised_inside(word: str, index: int) -> bool:
    """Return True for a capitalised word after a sentence's first ("I" aside): written so, it is a name."""
    return index > 0 and len(word) > 1 and not word.islower() and not word.isdigit()


def _is_name(word: str, index: int, names: frozenset[str]) -> bool:
    return not word.isdigit() and (_is_capitalised_inside(word, index) or word.casefold() in names)
