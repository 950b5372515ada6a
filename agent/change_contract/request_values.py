"""The values a change request writes out in its own words: quoted text, days, a task's words, a folder, a field.

Pure readings of the request's text; `request_words` reads the names it gives and the notes it names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta

# Double quotes, curly quotes and guillemets delimit a value; single quotes are apostrophes too often.
QUOTED = re.compile(r'"([^"\n]{1,500})"|“([^”\n]{1,500})”|„([^“”\n]{1,500})[“”]|«([^»\n]{1,500})»')
_ISO_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
DAY_WORDS = {"today": 0, "heute": 0, "yesterday": -1, "gestern": -1, "tomorrow": 1, "morgen": 1}
DAILY_WORDS = re.compile(r"\b(daily|journal|diary|tagebuch|tagesnotiz)\b", re.IGNORECASE)


def quoted_values(request: str) -> tuple[str, ...]:
    """Return the quoted strings of `request` in order, stripped, without repeats."""
    found = [next(group for group in match.groups() if group is not None).strip() for match in QUOTED.finditer(request)]
    return tuple(dict.fromkeys(value for value in found if value))


def blanked(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """Return `text` with each span replaced by spaces (offsets stay as they were)."""
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def named_days(request: str, today: date) -> list[date]:
    """Return the days `request` names (today, yesterday, tomorrow, ISO dates); today for a bare "daily note"."""
    words = re.findall(r"\w+", request.casefold())
    days = [today + timedelta(days=DAY_WORDS[word]) for word in words if word in DAY_WORDS]
    days += written_days(request)
    if not days and DAILY_WORDS.search(request):
        days.append(today)
    return list(dict.fromkeys(days))


def written_days(request: str) -> list[date]:
    """Return the days `request` writes as ISO dates ("2023-09-12", "[[2023-09-12]]"), not impossible ones."""
    days = []
    for text in _ISO_DAY.findall(request):
        try:
            days.append(date.fromisoformat(text))
        except ValueError:
            continue
    return days


# "add a task to buy milk": the task's own words follow, unless a note does ("a task to the Groceries note").
_TASK_TO = re.compile(
    r"\b(?:(?:task|todo|to-do|reminder)\s+to|remind\s+(?:me|us)\s+to)\s+"
    r"(?!(?:the|my|your|this|that|a|an|today|tomorrow|yesterday)\b)(?=\w)",
    re.IGNORECASE,
)


def new_task_words(request: str) -> tuple[int, int] | None:
    """Return where a new task's own words are written unquoted ("buy milk" in "add a task to buy milk"), or None.

    After a colon ("Add a task to Groceries: buy milk"), else after "a task to". Whether the words after "to" name
    a note instead ("add a task to groceries") is for the vault to say.
    """
    unquoted = blanked(request, [match.span() for match in QUOTED.finditer(request)])
    found = re.search(r"(?<!\d):\s*(?=\S)", unquoted) or _TASK_TO.search(unquoted)
    return (found.end(), len(request)) if found is not None else None


# Where a new task goes, written after its words: "… to today's daily note", "… in my journal", "… to [[Groceries]]",
# "… to the Groceries note", "… to 2026-12-05", "… tomorrow" (that day's note is the target).
_TASK_PLACE = re.compile(
    r"\s+(?:(?:to|in|into|on|onto)\s+(?:(?:the|my|this|that|today|tomorrow|yesterday)(?:['’]s)?\s+)*"
    r"(?:\[\[[^\]\n]+\]\]|\d{4}-\d{2}-\d{2}|(?:today|tomorrow|yesterday)\b"
    r"|[^\n,;:!?]*?\b(?:note|notes|journal|daily|page|list|file|log)\b)|(?:for\s+)?(?:today|tomorrow|tonight))"
    r"\s*[.!]*\s*$",
    re.IGNORECASE,
)


def task_words(request: str, span: tuple[int, int]) -> str:
    """Return a new task's own words at `span` of `request` (see `new_task_words`), less where they go.

    Asked to "add a task to call the plumber to today's daily note", the 0.5B wrote the task "call plumber today's
    daily note"; the words are the request's, up to the place it names.
    """
    words = request[span[0] : span[1]].strip()
    return _TASK_PLACE.sub("", words).strip().rstrip(".!").strip()


_NEW_FOLDER = re.compile(
    r"\b(?:in|into|to)\s+(?:a\s+)?new\s+(?:folder|ordner)\s+(?:called\s+|named\s+|namens\s+)?"
    r"[\"“'„«]?(?P<name>[^\"”'“»,.;:!?\n/\\]{1,60}?)[\"”'“»]?\s*[.!]?\s*$"
    r"|\b(?:in|into|to)\s+(?:the\s+|my\s+)?[\"“'„«]?(?P<named>[^\"”'“»,.;:!?\n/\\]{1,60}?)[\"”'“»]?\s+(?:folder|ordner)"
    r"\s*[.!]?\s*$",
    re.IGNORECASE,
)
_ARCHIVES = re.compile(r"^\W*(?:please\s+|bitte\s+)?(?:archive|archiviere)\b", re.IGNORECASE)
ARCHIVE_FOLDER = "Archive"  # where "archive X" moves a note when the vault has no folder of that name yet


def new_folder(request: str) -> str:
    """Return the folder a move asks to make ("into a new folder called Games"; "Archive" for "archive X"), or "".

    Only used when the vault has no folder the request names: an existing one is always the destination.
    """
    if (found := _NEW_FOLDER.search(request)) is not None:
        return (found["name"] or found["named"]).strip()
    return ARCHIVE_FOLDER if _ARCHIVES.match(request) else ""


# "the alias 京都 to ...", "the tag favorite to ...", "le tag lecture à ...": the value right after its word.
_VALUE_AFTER = {
    "alias": re.compile(r"\b(?:alias|aliases|alias(?:name)?)\s+", re.IGNORECASE),
    "tag": re.compile(r"\b(?:tag|tags|étiquette)\s+", re.IGNORECASE),
}
_VALUE_END = re.compile(r"\s+(?:to|for|on|in|from|onto|zu|zur|zum|an|à|au|aux|dans|sur)\s|[,;:!?\n]|\.(?:\s|$)|$")
# Words that start no value: "an alias to Garlic: Knoblauch", "an alias of 京都" put the value elsewhere.
_NOT_A_VALUE_START = re.compile(
    r"(?:to|for|of|on|in|from|with|the|a|an|my|this|that|it|zu|für|von|à|de|du|la|le|pour)\b", re.IGNORECASE
)


def values_after(request: str, field: str) -> tuple[str, ...]:
    """Return the values the request gives right after the word for `field` ("the alias 京都 to X" -> ("京都",)).

    A small model asked to copy a value from the request copies the wrong words: the 0.5B gave the alias "Kyoto",
    the note's own name, for "Add the alias 京都 to the Kyoto note".
    """
    found: list[str] = []
    for match in _VALUE_AFTER[field].finditer(request):
        rest = request[match.end() :]
        if (quoted := QUOTED.match(rest)) is not None:
            found.append(next(group for group in quoted.groups() if group is not None))
        elif _NOT_A_VALUE_START.match(rest) is None and (end := _VALUE_END.search(rest)) is not None and end.start():
            found.append(rest[: end.start()].strip().lstrip("#"))
    return tuple(dict.fromkeys(value for value in found if value))
