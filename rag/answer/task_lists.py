"""Questions asking for the tasks of one note or folder ("What tasks are in my Important Project note?").

Which tasks a note holds is no judgment: asked for those of "Important Project", the 0.5B listed a task of another
note the search found first, four times over, and asked which of them were done, it listed open ones among them. Such
a question is answered from the note's checkboxes by code (agent/tools/task_lists.py); this module only reads what
the question asks for: a list of tasks (not one task), which of them (open, done, all), of which priorities, and
whether it follows the question before ("Which of them are done?", "And in ACME?"). Where the tasks are, the note
or folder the question names, is found against the vault by the agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rag.answer.due_questions import DONE_ASKED, FOLLOW_UP, OF_THOSE, priorities_asked

# A question asking for a list of tasks: "What tasks …", "Which open tasks …", "What are my high-priority to-dos …",
# "List/Show the tasks …", "How many tasks …", "Are there any tasks …". "How do I group tasks in the Grouping note?"
# asks no list, nor "What's the battery task in …" (one task): the model answers those from the passages.
# "Tasks" naming the plugin or a thing of it ("Which Tasks version …", "What does the Tasks plugin do …?") is no list.
_TASKS = (
    r"(?:tasks|to-?dos|checkboxes|check-?list\s+items|aufgaben)"
    r"(?!\s+(?:plugin|version|release|query|queries|block|blocks|format|api|settings?|filters?|commands?|syntax|emoji"
    r"|docs?|documentation|code|script|css|theme|snippets?|search|view|layout)\b)"
)
_FEW_WORDS = r"(?:[\w-]+\s+){0,3}?"
_OPENING = r"^\W*(?:(?:please|so|ok(?:ay)?|and|also|now)[,\s]+)*(?:(?:can|could|would|will)\s+you\s+)?"
_TASK_LIST = re.compile(
    rf"{_OPENING}(?:(?:what|which)\s+(?:(?:are|were|is)\s+)?(?:(?:the|my|our|all\s+the|all)\s+)?{_FEW_WORDS}{_TASKS}"
    rf"|(?:list|show|give|tell|display|name)\s+(?:me\s+|us\s+)?(?:(?:all|every|each)\s+)?(?:(?:the|my|our)\s+)?"
    rf"{_FEW_WORDS}{_TASKS}"
    rf"|how\s+many\s+{_FEW_WORDS}(?:tasks?|to-?dos?|checkbox(?:es)?|aufgaben?)"
    rf"|(?:are|is)\s+there\s+(?:(?:any|still|more)\s+)*{_FEW_WORDS}(?:tasks?|to-?dos?)"
    rf"|(?:welche|wie\s+viele|zeig\w*(?:\s+mir)?(?:\s+die|\s+alle|\s+meine)?)\s+{_FEW_WORDS}aufgaben?)\b",
    re.IGNORECASE,
)
# What a thing does with tasks, not which tasks there are: "How many tasks does the stress test script create by
# default?" ("How many tasks does ACME have?" still asks for a list).
_WHAT_IT_DOES = re.compile(
    r"\b(?:tasks?|to-?dos?)\s+(?:does|do|did|will|would|can|should)\s+(?!(?:i|we|you)\b)(?:[\w.-]+\s+){1,4}?"
    r"(?:create|generate|make|produce|add|show|display|render|return|use|support|need|import|export)\b",
    re.IGNORECASE,
)
# What makes a list question one for the passages: a topic to filter by ("Which tasks in ACME are about trash?"), or a
# second question beside it ("…, and how does the styling example search for them?").
_FOR_THE_PASSAGES = re.compile(
    r"\b(?:about|regarding|concerning|related\s+to|mention(?:s|ing)?|über|zum\s+thema)\b"
    r"|[,;]\s*(?:and\s+)?(?:how|what|why|where|when|which|who|does|do|is|are|can)\b|\?.*\?",
    re.IGNORECASE,
)
# The open ones: "open", "unfinished", "not done yet", "left", "still to do", "offen". Read before the done ones,
# as "not done" holds "done".
_OPEN_ASKED = re.compile(
    r"\b(?:open|unfinished|incomplete|uncompleted|unchecked|unticked|undone|remaining|outstanding|pending|left"
    r"|still\s+to\s+do|not\s+(?:yet\s+)?(?:done|finished|completed|ticked|checked)|offen\w*|unerledigt\w*)\b",
    re.IGNORECASE,
)

# In progress: the Tasks plugin's "[/]" (TaskNotes' "in-progress" status). "What tasks am I working on right now?"
# asks for them too ("on" names no place there).
_WORKING_ON = (
    r"(?:am\s+i|are\s+we)\s+(?:currently\s+|still\s+)?working\s+on"
    r"(?:\s+(?:right\s+now|now|currently|at\s+the\s+moment))?"
)
_IN_PROGRESS_ASKED = re.compile(
    rf"\b(?:in[-\s]progress|started|in\s+arbeit|begonnen\w*|{_WORKING_ON})\b", re.IGNORECASE
)
_WORKING_ON_WORDS = re.compile(rf"\b{_WORKING_ON}\b", re.IGNORECASE)
# A state said with a place's word, no place: "Which tasks are in progress?" ("in" names none), "… in Arbeit".
_STATE_PHRASES = re.compile(rf"\b(?:in[-\s]progress|in\s+arbeit|{_WORKING_ON})\b", re.IGNORECASE)
# Due: "Which tasks in ACME are due?", with no day named (a day named is a question by date: due_questions).
_DUE_ASKED = re.compile(r"\b(?:due|deadlines?|fällig\w*)\b", re.IGNORECASE)

# A place or topic named: "in ACME", "about the garden", "for the trip". A question with none asks of the whole vault
# ("What are my open tasks?"); "of my tasks" names none.
_PLACE_OR_TOPIC = re.compile(
    r"\[\[|\b(?:in|from|of|about|for|on|under|inside|within|regarding|with|im|aus|von|über|zu|zum|zur)\b",
    re.IGNORECASE,
)
_OF_TASKS = re.compile(r"\bof\s+(?:(?:all\s+)?(?:my|the|our|these|those)\s+)?(?:tasks|to-?dos)\b", re.IGNORECASE)

# Words of a question of its own after "And …": "And what did I cook …?", "And how was the race?".
_OWN_QUESTION = re.compile(
    r"\b(?:what|which|who|whom|whose|where|when|why|how|did|do|does|was|were|is|are|can|could|should|would|will)\b",
    re.IGNORECASE,
)

State = Literal["all", "open", "done", "in progress"]


@dataclass(frozen=True, slots=True)
class ListAsk:
    """What a question asks of the tasks of a place: which of them (`state`), of which `priorities` (none: any).

    `follows`: it asks again of the list before ("Which of them are done?", "And in ACME?"), so a place it does not
    name is the one asked of before, and a state it does not name the one asked for before.
    """

    state: State
    priorities: tuple[str, ...] = ()
    follows: bool = False
    names_state: bool = True
    names_tasks: bool = True  # False: a follow-up ("And in ACME?") that asks for tasks only by following a list
    due_only: bool = False  # only the open tasks that have a due date ("Which tasks in ACME are due?")


def list_ask(question: str, *, after_list: bool = False) -> ListAsk | None:
    """Return what `question` asks of a list of tasks, or None when it asks for none.

    `after_list`: the question before asked for a list of tasks, so "Which of them are done?" and "And in ACME?"
    (a follow-up naming no tasks) ask for one too.
    """
    if _FOR_THE_PASSAGES.search(question) or _WHAT_IT_DOES.search(question):
        return None
    names_tasks = bool(_TASK_LIST.search(question) or OF_THOSE.search(question))
    opener = FOLLOW_UP.match(question)
    # "And the done ones?", "And in ACME?": a follow-up naming no tasks asks of the list only if it asks nothing else;
    # "And what did I cook on 2021-11-23?" asks a question of its own ("did I" is no state asked of the list).
    asks_own = opener is not None and not names_tasks and bool(_OWN_QUESTION.search(question[opener.end() :]))
    follows = after_list and bool(OF_THOSE.search(question) or (opener and not asks_own))
    if not follows and not _TASK_LIST.search(question):
        return None
    due_only = bool(_DUE_ASKED.search(question))
    state: State = (
        "in progress"
        if _IN_PROGRESS_ASKED.search(question)
        else "open"
        if _OPEN_ASKED.search(question) or due_only
        else "done"
        if DONE_ASKED.search(question)
        else "all"
    )
    return ListAsk(
        state,
        priorities_asked(question),
        follows=follows,
        names_state=state != "all",
        names_tasks=names_tasks,
        due_only=due_only,
    )


def asks_of_whole_vault(question: str) -> bool:
    """Return True when a list of tasks is asked of no place or topic, so of the whole vault.

    "What are my open tasks?", "Which of my tasks are done?"; "What tasks do I have about the garden?": the search.
    """
    return not _PLACE_OR_TOPIC.search(_STATE_PHRASES.sub(" ", _OF_TASKS.sub(" ", question)))


def asks_what_worked_on(question: str) -> bool:
    """Return True for a question asking what is worked on now ("What tasks am I working on right now?")."""
    return _WORKING_ON_WORDS.search(question) is not None
