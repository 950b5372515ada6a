"""The reply without a language model: the best passages with their citations, or the refusal."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.domain import Chunk, SearchHit
from rag.answer.attribution import Passage
from rag.answer.citations import note_of, sources_list
from rag.answer.context import REFUSAL
from rag.answer.excerpts import GAP, cut_at_space, key_sentences
from rag.answer.external_links import named_hosts, neutralise_links

NO_MODEL_NOTICE = "No language model is configured, so here are the most relevant passages from your notes:"
NO_MODEL_REFUSAL_NOTICE = "(No language model is configured, so replies are passages from your notes.)"
# A request to change notes gets no passages: those that match "edit .obsidian/..." may be planted instructions.
NO_MODEL_CHANGES = (
    "Changes need a language model; none is configured (set LLM_BASE_URL), so I can only search your notes."
)

SNIPPET_CHARS = 320
# Block syntax that means nothing on one line: heading marks, quote and callout markers, bullets. A task's
# checkbox stays ("[ ] Call the vet", "[x] Buy flour"): whether a task is open or done is often the answer.
BLOCK_MARK = re.compile(r"^(?:\s*>\s*(?:\[![^\]]*\][+-]?\s*)?)*(?:#{1,6}\s+|[-*+]\s+|\d{1,9}[.)]\s+)?")


def retrieval_only_reply(
    question: str, hits: Sequence[SearchHit], *, covered: bool, limit: int = 3, nearest: Sequence[str] = ()
) -> str:
    """Return the reply for when no model answers: a notice line, then the best passages, each cited.

    Args:
        question: the user's question; each snippet starts at the sentence that shares most words with it.
        hits: the retrieved hits, best first.
        covered: the relevance gate's verdict; False (or no hits) gives the refusal.
        limit: how many distinct passages to show.
        nearest: with the refusal, the sections nearest the question below the floor, listed as "Notes searched:".

    """
    chunks = list({(hit.chunk.path, hit.chunk.index): hit.chunk for hit in hits}.values())[:limit]
    if not covered or not chunks:
        listed = sources_list((), fallback=nearest, limit=limit)
        return "\n\n".join(filter(None, (REFUSAL, NO_MODEL_REFUSAL_NOTICE, listed)))
    hosts = named_hosts(question)
    passages = [_passage(number, chunk, question, hosts) for number, chunk in enumerate(chunks, start=1)]
    return "\n\n".join([NO_MODEL_NOTICE, *passages])


# The head of a passage as `_passage` writes it, its link captured: "1. [[Note#Heading]] (path.md, lines 3-9)".
PASSAGE_HEAD = re.compile(r"^\d+\. (\[\[[^\[\]\n]+\]\]) \(", re.MULTILINE)


def quoted_passages(lead: str, passages: Sequence[Passage], question: str, *, limit: int = 3) -> str:
    """Return `lead`, then the first `limit` passages, each as its link and a snippet of its text ("" for none).

    What code says in place of an answer it has no model's words for, as the retrieval-only reply does.
    """
    hosts = named_hosts(question)
    shown = [
        f"{number}. {passage.source}\n   > {EMPTY_NOTE}"
        if _is_empty(passage)
        else _numbered(number, passage.source, passage.text, question, hosts)
        for number, passage in enumerate(passages[:limit], start=1)
    ]
    return "\n\n".join([lead, *shown]) if shown else ""


EMPTY_NOTE = "(an empty note)"


def _is_empty(passage: Passage) -> bool:
    """Return True for the passage of a note holding nothing but its title (its chunk's breadcrumb).

    vaultofknowledge's daily notes "Entry of 12th Mar, 2025" are empty files: quoted, "> Entry of 12th Mar, 2025" read
    as if the note said its own name.
    """
    return passage.text.strip() in ("", note_of(passage.source))


def _passage(number: int, chunk: Chunk, question: str, hosts: frozenset[str]) -> str:
    start, end = chunk.line_start, chunk.line_end
    lines = f"line {start}" if start == end else f"lines {start}-{end}"
    return _numbered(number, f"{chunk.anchor} ({chunk.path}, {lines})", chunk.text, question, hosts)


def _numbered(number: int, label: str, text: str, question: str, hosts: frozenset[str]) -> str:
    """Return one quoted passage: its number and `label` (its link), then a snippet of `text` on the next line."""
    # A quoted image is still rendered, so one pointing at a host the question does not name is shown as text.
    return f"{number}. {label}\n   > {neutralise_links(snippet(text, question), hosts)}"


def snippet(text: str, question: str, *, max_chars: int = SNIPPET_CHARS) -> str:
    """Return about `max_chars` of `text` on one line: the sentences holding the question's words, and what follows.

    Runs that are not next to each other are joined by " … "; no link or code span is cut (`rag.answer.excerpts`).
    """
    lines = (BLOCK_MARK.sub("", line) for line in text.replace("![[", "[[").splitlines())
    found = key_sentences("\n".join(lines), question, max_chars=max_chars)
    shown = GAP.join(found.runs)
    is_cut_after = found.is_cut_after
    if len(shown) > max_chars:  # one sentence longer than the budget
        shown, is_cut_after = cut_at_space(shown, max_chars), True
    return ("… " if found.is_cut_before else "") + " ".join(shown.split()) + (" …" if is_cut_after else "")
