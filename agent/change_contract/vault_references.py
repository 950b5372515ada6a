"""What of the vault a change request names: notes (by title, alias, path or [[link]]), headings, folders.

Matched against a snapshot by code: a name counts as whole words, the longest first, and text to add (quoted, a new
task's words) names nothing.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from datetime import date
from pathlib import PurePosixPath

from agent.change_contract.findings import Candidate
from agent.change_contract.request_values import QUOTED, blanked, new_task_words, quoted_values, task_words
from agent.change_contract.request_words import LINK, MOVING, PATH, leading_words, note_phrases
from agent.tools.snapshot import VaultSnapshot
from core.errors import AppError

MAX_HIT_CANDIDATES = 5  # retrieval hits offered as targets when the request names no note
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


def named_notes(snapshot: VaultSnapshot, request: str) -> list[str]:
    """Return the notes `request` names by [[link]], path, title or alias, longest name first, without overlaps."""
    found: list[str] = []
    for target in (*LINK.findall(request), *PATH.findall(request)):
        path = resolve_note(snapshot, target)
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


def named_targets(
    snapshot: VaultSnapshot, text: str, days: Sequence[date], cited: Sequence[str], *, is_new_task: bool
) -> tuple[list[str], list[str]]:
    """Return the notes `text` names and the names it gives notes that no note has (see `candidates.gather`)."""
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
        resolved = (resolve_note(snapshot, ref) for ref in cited)
        return list(dict.fromkeys(path for path in resolved if path is not None))[:MAX_HIT_CANDIDATES], []
    if is_new_task:  # 'Add a task "Water the garlic"' names no note: today's note, or the hits, are meant
        return [], []
    return named_notes(snapshot, text), []  # 'Append "Water the garlic"': the note in the text is all there is


def new_task_text(snapshot: VaultSnapshot, request: str) -> str:
    """Return a new task's words as `request` writes them unquoted ("call the plumber"), or "" for none.

    For a request quoting no text: a quote is the text to add.
    """
    span = _task_words(snapshot, request)
    return "" if span is None else task_words(request, span)


def _task_words(snapshot: VaultSnapshot, text: str) -> tuple[int, int] | None:
    """Return where a new task's own words are in `text`, unless a note's name starts them ("a task to groceries")."""
    span = new_task_words(text)
    if span is None or any(resolve_note(snapshot, words) for words in leading_words(text[span[0] : span[1]])):
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
        path = resolve_note(snapshot, phrase)
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


def closest_titles(snapshot: VaultSnapshot, names: Sequence[str]) -> tuple[str, ...]:
    """Return the notes' titles closest to `names` (a typo, a plural), to suggest."""
    titles = {note.title.casefold(): note.title for note in snapshot.notes.values()}
    close = (difflib.get_close_matches(name.casefold(), titles, n=_MAX_CLOSEST) for name in names)
    return tuple(dict.fromkeys(titles[title] for found in close for title in found))[:_MAX_CLOSEST]


def resolve_note(snapshot: VaultSnapshot, ref: str) -> str | None:
    """Return the note `ref` names as a link would find it, or None (no note, or several, of that name)."""
    try:
        return snapshot.find_note(ref)
    except AppError:  # not a note's name (or several notes'): not a named note
        return None
