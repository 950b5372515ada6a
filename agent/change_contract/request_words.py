"""What a change request says in its own words, before any note is looked at: quoted values, names, days, notes.

Pure readings of the request's text; `agent.change_contract.candidates` matches them against the vault.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

LINK = re.compile(r"\[\[([^\]|#^]+)(?:[#^][^\]|]*)?(?:\|[^\]]*)?\]\]")
PATH = re.compile(r"(?<![\w/])((?:[\w .-]+/)+[\w .-]+\.md)\b", re.IGNORECASE)
# Double quotes, curly quotes and guillemets delimit a value; single quotes are apostrophes too often.
QUOTED = re.compile(r'"([^"\n]{1,500})"|“([^”\n]{1,500})”|„([^“”\n]{1,500})[“”]|«([^»\n]{1,500})»')
_ISO_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_DAY_WORDS = {"today": 0, "heute": 0, "yesterday": -1, "gestern": -1, "tomorrow": 1, "morgen": 1}
_DAILY_WORDS = re.compile(r"\b(daily|journal|diary|tagebuch|tagesnotiz)\b", re.IGNORECASE)
# A note name Obsidian allows and links do not break on (agent.propose.paths.FORBIDDEN_IN_NAMES).
NAME_PATTERN = r"^[^\n*\"\\/<>:|?#^\[\]]{1,100}$"
# The name a request gives a note: after "called"/"named"/"titled", or, renaming, after a "to"/"as" (each one:
# "rename Draft to Back to School" may mean either), quoted, a [[link]], or words up to what starts the note's text.
_NAMING = re.compile(r"\b(?:called|named|titled|entitled|namens|genannt|betitelt)\s+", re.IGNORECASE)
_RENAMING = re.compile(r"\b(?:rename|renaming)\b", re.IGNORECASE)
_RENAMED_TO = re.compile(r"\s(?:to|as)\s+", re.IGNORECASE)
# What ends an unquoted name: what starts the note's text ("… with the text", "containing"), its folder ("… in the
# How To folder"), a colon, a final period. Not a bare "with": "Meeting with Bob" is a name (offered cut as well,
# the 0.5B took the cut).
_NAME_END = re.compile(
    r"\s+(?:with\s+(?:the\s+)?(?:text|content|line|body)|containing|that\s+says|saying|and\s+(?:the\s+)?text"
    r"|mit\s+(?:dem\s+)?(?:text|inhalt))\b|[,;:\n\"“„«]|\.\s*$"
    r"|\s+(?:in|into|under|im)\s+(?:the\s+|my\s+|dem\s+)?(?:[\w-]+\s+){0,4}(?:folder|ordner)\b"
    r"|\s+(?:im|in\s+den)\s+ordner\b"
    # a template clause ends a name only where "template" ends the clause: "Notes from the Template Workshop" is a name
    r"|\s+(?:using|from|based\s+on|with)\s+(?:the\s+|my\s+|a\s+)?[^,.;:\n]{0,60}?\btemplate\b"
    r"(?=\s*(?:$|[,.;:!?]|\s(?:in|into|and|with|for)\b))"
    r"|\s+(?:using|from|based\s+on|with)\s+(?:the\s+|my\s+|a\s+)?template\b"
    r"|\s+(?:linking|that\s+links|which\s+links|listing)\b",
    re.IGNORECASE,
)
# "using the Movie Template", "from the template Meeting": the template a new note starts from.
_TEMPLATE_NAMED = re.compile(
    r"\b(?:using|with|from|based\s+on|mit|aus)\s+(?:the\s+|my\s+|a\s+|der\s+|dem\s+)?"
    r"(?:(?:template|vorlage)\s+[\"“]?(?P<after>[^,.;:\n\"“”]{1,60}?)[\"”]?(?=\s*(?:[,.;:\n]|$))"
    r"|(?P<before>[^,.;:\n\"“”]{1,60}?)\s+(?:template|vorlage)\b)",
    re.IGNORECASE,
)
# What gives a new note its text: quoted text, or a clause ("with the text ...", "saying ...", a colon).
_GIVES_TEXT = re.compile(
    r"\b(?:(?:with|and)\s+(?:the\s+)?(?:text|content|line|body)|containing|that\s+says|saying|listing"
    r"|mit\s+(?:dem\s+)?(?:text|inhalt))\b|:\s*\S",
    re.IGNORECASE,
)
MOVING = re.compile(r"\b(?:move|moving|archive|relocate|verschiebe|verschieben|archiviere)\b", re.IGNORECASE)
_CREATING = re.compile(r"\b(?:create|new|erstelle|neue)\b", re.IGNORECASE)
# Words that name a note ("the Dune note", "the note Dune", "add the tag x to Dune", 'the "Dune" note') but need not
# be a note's whole title. Between "the" and "note" no article or preposition ("the end of the note" names none);
# after "note" or ending the request, only capitalised words ("the note about bread" describes a note).
_STOP = r"(?!(?:the|a|an|my|your|to|of|in|on|at|for|with|from|into|about|and|or|this|that|it|its)\b)"
_WORD = r"[^\s\"“”„«»\[\]|#^.,;:!?]+"
_TITLE = r"[A-Z0-9][^\s\"“”„«»\[\]|#^,;:!?]*(?:\s+[A-Z0-9][^\s\"“”„«»\[\]|#^,;:!?]*){0,5}"
_OPEN, _CLOSE = '["“„«]', '["”“»]'
_NOTE_PHRASES = (
    re.compile(
        rf"\b(?:the|my|your)\s+({_STOP}{_WORD}(?:\s+{_STOP}{_WORD}){{0,5}}?)\s+(?:note|page|notiz)\b", re.IGNORECASE
    ),
    re.compile(rf"\b(?:the|my|your)\s+{_OPEN}([^\"“”„«»\n]+){_CLOSE}\s+(?:note|page|notiz)\b", re.IGNORECASE),
    re.compile(rf"\b[Nn]ote\s+(?:(?:called|named|titled)\s+)?{_OPEN}?({_TITLE}){_CLOSE}?"),
)
# A capitalised name ending the request: "add the tag favorite to Dune". Not after "set ... to" (a value), "a task to"
# (the task: "to Call Mom"), nor in a move (its folder).
_TO_NAME = re.compile(rf"\b(?:to|from|in|on|into)\s+{_OPEN}?({_TITLE}){_CLOSE}?\s*[.!?]?\s*$")
_NOT_TO_NAME = re.compile(r"\b(?:set|change|make|mark|switch|update|task|todo|to-do|reminder)\b", re.IGNORECASE)
_NOT_NAMES = {"same", "previous", "last", "next", "new", "other", "whole", "current", "first", "entire"}


def quoted_values(request: str) -> tuple[str, ...]:
    """Return the quoted strings of `request` in order, stripped, without repeats."""
    found = [next(group for group in match.groups() if group is not None).strip() for match in QUOTED.finditer(request)]
    return tuple(dict.fromkeys(value for value in found if value))


def given_names(request: str) -> tuple[str, ...]:
    """Return the names `request` gives a note it creates or renames ("called Plum Pruning", 'rename X to "Y"').

    A small model asked to copy a name adds words of its own ("Inbox Prune the plum tree ..."): the contract binds
    the name to these instead. A quoted name, or a [[link]], is taken whole; an unquoted one runs to what starts the
    note's text ("with the text", "containing", a colon) or its folder, trailing "note" and "page" aside. A rename
    offers the words after each "to" or "as" (the longest first). Only names Obsidian allows are offered.
    """
    starts = [match.end() for match in _NAMING.finditer(request)]
    if (renaming := _RENAMING.search(request)) is not None:
        starts += [match.end() for match in _RENAMED_TO.finditer(request, renaming.end())]
    names: list[str] = []
    for start in starts:
        rest = request[start:]
        if (quoted := QUOTED.match(rest)) is not None:
            names.append(next(group for group in quoted.groups() if group is not None))
        elif (link := re.match(r"\[\[([^\]|#^]+)", rest)) is not None:
            names.append(link.group(1))
        else:
            end = _NAME_END.search(rest)
            names.append(rest[: end.start() if end else len(rest)])
    cleaned = (_without_suffixes(name) for name in names)
    return tuple(dict.fromkeys(name for name in cleaned if re.match(NAME_PATTERN, name)))


def _without_suffixes(name: str) -> str:
    """Return `name` without a trailing " note"/" page" or ".md" ("called Plum Pruning note")."""
    name = re.sub(r"(?:\.md)?\s+(?:note|page|notiz)$", "", name.strip(), flags=re.IGNORECASE).strip()
    return name[:-3] if name.casefold().endswith(".md") else name


def named_days(request: str, today: date) -> list[date]:
    """Return the days `request` names (today, yesterday, tomorrow, ISO dates); today for a bare "daily note"."""
    words = re.findall(r"\w+", request.casefold())
    days = [today + timedelta(days=_DAY_WORDS[word]) for word in words if word in _DAY_WORDS]
    days += written_days(request)
    if not days and _DAILY_WORDS.search(request):
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


def note_phrases(request: str) -> list[str]:
    """Return the words `request` names a note by ("the Dune note", "to Dune", "[[Dune]]"), whether one exists or not.

    A description ("my note about bread", "add a task to buy milk") names none: its retrieval hits may be right.
    """
    found = [*LINK.findall(request), *PATH.findall(request)]
    found += [match[1] for pattern in _NOTE_PHRASES for match in pattern.finditer(request)]
    to_name = _TO_NAME.search(request)
    if to_name and not MOVING.search(request) and not _NOT_TO_NAME.search(request, 0, to_name.start()):
        found.append(to_name[1])
    # A name a create or rename gives ("called Dune", "rename X to Dune") is no note to find.
    is_naming = _CREATING.search(request) or _RENAMING.search(request)
    new_names = {name.casefold() for name in given_names(request)} if is_naming else set()
    phrases = (phrase.strip().rstrip(".").strip() for phrase in found)
    return list(dict.fromkeys(p for p in phrases if p and p.casefold() not in new_names and not _is_day_phrase(p)))


def _is_day_phrase(phrase: str) -> bool:
    """Return True for words that mean a daily note or the note talked about ("the daily note", "the same note")."""
    words = re.findall(r"\w+", phrase.casefold()) or [""]
    return bool(_DAILY_WORDS.search(phrase)) or words[0] in _NOT_NAMES or any(w in _DAY_WORDS for w in words)


def template_phrase(request: str) -> str:
    """Return the words naming the template a new note starts from ("Movie" in "using the Movie Template"), or ""."""
    found = _TEMPLATE_NAMED.search(request)
    if found is None:
        return ""
    return (found["after"] or found["before"] or "").strip()


def gives_text(request: str) -> bool:
    """Return True when the request gives a new note text: quoted, or after "with the text", "saying", a colon.

    Without it, the note is created empty (or from its template): the 0.5B asked for text wrote its own ("a movie by
    James Cameron ... released in 2012").
    """
    return bool(quoted_values(request)) or _GIVES_TEXT.search(request) is not None


# "into a new folder called Games", "to a new folder Games": a folder the move makes.
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
