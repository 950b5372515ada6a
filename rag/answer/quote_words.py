"""How quotes and notes are read when one is compared with the other: normalised text, words, sentences, numbers."""

from __future__ import annotations

import html
import re
import unicodedata

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
