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

A note's title the question writes, capitalised as a name, names its subject as well, though its words are ordinary:
asked "Who wrote The Machine Stops, and in which year was it published?" over kepano-obsidian, the 0.5B answered
"Kevin Kelly, 1909", and "author: [[Kevin Kelly]]" of the Out of Control record bore out the author; the record of
The Machine Stops, read too, says "author: [[E. M. Forster]]". Only passages holding the title (in their text, or
as their note's name) then count, and a name the answer gives that only the other passages hold ("Kevin Kelly") is
taken from a note about something else (`named_elsewhere`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import Passage
from rag.answer.citations import note_title
from rag.answer.quote_words import WORDS, capitalised_runs, holds_name, normalised
from rag.answer.unread_names import NOUN_CAPITALS
from rag.answer.vocabulary import ordinary_words

TITLE_MIN_WORDS = 2  # of a note's title, for the question to name its note by it


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


def titles_named(question: str, passages: Sequence[Passage]) -> list[str]:
    """Return the titles of the passages' notes that `question` writes as a name, lower case ("the machine stops").

    A title counts written whole, of TITLE_MIN_WORDS words or more (one word is often an ordinary one: "Sleep",
    "Books"), its first word capitalised in the question: "my spending is out of control" names no note.
    """
    titles = dict.fromkeys(note_title(passage.source) for passage in passages)
    named = []
    for title in titles:
        if len(WORDS.findall(title)) < TITLE_MIN_WORDS:
            continue
        found = re.search(rf"(?<!\w){re.escape(title)}(?!\w)", question, re.IGNORECASE)
        if found is not None and found.group()[0].isupper():
            named.append(title.casefold())
    return named


def about_named(question: str, passages: Sequence[Passage]) -> list[Passage]:
    """Return the passages holding one of the question's rare names or note titles, in order.

    All of them when none holds one.
    """
    names = rare_names(question)
    titles = titles_named(question, passages)
    if not names and not titles:
        return list(passages)
    holding = [passage for passage in passages if names & _words(passage) or _holds_title(passage, titles)]
    return holding or list(passages)


def _holds_title(passage: Passage, titles: Sequence[str]) -> bool:
    """Return True when a passage's note is one of `titles`, or its text holds one (lower case, as words)."""
    text = f"{note_title(passage.source)}\n{passage.text}".casefold()
    return any(re.search(rf"(?<!\w){re.escape(title)}(?!\w)", text) for title in titles)


def _words(passage: Passage) -> frozenset[str]:
    """Return the words of a passage and of its link (its note's name and heading), lower case."""
    return frozenset(word.casefold() for word in WORDS.findall(normalised(f"{passage.source} {passage.text}")))


def named_elsewhere(
    answer: str, passages: Sequence[Passage], *, question: str, about: Sequence[Passage] | None = None
) -> list[str]:
    """Return the names `answer` gives that only passages about something other than the question's subject hold.

    Judged when the question names its subject (`about_named` keeps fewer passages than were read; `about`: what it
    kept, when the caller has it already). A name is a run of capitalised words the question does not write, its
    first word too ("Kevin Kelly, 1909"): of two words or more, or one rare word. Returned as the answer writes them.
    """
    about = about_named(question, passages) if about is None else about
    if len(about) == len(passages):
        return []
    others = [passage for passage in passages if passage not in about]
    asked = {word.casefold() for word in WORDS.findall(normalised(question))}
    found = []
    for run in name_runs(answer):
        name = frozenset(word.casefold() for word in run)
        if name <= asked or (len(run) < 2 and name <= ordinary_words()):
            continue
        if holds_name(_text(others), [name]) and not any(holds_name(_text([p]), [name]) for p in about):
            found.append(" ".join(run))
    return found


def name_runs(text: str) -> list[list[str]]:
    """Return the runs of capitalised words of each line of `text`, a line's first word included."""
    runs = []
    for line in text.splitlines():
        words = WORDS.findall(normalised(line))
        runs += capitalised_runs(["", *words])  # a blank first: the line's first word may start a name
    return runs


def _text(passages: Sequence[Passage]) -> str:
    return "\n".join(f"{passage.source}\n{passage.text}" for passage in passages)
