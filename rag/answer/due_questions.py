"""Questions about tasks by date ("Which tasks are due on 2021-11-22?", "What's overdue?", "Was ist heute fällig?").

A search finds notes by their words, not by the dates in their tasks: asked what was due on a day, the 0.5B read
the passages the search found and listed a task done the day before. Such a question is answered from the tasks
code picks by their dates (agent/tools/due_tasks.py); this module only reads what the question asks for: which days, and
whether by due date alone or by due date else scheduled date.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta

from rag.answer.days_named import days_named, listed_days

# A question about tasks: it names them, or asks what is due, or what is "on my plate" (the 0.5B, asked "What's on
# my plate this week?" over sample_vault, answered "The sourdough recipe.").
_TASKS = re.compile(
    r"\b(?:tasks?|to-?dos?|to\s+do|due|overdue|deadlines?|aufgaben?|fällig|überfällig|erledigen|erledigt\s+werden"
    r"|on\s+(?:my|our)\s+plates?)\b",
    re.IGNORECASE,
)
_DUE = re.compile(r"\b(?:due|overdue|deadlines?|fällig|überfällig)\b", re.IGNORECASE)
_OVERDUE = re.compile(r"\b(?:overdue|past\s+due|überfällig)\b", re.IGNORECASE)
_SCHEDULED = re.compile(r"\b(?:scheduled|geplant)\b", re.IGNORECASE)
# A request to add or change a task ("Schedule a task for today: …"), not a question about those there are.
_REQUEST = re.compile(
    r"^\W*(?:please\s+|bitte\s+)?(?:add|create|schedule|put|make|set|move|mark|tick|check|complete|remind\s+me\s+to"
    r"|erstelle|füge|plane|trage)\b",
    re.IGNORECASE,
)
# Tasks done, not to do: "Which tasks did I finish this week?" (the open ones would be the wrong list); "What needs
# to be done today?" and "Was muss heute erledigt werden?" ask what is to do.
DONE_ASKED = re.compile(
    r"\b(?:(?<!be\s)(?<!get\s)done|completed|finished|closed|ticked|checked\s+off|did\s+(?:i|we)"
    r"|erledigt(?!\s+werden)|abgeschlossen)\b",
    re.IGNORECASE,
)
# A question asking how or why ("How are urgency scores calculated for a task due today?", "How is the score worked out
# for an item with no deadline …?"): about the vault's text, not a list of its tasks ("How many …" still asks one).
EXPLAINING = re.compile(r"^\W*(?:how\s+(?!many\b|much\b)|why\b|wie\s+(?!viele\b)|warum\b)", re.IGNORECASE)
# A question asking which thing of another kind ("Which CSS snippet will colour tasks that are due today?"): the word
# after "which"/"what" is no task, no word describing one, and no verb ("What is due", "What do I have to do").
_WHICH_THING = re.compile(r"^\W*(?:which|what)(?P<word>'s|\s+[\w'-]+)", re.IGNORECASE)
_ASKS_VERB = re.compile(
    r"^(?:'s|s|is|are|am|was|were|do|does|did|have|has|had|should|must|can|could|will|would|shall|needs?|remains?"
    r"|else|of|about|ist|sind|muss|habe|steht|stehen|errands?|chores?|items?|things?|stuff|jobs?)$",
    re.IGNORECASE,
)
# How a follow-up asking about other days opens: "And on 2021-11-23?", "What about tomorrow?", "Und morgen?".
FOLLOW_UP = re.compile(r"^\W*(?:and|what\s+about|how\s+about|und|und\s+was\s+ist\s+mit)\b", re.IGNORECASE)
# A follow-up narrowing the list before it: "Which of them are high priority?", "Welche davon haben hohe Priorität?".
OF_THOSE = re.compile(
    r"\b(?:(?:any|which|all|each)\s+of\s+(?:them|those|these)|which\s+ones|th(?:ose|ese)\s+ones|davon)\b",
    re.IGNORECASE,
)
# A priority the Tasks plugin gives (🔺 ⏫ 🔼 🔽 ⏬; none is "normal"), as a question names it, in either order
# ("high priority", "high-priority", "priority high", "hohe Priorität"). "High" takes the highest in too, as
# "low" the lowest: asked for what is important, a task marked more so belongs in the list.
_LEVELS = {
    "highest": ("highest",),
    "höchst": ("highest",),
    "high": ("highest", "high"),
    "hoh": ("highest", "high"),
    "medium": ("medium",),
    "mittler": ("medium",),
    "normal": ("normal",),
    "low": ("low", "lowest"),
    "niedrig": ("low", "lowest"),
    "lowest": ("lowest",),
    "niedrigst": ("lowest",),
}  # German by stem, which the adjective's endings follow: "hohe", "hoher", "hohen"
_LEVEL = rf"(?:{'|'.join(sorted(_LEVELS, key=len, reverse=True))})"
_ENDING = r"(?:e[nmrs]?)?"
# "What important tasks", "Which high priority tasks": a word describing the tasks asked for.
_LEVEL_WORD = re.compile(rf"(?:{_LEVEL}[\w-]*|important|urgent|open|unfinished|pending|remaining|outstanding)", re.I)
_PRIORITY_ASKED = re.compile(
    rf"\b(?:(?P<before>{_LEVEL}){_ENDING}[-\s]+(?:priority|prio|priorität)"
    rf"|(?:priority|priorität)\s+(?:is\s+|of\s+)?(?P<after>{_LEVEL}){_ENDING})\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class DueAsk:
    """The days a question asks for tasks of (`first` to `last`, inclusive), and by which of their dates.

    `by_due_only`: the question asks what is due (a task's due date); otherwise its due date, else its scheduled
    date, says when it is to be done ("What do I have to do tomorrow?"). `by_scheduled`: by scheduled date only.
    """

    first: date
    last: date
    by_due_only: bool = False
    by_scheduled: bool = False
    priorities: tuple[str, ...] = ()  # the priorities asked for, highest first ("normal": none given); (): any
    # Further days listed beside the first ("What is due on Monday and Friday?"), sorted, none of them in the span.
    listed: tuple[date, ...] = ()

    def holds(self, day: date) -> bool:
        """Return True when `day` is one of the days asked for."""
        return self.first <= day <= self.last or day in self.listed

    @property
    def until(self) -> date:
        """Return the last day asked for: a task after it is the next one."""
        return max((self.last, *self.listed))

    def takes(self, priority: str | None) -> bool:
        """Return True when a task of `priority` (None: none given, "normal") is of those asked for."""
        return takes_priority(self.priorities, priority)

    def describe_priorities(self) -> str:
        """Return the priorities asked for as a reply says them: "of high or highest priority" ("": any)."""
        if not self.priorities:
            return ""
        named_first = sorted(self.priorities, key=lambda level: level in ("highest", "lowest"))  # "high or highest"
        return f"of {' or '.join(named_first)} priority"

    def describe(self) -> str:
        """Return the days asked for as a reply says them: "on 2021-11-22", "from … to …", "before … (overdue)"."""
        if self.first == date.min:
            return f"before {(self.last + timedelta(days=1)).isoformat()} (overdue)"
        if self.listed:  # "on 2026-12-07 and 2026-12-11", "from 2026-12-07 to 2026-12-09 and on 2026-12-14"
            if self.first == self.last:
                days = [day.isoformat() for day in sorted({self.first, *self.listed})]
                return f"on {', '.join(days[:-1])} and {days[-1]}"
            days = [day.isoformat() for day in self.listed]
            span = f"from {self.first.isoformat()} to {self.last.isoformat()}"
            return f"{span} and on {', '.join(days[:-1])}{' and ' if len(days) > 1 else ''}{days[-1]}"
        if self.first == self.last:
            return f"on {self.first.isoformat()}"
        return f"from {self.first.isoformat()} to {self.last.isoformat()}"


def due_ask(question: str, today: date, *, earlier: Sequence[str] = ()) -> DueAsk | None:
    """Return the days and dates `question` asks tasks for, or None when it does not ask for tasks by date.

    `earlier`: the user's questions before it, oldest first. A follow-up asking only about other days ("And on
    2021-11-23?", "What about tomorrow?", "Und morgen?") after one about tasks by date (itself such a follow-up, or
    not) asks the same of those days; one naming a priority ("Which of them are high priority?", "And the
    low-priority ones tomorrow?") asks the same of the tasks of that priority.
    """
    priorities = priorities_asked(question)
    # "Which of them …" narrows the list before only by a priority: "Which of them mention Priya?" is no such ask.
    follows = earlier and (FOLLOW_UP.match(question) or (priorities and OF_THOSE.search(question)))
    before = due_ask(earlier[-1], today, earlier=earlier[:-1]) if follows else None
    if before is not None and not DONE_ASKED.search(question):
        days = _days_asked(question, today)
        if priorities or (days is not None and FOLLOW_UP.match(question) and not _TASKS.search(question)):
            first, last = days or (before.first, before.last)
            listed = _listed_asked(question, today) if days else before.listed
            return replace(before, first=first, last=last, priorities=priorities or before.priorities, listed=listed)
    if not _TASKS.search(question) or _REQUEST.match(question) or DONE_ASKED.search(question):
        return None
    if EXPLAINING.match(question) or _asks_other_thing(question):
        return None
    days = _days_asked(question, today)
    if days is None:
        return None
    first, last = days
    asks_due = bool(_DUE.search(question))
    scheduled = bool(_SCHEDULED.search(question)) and not asks_due
    return DueAsk(
        first,
        last,
        by_due_only=asks_due,
        by_scheduled=scheduled,
        priorities=priorities_asked(question),
        listed=_listed_asked(question, today),
    )


def _asks_other_thing(question: str) -> bool:
    """Return True for "Which CSS snippet …", "What theme …": a thing of another kind than tasks is asked for."""
    found = _WHICH_THING.match(question.replace("’", "'"))
    if found is None:
        return False
    word = found["word"].strip()
    return not (_ASKS_VERB.match(word) or _TASKS.fullmatch(word) or _LEVEL_WORD.fullmatch(word))


def _listed_asked(question: str, today: date) -> tuple[date, ...]:
    """Return the days `question` lists beside the first it names, sorted (none for what is overdue)."""
    return () if _OVERDUE.search(question) else tuple(sorted(listed_days(question, today)))


def takes_priority(priorities: tuple[str, ...], priority: str | None) -> bool:
    """Return True when a task of `priority` (None: none given, "normal") is of `priorities` (none asked: any)."""
    return not priorities or (priority or "normal") in priorities


def priorities_asked(question: str) -> tuple[str, ...]:
    """Return the priorities `question` asks tasks of, highest first (() when it names none)."""
    found: set[str] = set()
    for match in _PRIORITY_ASKED.finditer(question):
        found.update(_LEVELS[(match["before"] or match["after"]).casefold()])
    order = ("highest", "high", "medium", "normal", "low", "lowest")
    return tuple(level for level in order if level in found)


def _days_asked(question: str, today: date) -> tuple[date, date] | None:
    """Return the days `question` asks tasks of: before today for what is overdue, else the days it names."""
    if _OVERDUE.search(question):
        return date.min, today - timedelta(days=1)
    return days_named(question, today)
