"""How quotes and notes are read when one is compared with the other: normalised text, words, sentences, numbers."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence

# Markup a copy may keep or drop: emphasis and code marks, highlight marks, wikilink brackets.
_MARKUP = re.compile(r"\*+|(?<!\w)_+|_+(?!\w)|`+|==|\[\[|\]\]")
WHITESPACE = re.compile(r"\s+")
WORDS = re.compile(r"[^\W_]+")
NUMBERS = re.compile(r"\d+(?:[.,:]\d+)*")
# Where a text is cut into sentences: a sentence's end (not a list number's "4. "), or a line break.
SENTENCE_END = re.compile(r"(?<=[^\d\s][.!?])\s+|\n+")


def normalised(text: str) -> str:
    """Return `text` as quotes are compared: entities decoded, markup dropped, whitespace runs as one space."""
    plain = unicodedata.normalize("NFKC", html.unescape(text))
    return WHITESPACE.sub(" ", _MARKUP.sub("", plain)).strip()


def capitalised_runs(words: Sequence[str]) -> list[list[str]]:
    """Return the runs of capitalised words after a sentence's first, each one name ("Google Play Services")."""
    runs: list[list[str]] = []
    ends_run = -1  # the index of the last word of the run being read
    for index, word in enumerate(words):
        if index == 0 or not _is_capitalised(word):
            continue
        if index - 1 == ends_run:
            runs[-1].append(word)
        else:
            runs.append([word])
        ends_run = index
    return runs


def _is_capitalised(word: str) -> bool:
    """Return True for a word written as a name: a capital first, not all capitals, not a number, not "I"."""
    return len(word) > 1 and word[0].isupper() and not word.isupper() and not word.isdigit()


def names_written(text: str) -> list[frozenset[str]]:
    """Return the names `text` writes (runs of capitalised words after its first), each as its words, lower case."""
    return [frozenset(word.casefold() for word in run) for run in capitalised_runs(WORDS.findall(normalised(text)))]


def holds_name(text: str, names: Sequence[frozenset[str]]) -> bool:
    """Return True when `text` holds every word of one of `names` (any case): "Steph Ango" in "[[Steph Ango]]"."""
    words = {word.casefold() for word in WORDS.findall(normalised(text))}
    return any(name <= words for name in names)
