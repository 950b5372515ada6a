"""The notes of a kind a question asks for, listed by code.

"Which books do I have?", "What are my open projects?", "What books am I reading right now?".

Which notes are books is how the vault files them (a category link, a tag, a folder: `notes_of_kind`), and which of
them are open or in hand is what their status property and their checkboxes say; no passage holds that across the
vault (kepano-obsidian: the 0.5B answered "Which books do I have?" with "Kevin Kelly, Out of Control, Blade Runner";
sample_vault: "What books am I reading right now?" with the year's favourite, not the book marked in progress).
"""

from __future__ import annotations

from agent.tools.list_reply import MAX_LISTED, ListReply, links_listed
from agent.tools.property_lists import kind_members, property_numbers
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot, property_value
from agent.tools.vault_tasks import is_in_progress, status_words, templates_folder_or_none, vault_tasks
from rag.answer.secrets import redact_secrets
from rag.answer.vault_questions import VaultAsk

# Statuses that close a note's matter, as vaults write them ("done", "Abandoned", "completed", "cancelled" …).
_CLOSED = frozenset(
    {"done", "completed", "complete", "finished", "abandoned", "cancelled", "canceled", "archived", "closed",
     "dropped", "shelved", "rejected", "won't do", "wont do", "wontfix", "wont fix"}
)  # fmt: skip
# Statuses saying a note's matter is in hand now, besides the verb asked ("reading" for "What am I reading?").
_IN_HAND = frozenset({"in progress", "inprogress", "wip", "started", "ongoing", "active", "current", "doing", "now"})
_STATUS_NAMES = ("status", "state", "stage")
_RATING = "rating"  # how a note of a kind is liked: kepano-obsidian's, and the Bases and Book Search templates'


class KindLists:
    """Answer a question asking for the notes of a kind (all, the open ones, those in hand now) from the vault."""

    def __init__(self, reader: VaultReader, *, max_listed: int = MAX_LISTED) -> None:
        self._reader = reader
        self._max_listed = max_listed

    def reply_for(self, snapshot: VaultSnapshot, ask: VaultAsk) -> ListReply | None:
        """Return the notes of the kind `ask.of` names ("books"), or None when the vault files no note so.

        A note is of the kind as `notes_of_kind` reads it; the kind's own note ("Books") and the templates are none
        of them. `ask.value` "open": those with a status that is no closed one, each shown with it (what "open" covers
        differs between vaults: "paused", "backlog", "draft" are listed, to judge); "in progress": those in hand now.
        """
        templates = templates_folder_or_none(self._reader, snapshot)
        paths = sorted(
            kind_members(snapshot, ask.of, templates), key=lambda path: snapshot.notes[path].title.casefold()
        )
        if not paths:
            return None
        kind_said = f"filed as {ask.of.casefold()} (by a category, a tag or a folder)"
        if ask.value == "open":
            return self._open(snapshot, paths, kind_said)
        if ask.value == "in progress":
            return self._in_hand(snapshot, paths, kind_said, ask.name)
        if ask.value == "liked":
            return self._liked(snapshot, paths, kind_said)
        count = f"{len(paths)} {'note' if len(paths) == 1 else 'notes'}"
        return links_listed(f"{count} {kind_said}:", [(snapshot.anchor(path), "") for path in paths], self._max_listed)

    def _open(self, snapshot: VaultSnapshot, paths: list[str], kind_said: str) -> ListReply:
        """Return the notes of `paths` whose status is no closed one, each with its status; say how many have none."""
        statuses = {path: _status(snapshot, path) for path in paths}
        listed = [(path, status) for path, status in statuses.items() if status and status_words(status) not in _CLOSED]
        without = sum(1 for status in statuses.values() if not status)
        after = f"; {without} {'has' if without == 1 else 'have'} no status" if without else ""
        count = f"{len(listed)} {'note' if len(listed) == 1 else 'notes'}"
        header = f"{count} {kind_said} whose status is not a closed one (done, abandoned …){after}:"
        lines = [(snapshot.anchor(path), f" ({status})") for path, status in listed]
        return links_listed(header, lines, self._max_listed)

    def _liked(self, snapshot: VaultSnapshot, paths: list[str], kind_said: str) -> ListReply | None:
        """Return the notes of `paths` by their rating, the highest first, and how many have none.

        None when none is rated: what is liked may be said in words ("I loved Catan"), for the search.
        """
        rated = sorted(
            ((rating, path) for path in paths if (rating := _rating(snapshot, path)) is not None),
            key=lambda item: (-item[0], snapshot.notes[item[1]].title.casefold()),
        )
        if not rated:
            return None
        unrated = len(paths) - len(rated)
        after = f"; {unrated} {'has' if unrated == 1 else 'have'} none" if unrated else ""
        count = f"{len(rated)} {'note' if len(rated) == 1 else 'notes'}"
        header = f"{count} {kind_said} with a rating, the highest first{after}:"
        lines = [(snapshot.anchor(path), f" (rating {rating:g})") for rating, path in rated]
        return links_listed(header, lines, self._max_listed)

    def _in_hand(self, snapshot: VaultSnapshot, paths: list[str], kind_said: str, verb: str) -> ListReply | None:
        """Return what of `paths` is in hand now: the notes whose status says so, and their tasks in progress.

        A status "reading" (the verb asked), "in progress", "active" …; a task marked "[/]", as a reading list keeps
        the book on hand.

        None when nothing is marked so: the vault may say it in words ("Started Dune today."), for the search.
        """
        in_hand = _IN_HAND | {verb}
        lines = [
            (snapshot.anchor(path), f" ({status})")
            for path in paths
            if (status := _status(snapshot, path)) and status_words(status) in in_hand
        ]
        kind_paths = set(paths)
        for path, tasks in vault_tasks(self._reader, snapshot):
            if path in kind_paths:
                for task in tasks:
                    if is_in_progress(task):  # "- [/] The Dispossessed — on page 120"
                        text = redact_secrets(task.text) if self._reader.redacts_secrets else task.text
                        anchor = snapshot.anchor(path, snapshot.heading_path_at(path, task.line))
                        lines.append((anchor, f": [/] {text}"))
        if not lines:
            return None
        header = f"In hand now among the notes {kind_said}: a status saying so, or a task marked in progress ([/]):"
        return links_listed(header, lines, self._max_listed)


def _rating(snapshot: VaultSnapshot, path: str) -> float | None:
    """Return a note's `rating` as a number, as "Which books did I rate highest?" reads it; None for none."""
    present, value = property_value(snapshot.notes[path], _RATING)
    numbers = property_numbers(value) if present else []
    return max(numbers) if numbers else None


def _status(snapshot: VaultSnapshot, path: str) -> str:
    """Return a note's status as written (its `status`, `state` or `stage` property), "" for none."""
    for name in _STATUS_NAMES:
        present, value = property_value(snapshot.notes[path], name)
        if present and isinstance(value, str | int | float) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return ""
