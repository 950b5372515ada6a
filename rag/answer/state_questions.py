"""Questions asking how something stands now: "How is my knee doing?", "What's the latest on the migration?".

What stands now is what the latest notes say, and which note is the latest is a date, not a judgment. Asked "How is
my knee doing?" over sample_vault, the 0.5B answered with the diagnosis of September ("Patellofemoral pain
syndrome."), not the pain of 1 out of 10 its prompt also held from a daily note of November; with that note put first
and told to answer by the latest dated note, it still did, in three runs of four, or made up "my knee stands at 32 cm".
So such a question's subject is read here, and its dated mentions are listed by code, latest first
(agent/tools/latest_mentions.py). Only the subject is read: "How is my knee doing?" is about "my knee".
"""

from __future__ import annotations

import re

from rag.answer.attribution import word_terms
from rag.answer.notes_questions import asks_when_last_written

_PARTICIPLE = (
    r"(?:\w+ed|done|made|set|kept|run|built|written|taken|held|shown|grown|known|laid|paid|spent|put|split|cut|sold"
    r"|bought|found|given|hung|spread|left|meant)\b"
)
_NOW_WORD = r"(?:now|lately|these|so|at|right|recently)\b"
_NOW = r"(?:\s+(?:now|lately|these\s+days|so\s+far|at\s+the\s+moment|right\s+now|recently))?"
_STATE = re.compile(
    r"^\W*(?:(?:so|and|ok(?:ay)?|hey)[,\s]+)*(?:"
    # "How is my knee doing?", "How's the migration going?", "How are the tomatoes coming along?"
    rf"how(?:'s|\s+is|\s+are)\s+(?P<going>.+?)\s+(?:doing|going|coming\s+along|progressing|getting\s+on){_NOW}"
    # "How's my knee?", "How is my garden now?": only with "my", "How is the weather?" is no question of the notes;
    # up to three words, none a participle ("How are my home server backups done?" asks how they are made)
    rf"|how(?:'s|\s+is|\s+are)\s+(?P<mine>(?:my|our)(?:\s+(?!{_PARTICIPLE}|{_NOW_WORD})[\w'-]+){{1,3}}){_NOW}"
    # "What's the latest on the migration?", "What is the status of my knee?"
    r"|what(?:'s|\s+is)\s+the\s+(?:latest|news|(?:current\s+)?(?:state|status))\s+(?:on|of|with|about)\s+(?P<latest>.+?)"
    # "Where am I with the half marathon training?", "Where do we stand on the migration?"
    rf"|where\s+(?:am\s+i|are\s+we|do\s+i\s+stand|do\s+we\s+stand)\s+(?:with|on)\s+(?P<where>.+?){_NOW}"
    r")\s*[?.!]*\s*$",
    re.IGNORECASE,
)
MAX_QUESTION_CHARS = 200  # a question of how something stands is short
_SECOND_QUESTION = re.compile(r"[,;:]|\b(?:and|or)\s+(?:what|how|why|when|where|who|which|did|do|does|is|are)\b", re.I)
_LEADING = re.compile(r"^(?:(?:my|our|the|this|that|your)\s+)+", re.IGNORECASE)
# Subjects too vague to look up: "How are things going?", "How is everything?", "How are you doing?".
_VAGUE = frozenset({"thing", "everyth", "stuff", "all", "life", "i", "you", "we", "it", "they"})


def state_subject(question: str) -> str | None:
    """Return what `question` asks the state of now, as written ("knee", "half marathon training"), or None.

    None too for a subject with no word to look up, or a vague one ("How are you doing?", "How are things going?").
    """
    found = _STATE.match(_short(question))
    if found is None:
        return None
    subject = _LEADING.sub("", next(value for value in found.groupdict().values() if value)).strip(" \t\"'“”")
    return subject if _is_subject(subject) else None


def _short(question: str) -> str:
    """Return `question` with its spaces collapsed, or "" when it is too long to be a short question of a subject.

    The patterns here read a subject between words with `.+?`; over a pasted page, or runs of spaces, they would
    try every way to split it ("How is" and 2,000 spaces took 62 s).
    """
    text = " ".join(question.split())
    return text if len(text) <= MAX_QUESTION_CHARS else ""


def _is_subject(subject: str) -> bool:
    """Return True for a subject to look up: a word that is no filler, no number, nothing vague, no second question.

    "What's the latest on my knee, and what did the doctor say?" asks two things; "the status of my order #123" names
    a number, which a line of the notes about orders need not hold.
    """
    terms = word_terms(subject)
    return (
        bool(terms)
        and not terms <= _VAGUE
        and not _SECOND_QUESTION.search(subject)
        and not any(character.isdigit() or character == "#" for character in subject)
    )


# When something last happened: "When did I last water the tomatoes?", "When was the last time I saw Katrin?", "When
# was my last physio session?". "When did I last write about X?" asks for the notes about X by when they changed
# (rag/answer/notes_questions.py).
_LAST_TIME = re.compile(
    r"^\W*(?:(?:so|and|ok(?:ay)?)[,\s]+)*(?:when\s+(?:did|have)\s+(?:i|we)\s+last\s+(?P<did>.+?)"
    r"|when\s+was\s+the\s+last\s+time\s+(?:i|we)\s+(?P<time>.+?)|when\s+was\s+(?:my|our)\s+last\s+(?P<mine>.+?))"
    r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# Verbs that say nothing of what happened, so that a line need not hold them: "see Katrin", "go to the physio".
_LIGHT_VERB = re.compile(
    r"^(?:see|saw|seen|do|did|done|go(?:ne)?\s+to|went\s+to|have|had|get|got|make|made|meet|met|talk(?:ed)?\s+(?:to|with)"
    r"|spoke\s+(?:to|with)|speak\s+(?:to|with)|call(?:ed)?|visit(?:ed)?)\s+",
    re.IGNORECASE,
)


def last_time_subject(question: str) -> str | None:
    """Return what `question` asks when it last happened, as written ("water the tomatoes", "Katrin"), or None.

    A verb that says nothing of what happened is left out ("When did I last see Katrin?": "Katrin").
    """
    found = _LAST_TIME.match(_short(question))
    if found is None or asks_when_last_written(question):
        return None
    subject = next(value for value in found.groupdict().values() if value)
    subject = _LEADING.sub("", _LIGHT_VERB.sub("", subject)).strip(" \t\"'“”")
    return subject if _is_subject(subject) else None


# A follow-up naming only another subject: "And the garden?", "What about Priya?", "And my tomatoes?".
_ANOTHER_SUBJECT = re.compile(
    r"^\W*(?:and|what\s+about|how\s+about)\s+(?P<subject>(?:(?:my|our|the)\s+)?[\w'-]+(?:\s+[\w'-]+){0,3})\s*[?.!]*\s*$",
    re.IGNORECASE,
)


# Words a follow-up's subject does not start with: a question of its own, or a place ("in ACME": the task lists').
_NO_SUBJECT_START = frozenset(
    {"what", "how", "why", "when", "where", "who", "which", "did", "do", "does", "is", "are", "was", "were", "can",
     "could", "should", "would", "will", "in", "on", "for", "of", "with", "at", "to", "from", "about", "then"}
)  # fmt: skip


def subject_after(question: str, before: str) -> tuple[str, bool] | None:
    """Return the subject a follow-up asks the same of as the question `before`, and whether it asks when it last was.

    "And the garden?" after "How is my knee doing?" asks how the garden is doing; after "When did I last water the
    tomatoes?", "And the beans?" asks when the beans last were (their mentions, the latest first). None when
    `before` asked neither, or `question` names more than another subject.
    """
    found = _ANOTHER_SUBJECT.match(_short(question))
    if found is None:
        return None
    asks_last = state_subject(before) is None
    if asks_last and last_time_subject(before) is None:
        return None
    subject = _LEADING.sub("", found["subject"]).strip()
    if subject.split()[0].casefold() in _NO_SUBJECT_START:  # "And what did she say?", "And in ACME?"
        return None
    return (subject, asks_last) if _is_subject(subject) else None
