"""Names an answer states that no note it read holds: a small model's invented author, place or product.

Asked who wrote a library the notes name only by its link, the 0.5B answered "written by Davio", a name in no passage.
Numbers get a caution of their own (`attribution.unread_numbers`); a name is the other claim code can check in any
answer. A name is a word written capitalised inside a sentence (not its first word, as `near_copy.names_in` reads
names), neither all capitals (an acronym the model spells out of habit: "LLM", "CPU") nor among the words of the
passages read, the question or the links the answer cites, nor an ordinary word: a whole word of the bundled
tokenizer's vocabulary (small models write Title Case of their own, "Create a Kubernetes Ingress Configuration",
and "Google Play Services" is as likely the model's knowledge as its invention). Common first names are ordinary
words too, so a caution names rare names only: those a model most likely made up. A language that capitalises
every noun (German) would name each noun the model words differently from the note: a reply whose sentences
capitalise more than NOUN_CAPITALS of their inner words is read as such, and left unchecked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import WIKILINK, Passage
from rag.answer.code_spans import code_ranges
from rag.answer.quote_words import SENTENCE_END, WORDS, capitalised_runs, normalised
from rag.answer.vocabulary import ordinary_words

_URL = re.compile(r"\b\w+://\S+")
_NOTICE = re.compile(r"\*\([^\n]*?\)\*")  # the service's own notes in a reply: "*(Stopped here: ...)*"
# Title Case a model writes of its own, no name: headings, a line all bold, a label before a colon ("3. **Error
# Cases**:"), and the list marker before it (the word after "1." opens its sentence).
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t].*$", re.M)
_BOLD_LINE = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])?[ \t]*\*\*[^*\n]+\*\*[ \t]*:?[ \t]*$", re.M)
_LABEL = re.compile(r"^[ \t]*(?:(?:[-*+]|\d+[.)])[ \t]+)?\**(?:[A-Z0-9][^\s:*]*[ \t]?){1,5}\**:(?=\s)", re.M)
_AFTER_COLON = re.compile(r"(?<=:)\s+")
_LIST_MARKER = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+", re.M)
# English prose capitalises some 5-15 % of the words after a sentence's first (names, titles); German some 30-40 %.
NOUN_CAPITALS = 0.25
MIN_INNER_WORDS = 12  # fewer inner words say nothing about the language


def unread_names(answer: str, passages: Sequence[Passage], *, question: str = "") -> list[str]:
    """Return the names `answer` states that neither a passage the model read, the question nor a cited link holds.

    Capitalised words in a row are one name, shown whole when one of its words is unread and no ordinary word
    ("Bauer Lindqvist"; "Google Play Services", all ordinary, is no invention code can tell).
    """
    cited = " ".join(WIKILINK.findall(answer))
    # A link stands as a word, so "… [[Note]]. Set it up" still ends its sentence before "Set".
    prose = _URL.sub(" ", _without_code(_NOTICE.sub(" ", WIKILINK.sub(" LINK ", answer))))
    for own in (_HEADING, _BOLD_LINE, _LABEL, _LIST_MARKER):
        prose = own.sub("", prose)
    sentences = [WORDS.findall(sentence) for sentence in _sentences(prose)]
    runs = [run for words in sentences for run in capitalised_runs(words)]
    inner_words = sum(max(0, len(words) - 1) for words in sentences)
    if inner_words >= MIN_INNER_WORDS and sum(map(len, runs)) > NOUN_CAPITALS * inner_words:
        return []
    # A passage's link is read with it, as its <note source="…">: "[[Käsespätzle#Käsespätzle nach Oma Käthe]]".
    read = {
        word.casefold()
        for text in (
            *(passage.text for passage in passages),
            *(passage.source for passage in passages),
            question,
            cited,
        )
        for word in WORDS.findall(normalised(text))
    }
    ordinary = ordinary_words()
    unread = [
        " ".join(run)
        for run in runs
        if any(word.casefold() not in read and word.casefold() not in ordinary for word in run)
    ]
    return list(dict.fromkeys(unread))


def _without_code(text: str) -> str:
    """Return `text` with its code blocks and spans (rag/answer/code_spans.py) blanked: code names no one."""
    kept, end = [], 0
    for start, stop in code_ranges(text):
        kept += [text[end:start], " "]
        end = stop
    return "".join([*kept, text[end:]])


def _sentences(text: str) -> list[str]:
    """Return the sentences of `text`, each line one at least (normalising first would join the lines).

    A colon ends one too: what follows it is often written as a sentence ("**Create a folder**: Navigate to ...").
    """
    parts = (part for sentence in SENTENCE_END.split(text) for part in _AFTER_COLON.split(sentence))
    return [normalised(part) for part in parts if part.strip()]
