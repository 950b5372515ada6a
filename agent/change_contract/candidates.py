"""What code finds in a change request before any model reads it: the notes it may mean, quoted values, days.

The model never writes a path: it picks a target from the candidates gathered here. A note named in the request
(by title, alias, path or [[link]]) is the strongest sign, so when one is named only named notes are candidates;
otherwise the retrieval hits for the request are, unless it names a day. The daily note of a day the request names
("today", "yesterday", an ISO date, or "daily note" for today) comes first, missing or not: a missing one is created
from its template when the change is approved, unless a note of that date's name exists elsewhere. A request naming
neither a note nor a day gets today's daily note after the hits, or before them for a new task in a vault that keeps
daily notes. A request naming a note no note matches ("the Dune note") gets no candidates but `Findings.missing`: a
hit offered instead is what the 0.5B changed.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import partial
from pathlib import PurePosixPath
from typing import Literal

from agent.change_contract.request_words import (
    LINK,
    MOVING,
    PATH,
    QUOTED,
    blanked,
    given_names,
    leading_words,
    named_days,
    new_folder,
    new_task_words,
    note_phrases,
    quoted_values,
    template_phrase,
    written_days,
)
from agent.tools.daily import daily_note_path
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from agent.tools.templates import find_template, list_templates
from core.errors import AppError

MAX_HIT_CANDIDATES = 5  # retrieval hits offered as targets when the request names no note
MAX_HEADINGS = 40  # per candidate: a note with hundreds of headings must not flood the prompt
MAX_TASKS = 60  # per candidate, for the same reason
_CLOSED_TASK = frozenset({"x", "X", "-"})  # done or cancelled: what toggling reopens (edits.text.body)
MIN_NAME_CHARS = 3  # a shorter title ("AI") is taken for a note only inside [[ ]] or as a path
# "that note", "this one", "it": the note the conversation is about (German: "diese Notiz", "sie").
_REFERS_BACK = re.compile(
    r"\b(?:that|this|the\s+same|the\s+previous|the\s+last)\s+(?:note|page|file|one)\b|\b(?:it|its)\b"
    r"|\b(?:diese[rnms]?|der|die|selbe[rn]?)\s+(?:notiz|seite)\b",
    re.IGNORECASE,
)
_FOLDER_WORD = re.compile(r"\b(?:folder|ordner)\b", re.IGNORECASE)
_MAX_FOLDER_WORDS = 5  # words of a folder's name around "folder"
_MAX_CLOSEST = 3  # titles offered as "the closest" to a name no note has


@dataclass(frozen=True, slots=True)
class Candidate:
    """A note the change may target: its path, how the request named it, its headings, and its day if daily."""

    path: str
    label: str  # how it is shown to the model: the title, or "daily note 2026-12-03"
    headings: tuple[str, ...] = ()
    day: date | None = None  # set for a day's daily note (it may not exist yet)
    exists: bool = True
    tasks: tuple[CandidateTask, ...] = ()  # its checkbox tasks, for completing or reopening one

    def task_texts(self, state: TaskState) -> list[str]:
        """Return the texts of the note's tasks in `state`, once each."""
        return list(dict.fromkeys(task.text for task in self.tasks if task.state == state))

    def task_line(self, text: str, state: TaskState) -> int | None:
        """Return the line of the note's first task with this text in `state` (None: no such task)."""
        return next((task.line for task in self.tasks if task.text == text and task.state == state), None)


TaskState = Literal["open", "done", "other"]


@dataclass(frozen=True, slots=True)
class CandidateTask:
    """One task of a candidate note, as the model may pick it: its text (inline fields too), state and line."""

    text: str
    state: TaskState  # "open" ("[ ]"), "done" (done or cancelled: "x", "X", "-"), or "other" ("/", "?", ...)
    line: int


def task_state(status: str) -> TaskState:
    """Return the state of a task's status character: a toggle completes only "open" and reopens only "done"."""
    return "open" if status == " " else "done" if status in _CLOSED_TASK else "other"


@dataclass(frozen=True, slots=True)
class Findings:
    """Everything code found in the request: candidate targets, quoted values, folders it names."""

    candidates: tuple[Candidate, ...]
    quoted: tuple[str, ...]
    folders: tuple[str, ...]
    is_named: bool  # True when the candidates are notes the request names (not retrieval hits)
    names: tuple[str, ...] = ()  # the names the request gives a new (or renamed) note, see `given_names`
    place: str = ""  # the one folder a request names for a new note ("" for none, or several): `requested_folder`
    template: str = ""  # the template a new note starts from, as the Templates folder names it ("" for none)
    missing: tuple[str, ...] = ()  # names the request gives notes that no note has ("the Dune note")
    closest: tuple[str, ...] = ()  # titles close to the missing names, to suggest

    @property
    def paths(self) -> tuple[str, ...]:
        """Return the candidates' paths in order."""
        return tuple(candidate.path for candidate in self.candidates)

    def candidate(self, path: str) -> Candidate | None:
        """Return the candidate at `path`, or None."""
        return next((c for c in self.candidates if c.path == path), None)

    def describe_missing(self) -> str:
        """Return 'no note called “Dune” was found (the closest: “Dunes”)', or "" when nothing named is missing."""
        if not self.missing:
            return ""
        called = " or ".join(f"“{name}”" for name in self.missing)
        closest = f" (the closest: {', '.join(f'“{title}”' for title in self.closest)})" if self.closest else ""
        return f"no note called {called} was found{closest}"


def named_notes(snapshot: VaultSnapshot, request: str) -> list[str]:
    """Return the notes `request` names by [[link]], path, title or alias, longest name first, without overlaps."""
    found: list[str] = []
    for target in (*LINK.findall(request), *PATH.findall(request)):
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


def requested_folder(snapshot: VaultSnapshot, request: str, names: Sequence[str]) -> str:
    """Return the folder `request` puts a new note in ("called X in the How To folder"), or "".

    Code decides it, as it decides targets: the one vault folder named right before or after the word "folder"
    ("in the How To folder", "in the folder Inbox", "im Ordner Garten"), outside the note's name and quoted text. A
    folder's name anywhere else ("a note about my projects") is no placement. None, or several: "", and the note
    goes where new notes go.
    """
    text = _without_values(request, (*names, *quoted_values(request)))
    by_name: dict[str, set[str]] = {}
    for folder in vault_folders(snapshot):
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


def vault_folders(snapshot: VaultSnapshot) -> set[str]:
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
    named = [folder for folder in vault_folders(snapshot) if _holds_name(text, folder.rsplit("/", 1)[-1])]
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


def move_destinations(snapshot: VaultSnapshot, request: str) -> list[re.Match[str]]:
    """Return where a move request names the folder it moves to ("to the Clippings folder", "into Daily").

    Those words name a folder, not a note to move: for "move 2023 Japan Trip to the Clippings folder" the 0.5B moved
    Categories/Clippings.md, and "to the Daily folder" made today's daily note the first candidate.
    """
    folders = vault_folders(snapshot)
    if not folders or not MOVING.search(request):
        return []
    names = sorted({name for folder in folders for name in (folder, folder.rsplit("/", 1)[-1])}, key=len, reverse=True)
    pattern = (
        r"(?P<pre>\b(?:to|into|onto|under|nach|in\s+(?:den|die|das))\s+(?:the\s+|my\s+)?(?:(?:folder|ordner)\s+)?"
        r"|\b(?:folder|ordner)\s+)?"
        rf"(?<!\w)(?P<name>{'|'.join(map(re.escape, names))})(?!\w)(?P<post>\s+(?:folder|ordner)\b)?"
    )
    found = re.finditer(pattern, request, re.IGNORECASE)
    return [match for match in found if match["pre"] or match["post"]]


def _named_targets(
    snapshot: VaultSnapshot, text: str, days: Sequence[date], cited: Sequence[str], *, is_new_task: bool
) -> tuple[list[str], list[str]]:
    """Return the notes `text` names and the names it gives notes that no note has (see `gather`)."""
    # A note named inside the text to add ('Append "Visited Fushimi Inari" to [[2023-09-12]]') is no target, nor one
    # a new task's words hold: "add a task to buy milk" names no note "Milk".
    texts = [match.span() for match in QUOTED.finditer(text)]
    if is_new_task and (task := _task_words(snapshot, text)) is not None:
        texts.append(task)
    outside = named_notes(snapshot, blanked(text, texts))
    if outside:
        return outside, []
    if phrases := note_phrases(text):
        linked = {name.strip() for name in (*LINK.findall(text), *PATH.findall(text))}
        return _resolved_phrases(snapshot, phrases, linked=linked)
    if days:
        return [], []
    if cited and _REFERS_BACK.search(text):
        resolved = (_resolve(snapshot, ref) for ref in cited)
        return list(dict.fromkeys(path for path in resolved if path is not None))[:MAX_HIT_CANDIDATES], []
    if is_new_task:  # 'Add a task "Water the garlic"' names no note: today's note, or the hits, are meant
        return [], []
    return named_notes(snapshot, text), []  # 'Append "Water the garlic"': the note in the text is all there is


def _task_words(snapshot: VaultSnapshot, text: str) -> tuple[int, int] | None:
    """Return where a new task's own words are in `text`, unless a note's name starts them ("a task to groceries")."""
    span = new_task_words(text)
    if span is None or any(_resolve(snapshot, words) for words in leading_words(text[span[0] : span[1]])):
        return None
    return span


def _resolved_phrases(
    snapshot: VaultSnapshot, phrases: Sequence[str], *, linked: set[str]
) -> tuple[list[str], list[str]]:
    """Return the notes the phrases name, by name or as words of a title ("the japan trip note"), and the rest.

    A [[link]] or path names its note exactly, as Obsidian opens it: [[Japan Trip]] is no link to "2023 Japan Trip".
    """
    found: list[str] = []
    missing: list[str] = []
    for phrase in phrases:
        path = _resolve(snapshot, phrase)
        paths = [path] if path is not None else [] if phrase in linked else _notes_holding(snapshot, phrase)
        found += paths
        if not paths:
            missing.append(phrase)
    return list(dict.fromkeys(found))[:MAX_HIT_CANDIDATES], missing


def _notes_holding(snapshot: VaultSnapshot, phrase: str) -> list[str]:
    """Return the notes whose title or an alias holds `phrase` as whole words, the shortest title first."""
    if len(phrase) < MIN_NAME_CHARS:
        return []
    found = [
        path
        for path, note in snapshot.notes.items()
        if any(_holds_name(name.casefold(), phrase) for name in (note.title, *note.aliases))
    ]
    return sorted(found, key=lambda path: len(snapshot.notes[path].title))[:MAX_HIT_CANDIDATES]


def _closest_titles(snapshot: VaultSnapshot, names: Sequence[str]) -> tuple[str, ...]:
    """Return the notes' titles closest to `names` (a typo, a plural), to suggest."""
    titles = {note.title.casefold(): note.title for note in snapshot.notes.values()}
    close = (difflib.get_close_matches(name.casefold(), titles, n=_MAX_CLOSEST) for name in names)
    return tuple(dict.fromkeys(titles[title] for found in close for title in found))[:_MAX_CLOSEST]


def _offered_hits(snapshot: VaultSnapshot, hits: Sequence[str], destinations: Sequence[re.Match[str]]) -> list[str]:
    """Return the retrieval hits that may be targets: notes, not those a move's destination words found."""
    away = {match["name"].casefold() for match in destinations}

    def is_destination(path: str) -> bool:  # the note named like the folder, or a note already in it
        folder = str(PurePosixPath(path).parent).casefold()
        return snapshot.notes[path].title.casefold() in away or bool({folder, folder.rsplit("/", 1)[-1]} & away)

    notes = [path for path in dict.fromkeys(hits) if path in snapshot.notes and not is_destination(path)]
    return notes[:MAX_HIT_CANDIDATES]


def gather(
    reader: VaultReader, request: str, *, hits: Sequence[str], cited: Sequence[str] = (), is_new_task: bool = False
) -> Findings:
    """Return the candidates for `request`: named notes (else the retrieval `hits`), then named days' daily notes.

    A request referring back ("tag that note", "add it to this one") and naming no note has the notes the previous
    answer cited (`cited`, link targets) as its candidates: the hits for "add the tag favorite" found a note with a
    "Favorites" heading, and the 1.5B picked it. A request naming a note that no note matches gets no hits either.
    `is_new_task`: the request adds a task; naming no note, it goes to today's daily note first (see `_today_first`).
    """
    snapshot = reader.snapshot()
    destinations = move_destinations(snapshot, request)
    text = blanked(request, [match.span() for match in destinations])
    days = named_days(text, reader.today())
    named, missing = _named_targets(snapshot, text, days, cited, is_new_task=is_new_task)
    # A request naming a day ("today's daily note") means that day's note: retrieval hits for its words (an old
    # daily note, the daily template) offered beside it were what the 0.5B picked, in two runs of three. A note
    # named but missing ("the Dune note") has no stand-in: the 0.5B tagged the daily note retrieval found instead.
    offered = [] if days or missing else _offered_hits(snapshot, hits, destinations)
    candidates = [_note_candidate(snapshot, path) for path in named or offered]
    written = written_days(text)
    for day in reversed(days):  # each goes first: the first named ends first
        daily = _daily_candidate(reader, snapshot, day, is_written=day in written)
        candidates = [daily, *(c for c in candidates if c.path != daily.path)]
    if not (named or days or missing):  # "add the tag x" may still mean today's note
        daily = _daily_candidate(reader, snapshot, reader.today(), is_written=False)
        others = [c for c in candidates if c.path != daily.path]
        candidates = [daily, *others] if is_new_task and _today_first(snapshot, daily) else [*others, daily]
    templates = vault_templates(reader, snapshot)
    names = given_names(request, is_template=partial(_is_template, templates))
    return Findings(
        candidates=tuple(candidates),
        quoted=quoted_values(request),
        folders=named_folders(snapshot, request) or tuple(filter(None, [new_folder(request)])),
        is_named=bool(named),
        names=names,
        place=requested_folder(snapshot, request, names),
        template=requested_template(templates, request),
        missing=tuple(missing) if not named else (),
        closest=_closest_titles(snapshot, missing) if not named else (),
    )


def _today_first(snapshot: VaultSnapshot, today: Candidate) -> bool:
    """Return True when a new task naming no note goes to today's daily note first: the vault keeps daily notes.

    Users expect "add a task to buy milk" in today's note, not in a note retrieval found for "milk". A vault keeps
    daily notes when the Daily notes plugin has settings, or today's note exists; otherwise the note would be a new
    file at the vault's root (Obsidian's default), which the hits come before.
    """
    return today.exists or (snapshot.root / ".obsidian" / "daily-notes.json").is_file()


def vault_templates(reader: VaultReader, snapshot: VaultSnapshot) -> dict[str, str]:
    """Return the vault's templates, name -> path ({} without a templates folder)."""
    try:
        return list_templates(snapshot, reader.templates_folder(snapshot))
    except AppError:  # no templates folder: no template to start from
        return {}


def template_named(templates: dict[str, str], words: str) -> str:
    """Return the name of the template `words` name ("Meeting" finds "Meeting Template" too), or ""."""
    for name in (words, f"{words} Template", f"{words} Vorlage"):
        try:
            path = find_template(templates, name)
        except AppError:
            continue
        return next(key for key, value in templates.items() if value == path)
    return ""


def requested_template(templates: dict[str, str], request: str) -> str:
    """Return the template the request names for a new note ("using the Movie Template"), as found, or "".

    Chosen by code, as the folder is. A template the folder does not hold is no template (the note is created
    without one rather than from a guess). `templates`: `vault_templates`.
    """
    phrase = template_phrase(request, is_template=partial(_is_template, templates))
    return next(filter(None, (template_named(templates, words) for words in leading_words(phrase))), "")


def _is_template(templates: dict[str, str], words: str) -> bool:
    return bool(template_named(templates, words))


def _daily_candidate(reader: VaultReader, snapshot: VaultSnapshot, day: date, *, is_written: bool) -> Candidate:
    path = daily_note_path(reader, snapshot, day)
    if is_written and path not in snapshot.notes:
        # The date written ("[[2023-09-12]]") names a note as Obsidian resolves a link, by name anywhere: kepano-
        # obsidian keeps Daily/2023-09-12.md without a daily-notes setting, and a second one was proposed at the root.
        path = _resolve(snapshot, PurePosixPath(path).stem) or path
    existing = _note_candidate(snapshot, path) if path in snapshot.notes else None
    headings, tasks = (existing.headings, existing.tasks) if existing is not None else ((), ())
    label = f"daily note {day.isoformat()}"
    return Candidate(path, label, headings, day, exists=existing is not None, tasks=tasks)


def _note_candidate(snapshot: VaultSnapshot, path: str) -> Candidate:
    note = snapshot.notes[path]
    headings = tuple(dict.fromkeys(heading.text for heading in note.headings))[:MAX_HEADINGS]
    tasks = tuple(CandidateTask(task.text, task_state(task.status), task.line) for task in note.tasks)
    return Candidate(path, note.title, headings, tasks=tasks[:MAX_TASKS])


def _resolve(snapshot: VaultSnapshot, ref: str) -> str | None:
    try:
        return snapshot.find_note(ref)
    except AppError:  # not a note's name (or several notes'): not a named note
        return None
