"""The one note a request asks about as a whole, found by its title, alias or link ("Summarize the ACME note").

A search ranks sections by their words, and "Summarize the Important Project note" shares a word or two with any
section; in a conversation the 0.5B answered it from the note it had named the turn before. The name is read by
rag/answer/note_requests.py and found here as Obsidian finds a link's target: a title, alias or path the vault has
exactly once ("the" may be the title's own), or the start of one title only (agent/tools/note_names.py). The note's
own passages are then what is read (`note_passages`), the relevance floor does not judge the request (the note is
there, whatever its words), and an answer must draw on them (agent/opening_check.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.tools.note_names import note_by_name
from agent.tools.reader import VaultReader
from agent.tools.vault_tasks import templates_folder_or_none
from core.domain import SearchHit
from rag.answer.note_requests import names_asked
from rag.follow_up import Query
from rag.retrieve import Retriever


@dataclass(frozen=True, slots=True)
class NamedNote:
    """The note a request asks about as a whole: its vault path and its link ("[[ACME]]")."""

    path: str
    anchor: str


class NamedNotes:
    """Find the note a request about one note as a whole names."""

    def __init__(self, reader: VaultReader) -> None:
        self._reader = reader

    def named(self, question: str) -> NamedNote | None:
        """Return the note `question` asks about as a whole, or None (no such request, or no one note of that name).

        The vault is read only for a question worded as such a request. A note of the templates folder is named by
        none: "Summarize the Daily note" is not about the daily template.
        """
        names = names_asked(question)
        if not names:
            return None
        snapshot = self._reader.snapshot()
        templates = templates_folder_or_none(self._reader, snapshot)
        for name in names:  # "ACME project", then "ACME"
            if (path := note_by_name(snapshot, name, templates)) is not None:
                return NamedNote(path, snapshot.anchor(path))
        return None


def note_passages(retriever: Retriever, query: Query, note: NamedNote, *, k: int) -> list[SearchHit]:
    """Return the passages of `note` the question's words find best (up to `k`; none for a note not indexed).

    In the note's order: "What's in my Garden Plan 2027 note?" ranks its sections by words that say nothing of
    them, and found its "Linked" list first; read in order, the note's opening comes first, as its reader meets it.
    """
    hits = retriever.search_for(query, k=k, passages=True, among=(note.path,), only_among=True)
    return sorted(hits, key=lambda hit: hit.chunk.index)
