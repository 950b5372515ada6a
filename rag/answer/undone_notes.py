"""A note whose `status:` says what a question asks was done is not done: "Did I file the tax return?".

A task note (the TaskNotes plugin's, or any note keeping a `status:` property) states whether it is done in that row,
which joins its passages when a question asks yes or no (rag/answer/property_records.py). Asked "Did I renew my
passport?" over the "Renew passport" note (`status: open`), the 1.5B answered "Yes / The passport runs out before the
Lisbon trip." Code reads the row: when the question asks whether something was done ("Did I …?", "Have I …?",
"… done?"), names the note by its title (all of the question's words but one at most are the title's), and the
status is not a finished one, the row denies a "Yes" (rag/answer/yes_no.py).

An open task says the same of what it names: asked "Did I sell the spare Pi case?", "Did I write the compose file for
the production profile?", "Did I get the new passport photos taken?" and "Did I add the librarian's data volume to
the restic backup?" over sample_vault, the 1.5B answered "Yes" to each (stop 60), three times quoting the open task
itself ("[ ] Wipe the old SD card and sell the spare Pi case 📅 2026-11-30"). A task not done (to do, in progress or
cancelled: "- [-] Paint the shed — too cold, next spring") holding all of the question's
words but one at most (its note's title counting) denies a "Yes", and bears out a "No", unless a done task ("- [x] …")
holds as many: then the notes say both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.domain import Task
from rag.answer.attribution import Passage
from rag.answer.citations import note_title
from rag.answer.excerpts import ELLIPSIS, question_stems
from rag.answer.rival_figures import Rival
from rag.notes.inline import find_task

# Statuses saying a thing is finished, as task and project templates write them (the TaskNotes default is "done").
FINISHED = frozenset({"done", "complete", "completed", "finished", "closed", "resolved", "decided", "shipped"})
_STATUS_ROW = re.compile(r"^status:[ \t]*(?P<value>[^\n]+?)[ \t]*$", re.MULTILINE | re.IGNORECASE)
# A question asking whether something was done: "Did I file …?", "Have I renewed …?", "Is the slide deck done?".
_ASKS_DONE = re.compile(r"^\s*(?:did|have|has|had)\b|\b(?:done|finished|completed?)\b", re.IGNORECASE)
# A task's status says whether it was done as the Tasks plugin reads it: "[x]" done (`Task.is_done`); "[ ]" to do,
# "[/]" in progress, "[-]" cancelled are not done; any other mark is a status of the user's own, which says nothing.
NOT_DONE = frozenset(" /-")
MISSING_WORDS = 1  # of the question's words a task (with its note's title) may lack and still be the thing asked
MIN_NAMED = 2  # of the question's words it holds, all if fewer


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


def open_tasks_asked(passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the tasks not done of `passages` naming what `question` asks whether it was done ([] for none).

    A task names it when it holds every word of the question but MISSING_WORDS, with its note's title, MIN_NAMED of
    them at least, one of them itself. None when a done task names it as well: the notes say it both
    ways.
    """
    asked = question.strip().rsplit("\n", 1)[-1]
    wanted = question_stems(asked)
    if not wanted or not _ASKS_DONE.search(asked):
        return []
    open_tasks, done = [], False
    for passage in passages:
        title = question_stems(note_title(passage.source))
        for task in _tasks_in(passage.text):
            words = question_stems(task.text)
            named = wanted & (words | title)
            if len(wanted - named) > MISSING_WORDS or not wanted & words or len(named) < min(len(wanted), MIN_NAMED):
                continue  # "sell" alone is not "Did I sell the old laptop?"
            if task.status in NOT_DONE:
                line = f"[{task.status}] {task.text}"  # as the other quotes show a task: from its checkbox
                open_tasks.append(Rival(figure=task.text, sentence=line, source=passage.source))
            done = done or task.is_done
    return [] if done else open_tasks


def _tasks_in(text: str) -> list[Task]:
    """Return the tasks of a passage's lines, a line cut to its part about the question read after the cut's "…"."""
    lines = (line.lstrip().removeprefix(ELLIPSIS) for line in text.splitlines())
    return [task for number, line in enumerate(lines, 1) if (task := find_task(line, number)) is not None]
