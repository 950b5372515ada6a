"""What the notes say is still to be done, asked whether it was done: "Did I replace the cassette …?".

Asked "Did I replace the cassette when my commuter bike skipped gears?" over sample_vault, Qwen2.5-Coder 1.5B answered
"Yes" (stops 59 and 60). The bike note checked the cassette ("slightly worn but okay"), fitted a new chain, and says
"Cassette replacement is probably due next spring anyway". A sentence naming the act asked about as one to come
(due, next spring, planned, "time to", will, soon, …) says it was not done, as an open task does
(rag/answer/undone_notes.py): it denies a "Yes" and bears out a "No".

What is asked is the question's main clause, before a clause of its circumstances ("when my commuter bike skipped
gears", "after the move"), which the notes need not repeat: its words (two at least, the act and its thing) must all
be in one clause of the sentence, each as written or in another form of it ("replacement" of "replace"), beside
such a word. When any clause names them all without one, it may say the act was done, and none is taken to deny it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import Passage
from rag.answer.excerpts import is_form_of, question_stems, sentences_of
from rag.answer.rival_figures import Rival

# A question asking whether something was done: "Did I replace …?", "Have I renewed …?" (not "Do I …?": a habit).
_ASKS_DONE = re.compile(r"^\W*(?:did|have|has|had|habe|hat|hast)\b", re.IGNORECASE)
# Where a question's circumstances start: "… when my bike skipped gears", "… after the move", "… wenn …".
_CIRCUMSTANCE = re.compile(
    r"\b(?:when|while|after|before|because|since|during|once|as soon as|wenn|als|nachdem|bevor|weil|während)\b",
    re.IGNORECASE,
)
# Words saying an act is still to come: "due", "next spring", "planned", "time to", "will", "soon", "fällig".
_TO_COME = re.compile(
    r"\b(?:due|next\s+(?:week|month|year|time|spring|summer|autumn|fall|winter|season)|planned|plan(?:s|ning)?\s+to"
    r"|time\s+to|will|going\s+to|soon|later|eventually|someday|some\s+day|yet\s+to|still\s+to|to\s+do|todo"
    r"|nächste[nrs]?|geplant|demnächst|später|bald|fällig|noch\s+zu)\b",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[,;]\s+")
MIN_ASKED = 2  # words of the main clause: the act and what it was done to


def planned_not_done(passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the sentences naming the act `question` asks whether was done as one still to come ([] for none)."""
    asked = question.strip().rsplit("\n", 1)[-1]
    if not _ASKS_DONE.search(asked):
        return []
    wanted = question_stems(_CIRCUMSTANCE.split(asked, maxsplit=1)[0])
    if len(wanted) < MIN_ASKED:
        return []
    planned = []
    for passage in passages:
        for sentence in sentences_of(passage.text):
            # A clause at a time: "it's time to replace, above 0.75 % the cassette starts wearing too" is the
            # chain's replacement, and the cassette's wear.
            naming = [clause for clause in _CLAUSE_END.split(sentence) if _names_all(wanted, question_stems(clause))]
            if not naming:
                continue
            if not all(_TO_COME.search(clause) for clause in naming):
                return []  # it may say the act was done
            planned.append(Rival(figure="still to come", sentence=sentence.strip(), source=passage.source))
    return planned


def _names_all(wanted: frozenset[str], words: frozenset[str]) -> bool:
    """Return True when each of `wanted` is among `words`, as written or in another form ("replacement")."""
    return all(term in words or any(is_form_of(term, word) for word in words) for term in wanted)
