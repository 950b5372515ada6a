"""An answer naming another thing than the notes' decision, asked which one was chosen.

Decision notes list the candidates, then the choice under a heading of its own ("## Decision") or in a record
("chosen_model: …"). Asked "Which embedding model did I choose for the librarian, and why not nomic?", Qwen2.5-Coder
0.5B answered "1. nomic-ai/nomic-embed-text-v1.5", a row of the candidates' table, which the word test bore out;
the Decision section opens "**BAAI/bge-small-en-v1.5.**". Asked which was chosen, an answer that names none of what
the decision names, where the passages read hold one, answers with another candidate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import WIKILINK, Passage
from rag.answer.citations import heading_in
from rag.answer.excerpts import FILLER
from rag.answer.quote_words import normalised
from rag.answer.rival_figures import Rival
from rag.answer.row_labels import row_of

# A question asking which was chosen: "Which model did I choose?", "What did we pick?", "Welches habe ich gewählt?".
_ASKS_CHOICE = re.compile(
    r"\b(?:choose|chose|chosen|pick|picked|select|selected|decide[ds]?\s+on|settled?\s+on|go\s+with|went\s+with"
    r"|opt(?:ed)?\s+for|wählte|gewählt|entschieden)\b",
    re.IGNORECASE,
)
# Where a note states the decision: a heading ("Decision", "Verdict", "Entscheidung") or a record's key.
_DECISION = r"(?:decision|decided|choice|chosen|verdict|picked|selected|entscheidung|gewählt)"
_DECISION_HEADING = re.compile(rf"^\W*(?:the\s+|my\s+|final\s+)?{_DECISION}\W*$", re.IGNORECASE)
_DECISION_LABEL = re.compile(rf"[\w ]*\b{_DECISION}\w*(?:[ _]\w+)*", re.IGNORECASE)  # "chosen_model", "Decision"
# A word of the answer as compared, a name whole: "nomic-ai/nomic-embed-text-v1.5", "bge-small", "BGE".
_WORD = re.compile(r"[^\W_](?:[\w./-]*[^\W_])?")
MIN_WORD_CHARS = 3
_JOINED = re.compile(r"\d|[-/_.]")
CUT = "…"  # a passage opening on it starts inside its section: its first sentence is not the section's
_FIRST_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def chose_otherwise(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the decisions read when `question` asks which was chosen and `answer` names nothing of theirs.

    A decision is the first sentence of a passage under a decision heading (the passage starting its section), or
    the value of a row keyed so ("chosen_model: BAAI/bge-small-en-v1.5"). Judged only when the answer names, beyond
    the question, something the passages name too: a candidate they list.
    """
    if not _ASKS_CHOICE.search(question):
        return []
    read = " ".join(passage.text for passage in passages).casefold()
    # A name the answer gives that the notes give too: a candidate they list ("nomic-ai/nomic-embed-text-v1.5", "BGE").
    named = [word for word in _names_in(answer) - _words(question) if word in read]
    if not named:
        return []
    decisions = [decision for passage in passages for decision in _decisions(passage)]
    if not decisions or any(_names(decision.figure, named) for decision in decisions):
        return []
    return decisions


def passed_over(passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the decisions that pass over what `question` asks whether it was chosen ("Did I choose nomic …?").

    Asked so over sample_vault, the 1.5B replied "Yes / … the librarian has chosen nomic as the embedding model."
    (stop 60), under the Decision section "**BAAI/bge-small-en-v1.5.** Nomic is two points better on Recall@5, but
    takes 3.6 times as long …". A decision passes over a word of the question its passage names after the decision
    (the candidate weighed and set aside) and the decision itself does not; words the note's title or heading hold
    ("embedding", "choice") name no candidate. A "Yes" over it is denied (rag/answer/yes_no.denials).
    """
    if not _ASKS_CHOICE.search(question):
        return []
    asked = _words(question)
    found = []
    for passage in passages:
        for decision in _decisions(passage):
            weighed = _words(normalised(passage.text)) - _words(normalised(decision.figure)) - _words(passage.source)
            if any(not _names(decision.figure, [word]) for word in asked & weighed):
                found.append(decision)
    return found


def _names(decision: str, words: Sequence[str]) -> bool:
    """Return True when `decision` names one of `words`: holds it ("bge-small"), or a word of it holds one of its."""
    stated = decision.casefold()
    return any(word in stated or any(part in word for part in _words(decision)) for word in words)


def _decisions(passage: Passage) -> list[Rival]:
    """Return the decisions `passage` states, each with what it names as its figure and its line to quote.

    Under a decision heading, the passage's first sentence (the passage starting its section) on its first line; a
    row keyed so, its value.
    """
    found = [
        Rival(row.value, line.strip(), passage.source)
        for line in passage.text.splitlines()
        if (row := row_of(line)) is not None and row.value and _DECISION_LABEL.fullmatch(row.label)
    ]
    heading = heading_in(passage.source).rsplit("#", 1)[-1]
    text = passage.text.strip()
    if _DECISION_HEADING.match(heading) and text and not text.startswith(CUT):
        line = text.split("\n", 1)[0]  # "**BAAI/bge-small-en-v1.5.** Nomic is …": the choice, then why
        first = _FIRST_SENTENCE_END.split(normalised(line), maxsplit=1)[0]  # markup dropped: ".**" ends it
        found.append(Rival(first, line, passage.source))
    return found


def _names_in(answer: str) -> set[str]:
    """Return the words of `answer` written as names, lower case, its links left out.

    A name has a digit or a joiner ("bge-small", "v1.5"), or a capital not opening a sentence ("the BGE model").
    """
    text = WIKILINK.sub(" ", answer)
    names = set()
    for found in _WORD.finditer(text):
        word = found.group()
        opens = not text[: found.start()].strip() or text[: found.start()].rstrip()[-1] in ".!?:\n"
        if len(word) >= MIN_WORD_CHARS and (_JOINED.search(word) or (word[0].isupper() and not opens)):
            names.add(word.casefold())
    return names - FILLER


def _words(text: str) -> set[str]:
    """Return the words of `text` that may name a thing, lower case, names whole, no filler ("the", "which")."""
    return {word.casefold() for word in _WORD.findall(text) if len(word) >= MIN_WORD_CHARS} - FILLER
