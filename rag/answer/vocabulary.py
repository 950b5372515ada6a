"""The whole words of the bundled tokenizer's vocabulary: which words are ordinary, and how common each one is.

The MiniLM tokenizer's WordPiece vocabulary (uncased English, 30,522 pieces) holds ordinary words and common names
as whole words ("configuration", "navigate"), never what a model invents ("Davio") nor rare terms ("terraform").
Its ids after the special tokens and single characters run roughly from common to rare ("the" 1996, "writing"
3015, "modules" 14184), as WordPiece added words in order of frequency: a rough, vault-independent rarity.
"""

from __future__ import annotations

import json
from functools import cache

from rag.embedding.dense_models import bundled_tokenizer_dir


@cache
def _whole_words() -> dict[str, int]:
    tokenizer = bundled_tokenizer_dir() / "tokenizer.json"
    vocabulary: dict[str, int] = json.loads(tokenizer.read_text(encoding="utf-8"))["model"]["vocab"]
    return {token: index for token, index in vocabulary.items() if token.isalpha()}


@cache
def ordinary_words() -> frozenset[str]:
    """Return the whole words of the vocabulary, lower case: ordinary words and common names."""
    return frozenset(_whole_words())


def rarity(word: str) -> int:
    """Return how rare `word` is: its vocabulary id (higher is rarer), above them all when it is no whole word."""
    words = _whole_words()
    return words.get(word.casefold(), len(words) + 30_000)
