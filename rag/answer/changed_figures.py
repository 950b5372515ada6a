"""A figure the notes changed: what a thing had before "114 links shortened to 110", "dropped from 35 to 15".

Asked "Which chain did I fit on the commuter bike, and how many links does it have?", the 1.5B answered "The KMC X9
chain has 114 links." over "New chain on 10 November: KMC X9, 114 links shortened to 110 to match the old one"
(sample_vault, stop 59 and again at stop 60): a number the note holds, so the word tests bore it out, but the one the
chain had before the note changed it. Code reads two ways of writing a change in a sentence: a figure then a verb of
change "to" the new one ("114 links shortened to 110", "€400, raised to €450"), and a verb of change "from" one figure
"to" another ("time to fall asleep dropped from about 35 minutes to 15"; a bare "from 9 to 12" is a span, no change).
An answer giving a number the passages hold only as such a starting point, and not the figure it was changed to, is
answered by the figure it was changed to, unless the question asks what was before ("originally", "at first", "the
old …").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.answer.attribution import Passage, said_beyond
from rag.answer.excerpts import sentences_of
from rag.answer.rival_figures import Rival, rival_figures

_NUMBER = r"\d+(?:[.,]\d+)?"
_ABOUT = r"(?:about\s+|around\s+|roughly\s+|~\s?)?[€$£]?"
_CHANGED = (
    r"(?:shortened|lengthened|reduced|cut|trimmed|lowered|raised|increased|decreased|extended|changed|moved|updated"
    r"|bumped|dropped|fell|rose|grew|went|shrank|shrunk|adjusted|corrected|revised|halved|doubled|verkürzt|gekürzt"
    r"|erhöht|gesenkt|reduziert|gestiegen|gesunken)"
)
_UNIT = r"(?:\s?(?:%|°\s?[CF]|[^\W\d_]{1,12}))?"
# "114 links shortened to 110", "€400, raised to €450", "14 hours was cut to 12"
_OLD_THEN_NEW = re.compile(
    rf"(?<![\w.,:/-])[€$£]?(?P<old>{_NUMBER}){_UNIT},?\s+(?:(?:was|were|is|got|then)\s+)?{_CHANGED}"
    rf"\s+(?:(?:down|up|back)\s+)?(?:to|auf)\s+{_ABOUT}(?P<new>{_NUMBER})",
    re.IGNORECASE,
)
# "dropped from about 35 minutes to 15", "went up from 3 to 4 sets"
_FROM_OLD_TO_NEW = re.compile(
    rf"\b{_CHANGED}\s+(?:\w+\s+){{0,2}}?(?:from|von)\s+{_ABOUT}(?P<old>{_NUMBER}){_UNIT}\s+(?:to|auf)\s+{_ABOUT}"
    rf"(?P<new>{_NUMBER})",
    re.IGNORECASE,
)
# A question asking what was before the change, which the starting figure answers.
_ASKS_BEFORE = re.compile(
    r"\b(?:before|originally|original|at first|initially|previously|used to|start(?:ed)? (?:with|at|from)|from what"
    r"|old|ursprünglich|vorher|zuerst|anfangs)\b",
    re.IGNORECASE,
)
_WHOLE_NUMBER = r"(?<![\d.,]){number}(?![\d]|[.,]\d)"


@dataclass(frozen=True, slots=True)
class _Change:
    old: str
    new: str
    sentence: str
    source: str


def changed_since(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the figures the notes changed what `answer` gives to, where it gives only what was before.

    Judged for each number the answer gives beyond the question: every place a passage holds it is the starting
    point of a change, and the answer gives none of the figures it was changed to. Returned: those figures, each
    with its sentence.
    """
    if _ASKS_BEFORE.search(question):
        return []
    numbers = {_plain(term.split()[0]) for term in said_beyond(answer, question) if term[0].isdigit()}  # "35 min"
    if not numbers:
        return []
    changes = [
        _Change(_plain(found["old"]), _plain(found["new"]), sentence.strip(), passage.source)
        for passage in passages
        for sentence in sentences_of(passage.text)
        for pattern in (_OLD_THEN_NEW, _FROM_OLD_TO_NEW)
        for found in pattern.finditer(sentence)
    ]
    rivals = []
    for number in numbers:
        starting = [change for change in changes if change.old == number]
        if not starting or any(change.new in numbers for change in starting):
            continue
        held = sum(_count(number, passage.text) for passage in passages)
        if held > len(starting):
            continue  # held elsewhere as well, as what it is now or of something else
        rivals += [Rival(change.new, change.sentence, change.source) for change in starting]
    return rivals


def _plain(number: str) -> str:
    return number.replace(",", ".")


def _count(number: str, text: str) -> int:
    """Return how often `text` writes `number` as a whole number ("114", not the "114" of "1140" or "11.4")."""
    return len(re.findall(_WHOLE_NUMBER.format(number=re.escape(number)), text.replace(",", ".")))


def misread_figures(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the notes' figures for what `answer` gives another figure of: standing nearer, or changed to since."""
    return [*rival_figures(answer, passages, question=question), *changed_since(answer, passages, question=question)]
