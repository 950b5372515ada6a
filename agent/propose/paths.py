"""Which note a write tool means: an existing note by path, name, alias or [[link]]; where a new note goes."""

from __future__ import annotations

from agent.edits.scope import check_writable
from agent.propose.kit import ProposeContext
from agent.tools.snapshot import parse_note_ref
from core.errors import AppError, InvalidRequest, NotFound


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


def new_note_path(context: ProposeContext, ref: str) -> str:
    """Return the writable path for a new note: `ref` as given, or a bare name in the default folder for new notes.

    A name without a folder goes where Obsidian puts new notes (Settings > Files and links > Default location for
    new notes); `[[Name]]` is taken as the name.
    """
    target, _ = parse_note_ref(ref)
    if not target:
        raise InvalidRequest("no note given: pass a path such as 'Inbox/Idea.md' or a name")
    if "/" not in target:
        folder = context.reader.new_note_folder(context.snapshot())
        target = f"{folder}/{target}" if folder else target
    return check_writable(note_path(target), settings=context.settings)
