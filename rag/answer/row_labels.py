"""A figure an answer takes from a labelled row, where the question names another row of the record.

Notes keep records as rows of "Label: value" (a model's specs, a book's details), often with some rows left blank.
Over vaultofknowledge, asked "How many output tokens per second did the Llama 8B fine-tuned with DeepSeek-R1 reach on
my laptop?" (every "Output Tokens/Second:" row of that model is blank), Qwen2.5-Coder 0.5B answered "4.89", the
value of the row above, "Bits Per Weight: 4.89": a number the notes hold, so the word test passed it. What gives it
away is the label: the question names another row's ("Output Tokens/Second"), and every line holding the answer's
number is a row labelled with none of the question's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.answer.attribution import Passage, said_beyond, terms_of
from rag.answer.excerpts import question_stems
from rag.answer.rival_figures import Rival

# A row: a label of words, a colon, the value ("- Bits Per Weight: 4.89", "**Size:** 4.58 GiB", "Layers: 32").
_ROW = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*)?(?P<label>[^\W\d_][^:\n]{0,60}?)(?:\*\*)?[ \t]*:(?:\*\*)?(?P<value>[^\n]*)$"
)
LABEL_WORDS = 2  # of the question's words a row's label holds to be the row asked for ("output", "tokens", "second")


def labelled_for_another(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the rows the question asks for when `answer`'s numbers stand only in rows labelled otherwise.

    Judged when some row read has a label holding LABEL_WORDS of the question's words, and each number the answer
    gives beyond the question stands in the passages only as the value of rows whose labels hold none of them.
    Returned: the rows asked for, each with its value as the figure ("" for a blank one: "Output Tokens/Second:" says
    the notes have no figure there).
    """
    numbers = {term for term in said_beyond(answer, question) if term[0].isdigit()}
    if not numbers:
        return []
    asked = question_stems(question)
    lines = [(passage, line) for passage in passages for line in passage.text.splitlines()]
    labels = {line: label for _, line in lines if (label := _label_stems(line)) is not None}
    shares = {line: len(asked & label) for line, label in labels.items()}
    most = max(shares.values(), default=0)
    if most < LABEL_WORDS:
        return []
    # The rows holding most of the question's words: "Output Tokens/Second", not "Prompt Tokens/Second".
    asked_rows = list(
        dict.fromkeys((passage.source, line.strip()) for passage, line in lines if shares.get(line) == most)
    )
    for number in numbers:
        holding = [line for _, line in lines if number in terms_of(line, bare_numbers=True)]
        if not holding or any(line not in labels or asked & labels[line] for line in holding):
            return []
    return [Rival(line.partition(":")[2].strip(), line, source) for source, line in asked_rows]


def _label_stems(line: str) -> frozenset[str] | None:
    """Return the word stems of `line`'s label, if it is a row ("- Bits Per Weight: 4.89" -> bits, weight)."""
    row = row_of(line)
    return None if row is None else question_stems(row.label)


@dataclass(frozen=True, slots=True)
class Row:
    """A labelled row of a note: "- Bits Per Weight: 4.89" is "Bits Per Weight" and "4.89" ("" when blank)."""

    label: str
    value: str


def row_of(line: str) -> Row | None:
    """Return `line` read as a labelled row, or None when it is none."""
    found = _ROW.match(line)
    return None if found is None else Row(found["label"], found["value"].strip())
