"""The notes a request asks for by topic, listed by code from the search ("List the notes I have about Hyprland.").

Which notes are about something is what the search finds, not a judgment for a model: asked "List the notes I have
about Hyprland." over vaultofknowledge, the 1.5B wrote out a `<note source=…>` element of its prompt, which the
answer check withheld. For such a request (rag/answer/notes_questions.py) the notes among the search's hits whose
passages are about the topic (rag/answer/topic_passages.passages_on: its rarest word and most of its words, in the
text or the link) are listed, best match first, each with the sections found; no model is asked. When no hit is
about the topic, the request goes on as any other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from agent.tools.list_reply import capped
from agent.tools.reader import VaultReader
from core.domain import SearchHit
from rag.answer.attribution import Passage
from rag.answer.citations import heading_in, is_note_title, note_of
from rag.answer.excerpts import shortened
from rag.answer.notes_questions import asks_when_last_written, notes_topic
from rag.answer.quote_words import normalised
from rag.answer.topic_passages import passages_on
from rag.follow_up import Query
from rag.retrieve import Retriever

LIST_HITS = 30  # hits searched for such a request: more than a question's passages, as a list is asked for
MAX_LISTED = 20  # notes listed at most
MAX_SECTIONS = 3  # of one note, named after it
MAX_HEADING_CHARS = 60


@dataclass(frozen=True, slots=True)
class NotesReply:
    """The reply listing the notes about a topic, and the links it holds."""

    text: str
    anchors: tuple[str, ...]


# When the notes' files at some vault paths last changed (a path not known is left out).
ChangedAt = Callable[[Sequence[str]], Mapping[str, datetime]]


def listed_notes(
    question: str, retriever: Retriever, query: Query, top_k: int, *, changed_at: ChangedAt | None = None
) -> NotesReply | None:
    """Return the list of the notes about the topic `question` asks notes for, searched for with `query`.

    None, without a search, for any other question; None too when no hit is about the topic.
    """
    if not notes_topic(question):
        return None
    return notes_reply(question, retriever.search_for(query, k=max(top_k, LIST_HITS)), changed_at=changed_at)


def notes_reply(question: str, hits: Sequence[SearchHit], *, changed_at: ChangedAt | None = None) -> NotesReply | None:
    """Return the list of the notes among `hits` about the topic `question` asks notes for.

    None when `question` asks for no notes by topic, or no hit is about it. Asked when they were last written
    ("When did I last write about cryptography?"), with `changed_at`: the latest changed first, each with its time.
    """
    topic = notes_topic(question)
    if not topic:
        return None
    about = {passage.source for passage in passages_on(topic, [_passage(hit) for hit in hits])}
    sections: dict[str, list[str]] = {}  # note link -> the headings of its sections found, best hit first
    paths: dict[str, str] = {}  # note link -> its vault path
    for hit in hits:
        if hit.chunk.anchor in about:
            note = note_of(hit.chunk.anchor)
            paths.setdefault(note, hit.chunk.path)
            heading = _shown(heading_in(hit.chunk.anchor))
            found = sections.setdefault(note, [])
            is_title = is_note_title(heading, note)  # "[[Garlic]] (Garlic)" says it twice
            if heading and not is_title and heading not in found and len(found) < MAX_SECTIONS:
                found.append(heading)
    if not sections:
        return None
    if changed_at is not None and asks_when_last_written(question):
        times = changed_at(list(paths.values()))
        return _by_change(topic, {note: times.get(path) for note, path in paths.items()})
    listed = list(sections.items())[:MAX_LISTED]
    count = len(sections)
    lines = [f"{count} note{'s' if count != 1 else ''} about {topic}, the best match first:"]
    lines += capped(
        [f"- [[{note}]]" + (f" ({', '.join(headings)})" if headings else "") for note, headings in sections.items()],
        MAX_LISTED,
    )
    return NotesReply("\n".join(lines), tuple(f"[[{note}]]" for note, _ in listed))


def _by_change(topic: str, changed: dict[str, datetime | None]) -> NotesReply:
    """Return the notes about `topic`, the latest changed first, each with when its file last changed."""
    dated = sorted(((at, note) for note, at in changed.items() if at is not None), reverse=True)[:MAX_LISTED]
    count = len(changed)
    notes = f"{count} note{'s' if count != 1 else ''}"
    lines = [f"{notes} about {topic}, the latest changed first (by the files' modification times):"]
    lines += [f"- [[{note}]] ({at.strftime('%Y-%m-%d %H:%M')})" for at, note in dated]
    if count > len(dated):
        lines.append(f"… and {count - len(dated)} more.")
    return NotesReply("\n".join(lines), tuple(f"[[{note}]]" for _, note in dated))


def _shown(heading: str) -> str:
    """Return a heading as listed: its markup dropped, a long one cut ("runC, container-d, CRI-O, Kubernetes …")."""
    return shortened(normalised(heading), MAX_HEADING_CHARS)


def _passage(hit: SearchHit) -> Passage:
    return Passage(hit.chunk.anchor, hit.chunk.text)


def files_changed_at(reader: VaultReader) -> ChangedAt:
    """Return the `changed_at` of the vault `reader` reads: one scan of the vault for the paths asked together."""

    def changed_at(paths: Sequence[str]) -> dict[str, datetime]:
        stats = reader.snapshot().stats
        return {path: stats[path].modified for path in paths if path in stats}

    return changed_at
