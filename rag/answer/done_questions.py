"""Questions asking which tasks were done in a period, or lately ("Which tasks did I finish this week?").

Asked "Which tasks did I finish this week?" on obsidian-tasks-demo, the service listed all 82 done tasks of the vault,
those of 2021 first: the list of a place's tasks read the state asked and no period. "What tasks did I complete in
2023?" and "What have I ticked off recently?" went to the 0.5B, which refused with a task done in 2023 quoted under
"Closest in your notes:". When a task was done is written on it (`✅ 2023-04-17`, `[completion:: …]`, a task note's
`completedDate`), so the list is code's (agent/tools/done_tasks.py); this module only reads the question: that it
asks for tasks done, and over which days.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from rag.answer.days_named import period_named
from rag.answer.task_lists import asks_of_whole_vault, list_ask

# Done without naming tasks: "What did I get done this week?", "What have I accomplished lately?", "What did I
# tick off yesterday?". Only with a period or "lately" named; "finished" needs tasks named ("What did I finish
# reading?" asks about books).
_GOT_DONE = re.compile(
    r"^\W*(?:(?:and|so|ok(?:ay)?)[,\s]+)?(?:what|which\s+things)\s+(?:have|did|had)\s+(?:i|we)\s+(?:\w+\s+)??"
    r"(?:get\s+done|got(?:ten)?\s+done|completed?|accomplish(?:ed)?|ticked\s+off|tick\s+off|checked\s+off|check\s+off)\b",
    re.IGNORECASE,
)
_RECENTLY = re.compile(
    r"\b(?:recently|lately|of\s+late|latest|last\s+few\s+days|these\s+days|kürzlich|zuletzt|neulich|in\s+letzter\s+zeit)\b",
    re.IGNORECASE,
)
# A period as a question writes it, set aside before asking whether a place or topic is named besides it: "in 2023",
# "on 2023-04-17", "in March", "during the last week", "since Monday".
_PERIOD_PHRASE = re.compile(
    r"\b(?:in|on|during|over|since|from|within|for|im|am|seit)\s+(?:the\s+)?(?:(?:last|past|previous|this|current)\b"
    r"|\d[\d./-]*|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\b"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class DoneAsk:
    """Tasks done from `first` to `last` (both None: the latest done, as asked "lately").

    `names_tasks`: the question asks for tasks in so many words ("Which tasks did I finish …"); one that does not
    ("What did I get done yesterday?") may be answered by a day's note as well, so finding no task is no answer.
    """

    first: date | None
    last: date | None
    names_tasks: bool
    of_whole_vault: bool = True  # False: a place or topic is named beside the period ("… in ACME this week")
    priorities: tuple[str, ...] = ()  # only these ("Which high priority tasks did I finish?"); none: any


def done_ask(question: str, today: date) -> DoneAsk | None:
    """Return the tasks done `question` asks for, or None when it asks for none (or names no period nor "lately").

    "Which tasks are done?" names no period: the list of the vault's tasks gives it (agent/tools/task_lists.py).
    """
    asked = list_ask(question)
    names_tasks = asked is not None and asked.state == "done" and not asked.due_only
    if not names_tasks and not _GOT_DONE.match(question):
        return None
    days = period_named(question, today)
    if days is None and not _RECENTLY.search(question):
        return None
    first, last = days if days is not None else (None, None)
    # A place or topic beside the period ("… in ACME this week"): the agent finds the note or folder, if one is named.
    of_whole_vault = asks_of_whole_vault(_PERIOD_PHRASE.sub(" ", _RECENTLY.sub(" ", question)))
    priorities = asked.priorities if asked is not None else ()
    return DoneAsk(first, last, names_tasks=names_tasks, of_whole_vault=of_whole_vault, priorities=priorities)
