"""British and American spellings of one word: "authorise" in a question finds "authorize" in a note.

BM25 hashes each stemmed word, and the stemmer keeps the spellings apart ("authoris" and "author", "colour" and
"color"). A question spelled one way then shares no term with a note spelled the other, and worse, the relevance gate
weighs its word as one the vault never uses (the rarest kind), finds it in no note and refuses: "When I authorise my
own app on WordPress.com ..." was refused over a note saying "authorize". So each question word with another
spelling is searched in both, and the measures that count a question's words count the pair once
(`core.domain.Embedding.alternates`). Only queries change: notes are indexed as written.

The pairs are breame's list (about 1,700 American words and their British spellings, inflections included), less
its few pairs of different words ("filter" and "philtre", "groin" and "groyne"). An American spelling that is another
word in British English too ("tire": be tired; "draft" of a letter; a gas "meter"; a software "program") does not
search for its British pair, while the British spelling, which means only the one thing, finds it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache

from core.domain import SparseVector

# American words of breame's list whose pair is another word, not their spelling: never paired.
NOT_SPELLINGS = frozenset(
    {"bevy", "filter", "filters", "groin", "groins", "prolog", "prologs", "pummel", "pummeled", "snowplow"}
)  # fmt: skip
# American spellings that are other words in British English too: found by their British pair, not searching for it.
ONE_WAY = frozenset(
    {"disk", "disks", "draft", "drafts", "gage", "gaged", "gages", "meter", "meters", "program", "programs", "ton",
     "tons", "tire", "tires"}
)  # fmt: skip

_WORDS = re.compile(r"[^\W\d_]+")


def _breame() -> dict[str, str]:
    """Return breame's American spellings and their British ones, imported on first use, not at start-up."""
    from breame.data.spelling_constants import AMERICAN_ENGLISH_SPELLINGS

    return dict(AMERICAN_ENGLISH_SPELLINGS)


@cache
def _pairs() -> dict[str, str]:
    """Return each spelling's other spelling, both ways (built on first use: breame's tables take 7 ms to load)."""
    pairs = dict(_american_of())
    for american, british in _breame().items():
        if american not in NOT_SPELLINGS and american not in ONE_WAY:
            pairs[american] = british
    return pairs


@cache
def _american_of() -> dict[str, str]:
    pairs = _breame().items()
    return {british: american for american, british in pairs if american not in NOT_SPELLINGS}


def other_spelling(word: str) -> str | None:
    """Return the word's other (British or American) spelling in lower case, or None when it has none."""
    return _pairs().get(word.casefold())


def one_spelling(word: str) -> str:
    """Return a lower-case word in the American spelling when it has one, so both spellings compare equal.

    For the answer's word matching (rag/answer/excerpts.stem): "colour" in a question is "color" in a note.
    """
    return _american_of().get(word, word)


def with_other_spellings(
    sparse: SparseVector, text: str, terms_of: Callable[[str], Sequence[int]]
) -> tuple[SparseVector, tuple[tuple[int, int], ...]]:
    """Return a query's sparse vector with its words' other spellings added, and (added term, own term) pairs.

    `terms_of` gives a word's terms as the query's were made (the stemmed BM25 hash). A spelling that stems to the
    same term ("travelling"), or a question already holding both spellings, adds nothing.
    """
    weights = dict(zip(sparse.indices, sparse.values, strict=True))
    alternates: list[tuple[int, int]] = []
    for word in dict.fromkeys(match.casefold() for match in _WORDS.findall(text)):
        other = other_spelling(word)
        if other is None:
            continue
        own, added = terms_of(word), terms_of(other)
        if len(own) != 1 or len(added) != 1 or own[0] not in weights or added[0] in weights:
            continue  # a stop word, or a spelling already searched for
        weights[added[0]] = weights[own[0]]
        alternates.append((added[0], own[0]))
    if not alternates:
        return sparse, ()
    indices = tuple(sorted(weights))
    return SparseVector(indices, tuple(weights[term] for term in indices)), tuple(alternates)
