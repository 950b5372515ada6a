"""Which note a write tool means (by path, name, alias or [[link]]), where a new note goes, which names it may have."""

from __future__ import annotations

import re
import unicodedata

from agent.propose.kit import ProposeContext
from agent.tools.snapshot import VaultSnapshot
from core.errors import AppError, InvalidRequest, NotFound
from edits.scope import check_writable

# Obsidian refuses * " \ / < > : | ? in file names, and links break on # ^ [ ] | and %% (help "Invalid characters").
FORBIDDEN_IN_NAMES = re.compile(r'[*"\\/<>:|?#^\[\]]|%%')
_TAG_LIKE = re.compile(r"(?:^|\s)#[^\s#]")
_MD_SUFFIX = re.compile(r"\.md$", re.IGNORECASE)


def note_path(path: str) -> str:
    """Return the path with `.md` added when its file name has no extension (models often leave it out)."""
    cleaned = path.strip()
    name = cleaned.rsplit("/", 1)[-1]
    return cleaned if "." in name or not name else cleaned + ".md"


def existing_note_path(context: ProposeContext, ref: str) -> str:
    """Return the writable path of the existing note `ref` names: an exact path first, else a name, alias or link.

    Raises:
        InvalidRequest: the path may not be written (private, hidden, outside the writable folders), or the name
            matches several notes.
        NotFound: no note has that path, name or alias (notes proposed this turn count by exact path).

    """
    exact = note_path(ref)
    try:
        path: str | None = check_writable(exact, settings=context.settings)
    except InvalidRequest:
        path = None  # maybe a name ("Garden") that the allowlist would refuse as a root path; resolve it first
    if path is not None and context.read(path) is not None:
        return path
    try:
        found = context.snapshot().find_note(ref)
    except AppError as exc:
        if path is None:  # neither a writable path nor a note's name: the scope rule is the useful answer
            check_writable(exact, settings=context.settings)
        if not isinstance(exc, NotFound):
            raise  # several notes match: the message lists them
        raise NotFound(f"{ref!r} does not exist ({exc}); use command create to make a new note") from exc
    found = check_writable(found, settings=context.settings)
    if context.read(found) is None:
        raise NotFound(f"{found!r} does not exist any more (a change proposed this turn removes or moves it)")
    return found


def check_note_name(name: str) -> str:
    """Return `name` (one file or folder name) unchanged, or refuse it if Obsidian would or links would break on it.

    Raises:
        InvalidRequest: the name is empty, or holds a character Obsidian refuses or links break on (FORBIDDEN_IN_NAMES).

    """
    stem = _MD_SUFFIX.sub("", name)
    if not stem.strip():
        raise InvalidRequest(f"the name {name!r} is empty; give a name such as 'Garden plan'")
    bad = FORBIDDEN_IN_NAMES.search(stem)
    if bad is None:
        return name
    hint = " (to tag the note, write the #tag in its content instead)" if _TAG_LIKE.search(stem) else ""
    cleaned = " ".join(FORBIDDEN_IN_NAMES.sub(" ", stem).split())
    suggestion = f", e.g. '{cleaned}'" if cleaned else ""
    raise InvalidRequest(
        f"'{stem}' contains '{bad[0]}': Obsidian does not allow * \" \\ / < > : | ? in file names, and links "
        f"break on # ^ [ ] | and %%; choose another name{suggestion}{hint}"
    )


def check_new_folders(snapshot: VaultSnapshot, path: str, *, kept_name: str = "") -> str:
    """Return `path` unchanged once its name, and any folder it would create, pass `check_note_name`.

    Folders that already exist are the user's own choice, so only the parts this path adds are checked; so is
    `kept_name`, the name a moved note already has ("C# basics.md" filed into another folder keeps its name).
    """
    folder, _, name = path.rpartition("/")
    added = [] if snapshot.folder_exists(folder) else folder.split("/")
    for part in added if name == kept_name else [*added, name]:
        check_note_name(part)
    return path


def new_note_path(context: ProposeContext, ref: str) -> str:
    """Return the writable path for a new note: `ref` as given, or a bare name in the default folder for new notes.

    A name without a folder goes where Obsidian puts new notes (Settings > Files and links > Default location for
    new notes); `[[Name]]` (or `[[Name|alias]]`) is taken as the name. A name Obsidian would refuse, or that links
    break on ("Ideas #garden", "What is RAG?"), is refused rather than cut short.
    """
    target = ref.strip()
    if target.startswith("[[") and target.endswith("]]"):
        target = target[2:-2].split("|", 1)[0].strip()
    if not target:
        raise InvalidRequest("no note given: pass a path such as 'Inbox/Idea.md' or a name")
    if "/" not in target:
        folder = context.reader.new_note_folder(context.snapshot())
        target = f"{folder}/{target}" if folder else target
    path = check_writable(note_path(target), settings=context.settings)
    snapshot = context.snapshot()
    path = check_writable(with_folders_as_on_disk(snapshot, path), settings=context.settings)
    refuse_unicode_twin(snapshot, path)
    return check_new_folders(snapshot, path)


def with_folders_as_on_disk(snapshot: VaultSnapshot, path: str) -> str:
    """Return `path` with its existing folders spelled as on disk when they differ only in Unicode form.

    A vault synced from macOS may hold "Tagebu\u0308cher/" (NFD) while "Tagebücher/" (NFC) is typed: writing
    the typed spelling would make a second folder that looks the same in Obsidian.
    """
    *folders, name = path.split("/")
    wanted = [unicodedata.normalize("NFC", part) for part in folders]
    best: list[str] = []
    for existing in (*snapshot.notes, *snapshot.other_files):
        parts = existing.split("/")[:-1]
        shared = 0
        while shared < min(len(parts), len(wanted)) and unicodedata.normalize("NFC", parts[shared]) == wanted[shared]:
            shared += 1
        if shared > len(best):
            best = parts[:shared]
    return "/".join([*best, *folders[len(best) :], name])


def as_on_disk(snapshot: VaultSnapshot, path: str) -> str:
    """Return the existing note `path` names in another Unicode form, else `path` with folders spelled as on disk.

    For paths computed from settings (the daily note's): the file or its folder may be stored in NFD.
    """
    key = unicodedata.normalize("NFC", path)
    for existing in snapshot.notes:
        if unicodedata.normalize("NFC", existing) == key:
            return existing
    return with_folders_as_on_disk(snapshot, path)


def refuse_unicode_twin(snapshot: VaultSnapshot, path: str) -> None:
    """Refuse a new note whose path differs from an existing note's only in Unicode form (NFC vs NFD).

    Both would show the same name in Obsidian and links could reach only one of them.

    Raises:
        InvalidRequest: such a note exists; the message gives its real path, to edit it instead.

    """
    key = unicodedata.normalize("NFC", path)
    for existing in snapshot.notes:
        if existing != path and unicodedata.normalize("NFC", existing) == key:
            raise InvalidRequest(
                f"a note with this name already exists: {existing!r}; edit that note instead of creating a new one"
            )
