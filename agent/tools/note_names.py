"""The note a name written in a request stands for: as Obsidian finds a link's target, or by the start of its title."""

from __future__ import annotations

from agent.tools.snapshot import VaultSnapshot

MIN_START_WORDS = 2  # a note named by the start of its title: at least this many of its words


def note_by_name(snapshot: VaultSnapshot, name: str, templates: str | None) -> str | None:
    """Return the path of the one note `name` stands for, or None (none, several, or one of the templates folder).

    A title, alias or path the vault has exactly once ("the" may be the title's own: "the Machine Stops note" is
    "The Machine Stops"), or the start of one title only (`_begun_by`).
    """
    path = snapshot.note_named(name) or snapshot.note_named(f"The {name}") or _begun_by(snapshot, name, templates)
    if path is None or (templates and snapshot.in_folder(path, templates)):
        return None
    return path


def _begun_by(snapshot: VaultSnapshot, name: str, templates: str | None) -> str | None:
    """Return the one note whose title begins with `name` as whole words, or None (none, several, or a short name).

    A long title is named by its start: "What is the Evergreen notes note about?" asks of "Evergreen notes turn ideas
    into objects that you can manipulate" (kepano-obsidian), which the 0.5B then refused with its lines quoted as
    closest. Two words at least: "Project" begins too many titles to name one.
    """
    wanted = name.casefold().split()
    if len(wanted) < MIN_START_WORDS:
        return None
    found = [
        path
        for path, note in snapshot.notes.items()
        if note.title.casefold().split()[: len(wanted)] == wanted
        and not (templates and snapshot.in_folder(path, templates))
    ]
    return found[0] if len(found) == 1 else None
