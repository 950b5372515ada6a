"""The shape examples the output contracts show the model, and the check that a reply did not copy one back.

A small model that cannot answer (its first reply was cut off, its repair shows it little) copies the example of
the reply's shape it was given: `<value>` as a property, `<the section text: ...>` as the briefing. Code refuses
such a value, whatever the schema let through: it repeats the example (whole, or a long run of its words), or is
little more than it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher

VALUE = "<value>"  # a property value in the frontmatter.set contract
PATH = "<path of a note above>"  # a note's path in the frontmatter.set contract
MOSTLY = 0.8  # similarity (difflib ratio of the words) above which a value is the example, spelled loosely
# A run of the example's words this long (in characters, words joined by one space) is copied, not written: no
# briefing says "the section text markdown no html" on its own.
COPIED_RUN = 24
MIN_PART_WORDS = 3  # a value that is only a run of the example's words this long is a part of it, copied
_WORD = re.compile(r"\w+")


def section_example(limit: int) -> str:
    """Return the example of a section.write reply's text, as the contract shows it."""
    return f"<the section text: Markdown, no HTML, no heading, at most {limit} characters>"


def copied_example(value: str, examples: Iterable[str]) -> str | None:
    """Return the example that `value` repeats or mostly is, else None."""
    folded = value.casefold()
    words = _words(value)
    for example in examples:
        inner = _words(example)
        if example.casefold() in folded or _is_mostly(words, inner) or _longest_run(words, inner) >= COPIED_RUN:
            return example
    return None


def _words(text: str) -> str:
    # Brackets, quotes and punctuation a model drops or adds while copying do not count: only the words do.
    return " ".join(_WORD.findall(text.casefold()))


def _is_mostly(words: str, example: str) -> bool:
    if len(words.split()) >= MIN_PART_WORDS and words in example:  # "<the section text>": a part, nothing else
        return True
    return bool(words) and SequenceMatcher(None, words, example, autojunk=False).ratio() >= MOSTLY


def _longest_run(words: str, example: str) -> int:
    if len(example) < COPIED_RUN or len(words) < COPIED_RUN:
        return 0
    matcher = SequenceMatcher(None, words, example, autojunk=False)
    return matcher.find_longest_match(0, len(words), 0, len(example)).size
