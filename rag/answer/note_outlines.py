"""A note's sections beside its passages, when the question is about that note as a whole.

Asked "Which AI models did I test?" over vaultofknowledge, the search found the note "AI Models I Tested" first, but
its hardware table and its empty template: the models tested are its other sections' headings ("TinyLlama 1.1B",
"Llama-8B Fine-Tuned with DeepSeek-R1"), and the 0.5B answered with the Standard Model of particle physics. A search
ranks sections by their words, and an overview of a note is in none of them. So when the best passage's note is the
one the question names by its title's words, a line listing its sections goes with its passages, after the last of
them (as a properties record does, rag/answer/property_records.py): it costs a line, and a question about one part of
the note still has that part's passage first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from core.domain import Chunk, SearchHit
from rag.answer.citations import note_of
from rag.answer.excerpts import question_stems
from rag.notes.frontmatter import read_frontmatter
from rag.notes.scanner import scan_lines, split_lines

logger = logging.getLogger(__name__)

MAX_SECTIONS = 15  # headings listed at most, in the note's order
TITLE_SHARE = 2 / 3  # of the question's words (stems), the share the title holds for the question to be about the note
MIN_SHARED = 2  # and at least this many: one shared word ("garlic") names a topic, not a note's whole
# An outline is no chunk of the index: its index is never taken for a neighbour of a chunk (adjacent chunks are one
# apart) nor for a properties record (-2).
OUTLINE_INDEX = -4
OUTLINE_LEAD = "Sections of this note:"


@dataclass(frozen=True, slots=True)
class NoteOutlines:
    """Adds the list of its sections to the passages of the note a question names by its title's words."""

    note_text: Callable[[str], str | None]  # a note's indexed markdown by path (None: not indexed)

    def add(self, hits: Sequence[SearchHit], question: str) -> list[SearchHit]:
        """Return `hits` with an outline after the last hit of the best hit's note, when the question is about it."""
        if not hits or not is_about_note(question, hits[0].chunk.title):
            return list(hits)
        best = hits[0]
        outline = self._outline(best, [hit.chunk.heading_path for hit in hits if hit.chunk.path == best.chunk.path])
        if outline is None:
            return list(hits)
        last = max(position for position, hit in enumerate(hits) if hit.chunk.path == best.chunk.path)
        return [*hits[: last + 1], outline, *hits[last + 1 :]]

    def _outline(self, hit: SearchHit, shown: list[tuple[str, ...]]) -> SearchHit | None:
        """Return the outline of `hit`'s note: two sections or more, one of them not among the passages `shown`."""
        text = self.note_text(hit.chunk.path)
        if not text:
            return None
        try:
            lines = split_lines(text)
            body_start = read_frontmatter(lines).body_start
            headings = scan_lines(lines[body_start:], first_line=body_start + 1).headings
        except Exception:  # a note the indexer read is one the scanner reads; this is only an extra passage
            logger.debug("sections of %s not read", hit.chunk.path, exc_info=True)
            return None
        title = hit.chunk.title
        # The parts the note is made of: its highest level of headings with two or more (below a title heading).
        sections = [heading for heading in headings if heading.text.strip() and heading.text.strip() != title]
        names: list[str] = []
        for level in sorted({heading.level for heading in sections}):
            names = [heading.text.strip() for heading in sections if heading.level == level]
            if len(names) >= 2:
                break
        is_shown = {path[-1] for path in shown if path}
        if len(names) < 2 or all(name in is_shown for name in names):
            return None
        listed = "; ".join(names[:MAX_SECTIONS]) + (" …" if len(names) > MAX_SECTIONS else "")
        chunk = Chunk(
            path=hit.chunk.path,
            title=title,
            heading_path=(),
            anchor=f"[[{note_of(hit.chunk.anchor)}]]",
            # No title line, as a properties record has: given "Kitchen Inventory App" first, the 0.5B answered
            # "Tell me about my kitchen inventory app." with it, and the source link names the note anyway.
            text=f"{OUTLINE_LEAD} {listed}",
            tags=hit.chunk.tags,
            line_start=1,
            line_end=1,
            index=OUTLINE_INDEX,
        )
        return replace(hit, chunk=chunk)


def is_about_note(question: str, title: str) -> bool:
    """Return True when `title` holds TITLE_SHARE of the question's words, and at least MIN_SHARED of them.

    "Which AI models did I test?" is about "AI Models I Tested"; "How do I plant garlic?" is not about "Garlic".
    """
    asked = question_stems(question)
    shared = asked & question_stems(title)
    return len(shared) >= MIN_SHARED and len(shared) >= TITLE_SHARE * len(asked)
