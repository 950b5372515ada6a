"""A note whose `status:` says what a question asks was done is not done: "Did I file the tax return?".

A task note (the TaskNotes plugin's, or any note keeping a `status:` property) states whether it is done in that row,
which joins its passages when a question asks yes or no (rag/answer/property_records.py). Asked "Did I renew my
passport?" over the "Renew passport" note (`status: open`), the 1.5B answered "Yes / The passport runs out before the
Lisbon trip." Code reads the row: when the question asks whether something was done ("Did I …?", "Have I …?",
"… done?"), names the note by its title (all of the question's words but one at most are the title's), and the
status is not a finished one, the row denies a "Yes" (rag/answer/yes_no.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import Passage
from rag.answer.citations import note_title
from rag.answer.excerpts import question_stems
from rag.answer.rival_figures import Rival

# Statuses saying a thing is finished, as task and project templates write them (the TaskNotes default is "done").
FINISHED = frozenset({"done", "complete", "completed", "finished", "closed", "resolved", "decided", "shipped"})
_STATUS_ROW = re.compile(r"^status:[ \t]*(?P<value>[^\n]+?)[ \t]*$", re.MULTILINE | re.IGNORECASE)
# A question asking whether something was done: "Did I file …?", "Have I renewed …?", "Is the slide deck done?".
_ASKS_DONE = re.compile(r"^\s*(?:did|have|has|had)\b|\b(?:done|finished|completed?)\b", re.IGNORECASE)


def undone_notes_asked(passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the `status:` rows of `passages` saying the note a question asks about was not done ([] for none).

    `question`: the yes-or-no question alone, or after the questions it follows (its last line is read).
    """
    asked = question.strip().rsplit("\n", 1)[-1]
    wanted = question_stems(asked)
    if not wanted or not _ASKS_DONE.search(asked):
        return []
    rows = []
    for passage in passages:
        title = question_stems(note_title(passage.source))
        if len(wanted - title) > 1 or not wanted & title:
            continue
        for row in _STATUS_ROW.finditer(passage.text):
            value = row["value"].strip().strip("'\"")
            if value.casefold() not in FINISHED and not question_stems(value) & wanted:
                rows.append(Rival(figure=f"status: {value}", sentence=row[0].strip(), source=passage.source))
    return rows
