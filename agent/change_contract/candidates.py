"""What code finds in a change request before any model reads it: the notes it may mean, quoted values, days.

The model never writes a path: it picks a target from the candidates gathered here. A note named in the request
(by title, alias, path or [[link]]) is the strongest sign, so when one is named only named notes are candidates;
otherwise the retrieval hits for the request are, unless it names a day. The daily note of a day the request names
("today", "yesterday", an ISO date, or "daily note" for today) comes first, missing or not: a missing one is created
from its template when the change is approved. A request naming neither a note nor a day gets today's daily note
after the hits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import PurePosixPath

from agent.tools.daily import daily_note_path
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from core.errors import AppError

MAX_HIT_CANDIDATES = 5  # retrieval hits offered as targets when the request names no note
MAX_HEADINGS = 40  # per candidate: a note with hundreds of headings must not flood the prompt
MIN_NAME_CHARS = 3  # a shorter title ("AI") is taken for a note only inside [[ ]] or as a path
_LINK = re.compile(r"\[\[([^\]|#^]+)(?:[#^][^\]|]*)?(?:\|[^\]]*)?\]\]")
_PATH = re.compile(r"(?<![\w/])((?:[\w .-]+/)+[\w .-]+\.md)\b", re.IGNORECASE)
# Double quotes, curly quotes and guillemets delimit a value; single quotes are apostrophes too often.
_QUOTED = re.compile(r'"([^"\n]{1,500})"|“([^”\n]{1,500})”|„([^“”\n]{1,500})[“”]|«([^»\n]{1,500})»')
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
    r"|\s+(?:im|in\s+den)\s+ordner\b",
    re.IGNORECASE,
)
# "that note", "this one", "it": the note the conversation is about (German: "diese Notiz", "sie").
_REFERS_BACK = re.compile(
    r"\b(?:that|this|the\s+same|the\s+previous|the\s+last)\s+(?:note|page|file|one)\b|\b(?:it|its)\b"
    r"|\b(?:diese[rnms]?|der|die|selbe[rn]?)\s+(?:notiz|seite)\b",
    re.IGNORECASE,
)
_FOLDER_WORD = re.compile(r"\b(?:folder|ordner)\b", re.IGNORECASE)
_MAX_FOLDER_WORDS = 5  # words of a folder's name around "folder"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A note the change may target: its path, how the request named it, its headings, and its day if daily."""

    path: str
    label: str  # how it is shown to the model: the title, or "daily note 2026-12-03"
    headings: tuple[str, ...] = ()
    day: date | None = None  # set for a day's daily note (it may not exist yet)
    exists: bool = True


@dataclass(frozen=True, slots=True)
class Findings:
    """Everything code found in the request: candidate targets, quoted values, folders it names."""

    candidates: tuple[Candidate, ...]
    quoted: tuple[str, ...]
    folders: tuple[str, ...]
    is_named: bool  # True when the candidates are notes the request names (not retrieval hits)
    names: tuple[str, ...] = ()  # the names the request gives a new (or renamed) note, see `given_names`
    place: str = ""  # the one folder a request names for a new note ("" for none, or several): `requested_folder`

    @property
    def paths(self) -> tuple[str, ...]:
        """Return the candidates' paths in order."""
        return tuple(candidate.path for candidate in self.candidates)

    def candidate(self, path: str) -> Candidate | None:
        """Return the candidate at `path`, or None."""
        return next((c for c in self.candidates if c.path == path), None)


def quoted_values(request: str) -> tuple[str, ...]:
    """Return the quoted strings of `request` in order, stripped, without repeats."""
    found = [
        next(group for group in match.groups() if group is not None).strip() for match in _QUOTED.finditer(request)
    ]
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
        if (quoted := _QUOTED.match(rest)) is not None:
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


def named_notes(snapshot: VaultSnapshot, request: str) -> list[str]:
    """Return the notes `request` names by [[link]], path, title or alias, longest name first, without overlaps."""
    found: list[str] = []
    for target in (*_LINK.findall(request), *_PATH.findall(request)):
        path = _resolve(snapshot, target)
        if path is not None and path not in found:
            found.append(path)
    text = request.casefold()
    names: list[tuple[str, str]] = []  # (casefolded name, path)
    for path, note in snapshot.notes.items():
        for name in (note.title, *note.aliases):
            key = name.strip().casefold()
            if len(key) >= MIN_NAME_CHARS and key in text:
                names.append((key, path))
    taken: list[tuple[int, int]] = []
    for key, path in sorted(names, key=lambda item: -len(item[0])):
        for match in re.finditer(rf"(?<!\w){re.escape(key)}(?!\w)", text):
            span = match.span()
            if any(start < span[1] and span[0] < end for start, end in taken if (start, end) != span):
                continue  # "Sourdough" inside "Sourdough Starter", already taken by the longer name
            taken.append(span)
            if path not in found:
                found.append(path)
            break
    return found


def named_days(request: str, today: date) -> list[date]:
    """Return the days `request` names (today, yesterday, tomorrow, ISO dates); today for a bare "daily note"."""
    days: list[date] = []
    words = re.findall(r"\w+", request.casefold())
    for word in words:
        if word in _DAY_WORDS:
            days.append(today + timedelta(days=_DAY_WORDS[word]))
    for text in _ISO_DAY.findall(request):
        try:
            days.append(date.fromisoformat(text))
        except ValueError:
            continue
    if not days and _DAILY_WORDS.search(request):
        days.append(today)
    return list(dict.fromkeys(days))


def requested_folder(snapshot: VaultSnapshot, request: str, names: Sequence[str]) -> str:
    """Return the folder `request` puts a new note in ("called X in the How To folder"), or "".

    Code decides it, as it decides targets: the one vault folder named right before or after the word "folder"
    ("in the How To folder", "in the folder Inbox", "im Ordner Garten"), outside the note's name and quoted text. A
    folder's name anywhere else ("a note about my projects") is no placement. None, or several: "", and the note
    goes where new notes go.
    """
    text = _without_values(request, (*names, *quoted_values(request)))
    by_name: dict[str, set[str]] = {}
    for folder in _folders(snapshot):
        for key in (folder, folder.rsplit("/", 1)[-1]):
            by_name.setdefault(key.casefold(), set()).add(folder)
    found: set[str] = set()
    for match in _FOLDER_WORD.finditer(text):
        before = text[: match.start()].split()[-_MAX_FOLDER_WORDS:]
        after = text[match.end() :].split()[:_MAX_FOLDER_WORDS]
        phrases = [before[i:] for i in range(len(before))] + [after[:i] for i in range(len(after), 0, -1)]
        for words in phrases:
            named = by_name.get(" ".join(words).strip("\"'“”„«»").casefold(), set())
            if len(named) == 1:  # one folder of that name (two "Garden" folders: neither)
                found |= named
                break
    return found.pop() if len(found) == 1 else ""


def _folders(snapshot: VaultSnapshot) -> set[str]:
    """Return the vault's folders that hold a file (the root aside)."""
    return {str(PurePosixPath(path).parent) for path in (*snapshot.notes, *snapshot.other_files)} - {"."}


def _without_values(request: str, values: Sequence[str]) -> str:
    """Return `request` with each of `values` (a name, a quoted text) taken out as whole words."""
    for value in values:
        request = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", request)
    return request


def named_folders(snapshot: VaultSnapshot, request: str) -> tuple[str, ...]:
    """Return the vault's folders whose name the request holds (for moves), deepest first."""
    text = request.casefold()
    named = [folder for folder in _folders(snapshot) if _holds_name(text, folder.rsplit("/", 1)[-1])]
    return tuple(sorted(named, key=lambda folder: (-folder.count("/"), folder)))


def named_headings(request: str, targets: Sequence[Candidate]) -> list[str]:
    """Return the targets' headings the request names, or [] for none: the section it asks to change.

    A note whose first heading is its title ("# Pacific-Auckland") has that heading named with the note: the 0.5B
    chose it over the "Run the test" the request named. It counts only when no other heading is named.
    """
    headings = dict.fromkeys(h for c in targets for h in c.headings if len(h) >= MIN_NAME_CHARS)
    keys = {heading.casefold() for heading in headings}
    # Quoted text to add ('Append "see notes"') names no heading; a quoted heading ('the "Run the test" section') does.
    texts = [value for value in quoted_values(request) if value.casefold() not in keys]
    text = _without_values(request, texts).casefold()
    named = [heading for heading in headings if _holds_name(text, heading)]
    titles = {c.label.casefold() for c in targets} | {PurePosixPath(c.path).stem.casefold() for c in targets}
    return [heading for heading in named if heading.casefold() not in titles] or named


def _holds_name(text: str, name: str) -> bool:
    """Return True when casefolded `text` holds `name` as whole words."""
    return re.search(rf"(?<!\w){re.escape(name.casefold())}(?!\w)", text) is not None


def gather(reader: VaultReader, request: str, *, hits: Sequence[str], cited: Sequence[str] = ()) -> Findings:
    """Return the candidates for `request`: named notes (else the retrieval `hits`), then named days' daily notes.

    A request referring back ("tag that note", "add it to this one") and naming no note has the notes the previous
    answer cited (`cited`, link targets) as its candidates: the hits for "add the tag favorite" found a note with a
    "Favorites" heading, and the 1.5B picked it.
    """
    snapshot = reader.snapshot()
    named = named_notes(snapshot, request)
    days = named_days(request, reader.today())
    if not named and not days and cited and _REFERS_BACK.search(request):  # "add it to today's note": the day's
        resolved = (_resolve(snapshot, ref) for ref in cited)
        named = list(dict.fromkeys(path for path in resolved if path is not None))[:MAX_HIT_CANDIDATES]
    names = given_names(request)
    # A request naming a day ("today's daily note") means that day's note: retrieval hits for its words (an old
    # daily note, the daily template) offered beside it were what the 0.5B picked, in two runs of three.
    hits = [] if days else [path for path in dict.fromkeys(hits) if path in snapshot.notes][:MAX_HIT_CANDIDATES]
    paths = named or hits
    candidates = [_note_candidate(snapshot, path) for path in paths]
    # A request naming neither a note nor a day may still mean today's note ("add a task to buy milk"): offered last.
    fallback_day = [] if named or days else [reader.today()]
    for day in reversed(days):  # each goes first: the first named ends first
        daily = _daily_candidate(reader, snapshot, day)
        candidates = [daily, *(c for c in candidates if c.path != daily.path)]
    for day in fallback_day:
        daily = _daily_candidate(reader, snapshot, day)
        candidates = [*(c for c in candidates if c.path != daily.path), daily]
    return Findings(
        candidates=tuple(candidates),
        quoted=quoted_values(request),
        folders=named_folders(snapshot, request),
        is_named=bool(named),
        names=names,
        place=requested_folder(snapshot, request, names),
    )


def _daily_candidate(reader: VaultReader, snapshot: VaultSnapshot, day: date) -> Candidate:
    path = daily_note_path(reader, snapshot, day)
    headings = _note_candidate(snapshot, path).headings if path in snapshot.notes else ()
    return Candidate(path, f"daily note {day.isoformat()}", headings, day, exists=path in snapshot.notes)


def _note_candidate(snapshot: VaultSnapshot, path: str) -> Candidate:
    note = snapshot.notes[path]
    headings = tuple(dict.fromkeys(heading.text for heading in note.headings))[:MAX_HEADINGS]
    return Candidate(path, note.title, headings)


def _resolve(snapshot: VaultSnapshot, ref: str) -> str | None:
    try:
        return snapshot.find_note(ref)
    except AppError:  # not a note's name (or several notes'): not a named note
        return None
