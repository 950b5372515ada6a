"""A figure an answer gives to one name, where the notes give it only to another.

Asked "Which one gave the most per plant?" after the tomato varieties grown, Qwen2.5-Coder 1.5B answered "The Green
Zebra tomato gave the most per plant, with 3.1 kg each." The notes say "**Sungold** yielded most per plant (3.1 kg
each)", and Green Zebra stands in their table as the variety dropped. Every word and number of the answer is in the
passages, and its figure stands beside the words it is tied to ("most per plant"), so neither the word test nor the
rival test (rag/answer/rival_figures.py) sees it: what is wrong is whose figure it is.

The test is narrow: a figure with a unit the answer states beyond the question, a name beside it in the answer's
statement (a capitalised word past the sentence's first, not the question's nor a unit's, that the passages give
elsewhere: the model took it from them; German capitalises every noun), passages holding that figure, and no
statement of them holding it (nor its sentence, the sentence before, or the note and heading it stands under) with
that name, while one holds it with another name. A name written across sentences ("Sungold did best. It yielded
3.1 kg a plant.") is read so; a figure no passage holds gets the unread-number caution instead. Those statements are
the rivals: shown first under the refusal. A figure the answer ties to a name of the question it repeats is judged
so too, when the notes name it elsewhere but never by that figure ("India … 30 dB EIRP", the FCC's; `_asked_owners`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import WIKILINK, Passage
from rag.answer.excerpts import answer_sentences, sentences_of
from rag.answer.rival_figures import Rival, figures_stated, without_figures

_WORD = re.compile(r"[^\W\d_](?:[\w'-]*\w)?")  # "Germidour" of "'Germidour'"
MIN_NAME_CHARS = 3  # "Sungold", "Krim", "Llama"; not "I" or "A"
# Words a sentence may open with that name nothing (English and German, as the notes here are written).
_OPENERS = frozenset(
    ("the", "this", "that", "these", "those", "they", "there", "then", "their", "your", "yes", "not", "and", "but",
     "for", "from", "with", "after", "before", "according", "based", "both", "each", "all", "some", "one", "none",
     "only", "also", "here", "what", "which", "who", "when", "where", "how", "why", "you", "she", "his", "her", "our",
     "its", "note", "notes", "der", "die", "das", "ein", "eine", "sie", "ich", "wir", "laut", "nein")
)  # fmt: skip


def owned_elsewhere(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the notes' statements giving a figure of `answer` to another name than the answer gives it to.

    The name is the answer's own, or one of the question's it repeats (`_asked_owners`).
    """
    asked = {word.casefold() for word in _WORD.findall(question)}
    read: set[str] | None = None  # the passages' words: read once an answer's sentence names anyone (most do not)
    rivals: list[Rival] = []
    for sentence in answer_sentences(WIKILINK.sub(" ", answer)):
        named = _names(sentence)
        if not named:
            continue
        if read is None:
            read = {word.casefold() for passage in passages for word in _WORD.findall(passage.text)}
        names = (named - asked) & read
        for figure in figures_stated(sentence, exclude=question):
            held = [(passage, at, said) for passage in passages for at, said in _holding(passage, figure)]
            owners = names or _asked_owners(named & asked & read, held, passages)
            if not owners or any(_names_any(owners, passage, at) for passage, at, _ in held):
                continue
            others = [(passage, said) for passage, _, said in held if _names(said) - named - asked]
            rivals.extend(Rival(figure, said, passage.source) for passage, said in others)
    return rivals


def _asked_owners(repeated: set[str], held: list[tuple[Passage, int, str]], passages: Sequence[Passage]) -> set[str]:
    """Return the question's names an answer repeats that no statement holding its figure names, nor its note.

    Asked "What is the maximum EIRP India allows in the 5 GHz Wi-Fi band?", the 0.5B answered "… India allows … is
    30 dB EIRP." from "FCC allows 36 dBm EIRP for Point to Point (PtP) and 30 dB EIRP for Point to Multipoint
    (PtMP) connections."; the notes give India its own sentence. The answer ties its figure to each name of the
    question it repeats (`repeated`, named in the passages too: the notes speak of them): "EIRP", which the FCC's
    sentence names, is the figure's kind, and "India", which it does not, is whose the figure is said to be. A
    statement naming a word the passages write beside the name names it too: "… on a single H100" is NVIDIA's, as
    the notes write "NVIDIA H100", asked what one Nvidia card could do.
    """
    owned = {name for name in repeated if any(_names_any(_with_neighbours(name, passages), p, at) for p, at, _ in held)}
    return repeated - owned


def _with_neighbours(name: str, passages: Sequence[Passage]) -> set[str]:
    """Return `name` with the names the passages write right before or after it ("nvidia" -> "h100")."""
    found = {name}
    for passage in passages:
        words = _WORD.findall(passage.text)
        for at, word in enumerate(words):
            if word.casefold() == name:
                found |= {near.casefold() for near in words[max(at - 1, 0) : at + 2] if near[0].isupper()}
    return found


def _names(text: str) -> set[str]:
    """Return the casefolded capitalised words of `text`: the names it gives ("Sungold", "Green", "Zebra").

    Its first word too, unless a word any sentence may open with ("The", "Your", "According"): "Matina gave 6.2 kg."
    names Matina, and a table row's "| Sungold |" Sungold.
    """
    words = _WORD.findall(without_figures(WIKILINK.sub(" ", text)))
    opening = words[:1] if words and words[0].casefold() not in _OPENERS else []
    named = [*opening, *words[1:]]
    return {word.casefold() for word in named if word[0].isupper() and len(word) >= MIN_NAME_CHARS}


def _holding(passage: Passage, figure: str) -> list[tuple[int, str]]:
    """Return the sentences of `passage` holding `figure` (as compared), with their place among its sentences."""
    sentences = sentences_of(passage.text)
    return [(at, said) for at, said in enumerate(sentences) if figure in figures_stated(said)]


def _names_any(names: set[str], passage: Passage, at: int) -> bool:
    """Return True when the sentence at `at`, or the passage's note and heading, name any of `names`.

    Also the sentence before, when the one at `at` names nothing ("It yielded 3.1 kg a plant."): a table's row
    above is another row's, whose name the figure's own row does not give.
    """
    sentences = sentences_of(passage.text)
    own = sentences[at]
    before = sentences[at - 1] if at and not _names(own) else ""
    around = " ".join([passage.source.strip("[]"), own, before])
    return bool(names & {word.casefold() for word in _WORD.findall(around)})
