"""The passages about what a question names: its rare names (a model, a program, a person) held in them.

Asked "Which quantization did the TinyLlama 1.1B model I tested use, and how many layers does it have?", the 0.5B
answered "… it has 7 layers", and the answer check bore it out with "It has 7 layers, which are as follows from top
to bottom:" from the OSI Model note, which shares "layers" and "model" with the question and says nothing of
TinyLlama (whose note, read too, says "Layers: 22"). A sentence bears out an answer only when it is about what was
asked, and a name no ordinary text uses says what that is better than any common word: where some passage read
holds one of the question's rare names, only the passages holding one count as the answer's evidence.

A rare name is a word the question writes capitalised after its first (not all capitals: "EIRP" and "GPU" are said
of many things) that is no whole word of the bundled tokenizer's vocabulary (rag/answer/vocabulary.py): "TinyLlama",
"Hyprland", "Käsespätzle", not "India" or "Friday", which unrelated notes use as well. Any one of them is enough
("Which Polkit agent does my Hyprland config start …?" is answered partly by the Polkit note, which never names
Hyprland), and a question whose names no passage holds (worded unlike its notes) keeps every passage.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.answer.attribution import Passage
from rag.answer.quote_words import WORDS, capitalised_runs, normalised
from rag.answer.unread_names import NOUN_CAPITALS
from rag.answer.vocabulary import ordinary_words


def rare_names(question: str) -> frozenset[str]:
    """Return the rare names `question` writes, lower case (see the module's docstring).

    A question capitalising its words as German does every noun names nothing so: asked "Wie lange ruht der Teig im
    Kühlschrank?", a note saying "Gare" and "kalt" answers it as well as one naming the dough. Such a question
    capitalises more than NOUN_CAPITALS of its inner words, each run of capitals counted once ("Naked Snake" is one
    name), in two runs or more.
    """
    words = WORDS.findall(normalised(question))
    runs = capitalised_runs(words)  # after the first word, which opens the sentence
    if len(runs) >= 2 and len(runs) > NOUN_CAPITALS * (len(words) - 1):
        return frozenset()
    return frozenset(word.casefold() for run in runs for word in run) - ordinary_words()


def about_named(question: str, passages: Sequence[Passage]) -> list[Passage]:
    """Return the passages holding one of the question's rare names, in order; all of them when none holds one."""
    names = rare_names(question)
    if not names:
        return list(passages)
    holding = [passage for passage in passages if names & _words(passage)]
    return holding or list(passages)


def _words(passage: Passage) -> frozenset[str]:
    """Return the words of a passage and of its link (its note's name and heading), lower case."""
    return frozenset(word.casefold() for word in WORDS.findall(normalised(f"{passage.source} {passage.text}")))
