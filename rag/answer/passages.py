"""The reply without a language model: the best passages with their citations, or the refusal."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.domain import Chunk, SearchHit
from rag.answer.context import REFUSAL
from rag.answer.external_links import named_hosts, neutralise_links

NO_MODEL_NOTICE = "No language model is configured, so here are the most relevant passages from your notes:"
NO_MODEL_REFUSAL_NOTICE = "(No language model is configured, so replies are passages from your notes.)"
# A request to change notes gets no passages: those that match "edit .obsidian/..." may be planted instructions.
NO_MODEL_CHANGES = (
    "Changes need a language model; none is configured (set LLM_BASE_URL), so I can only search your notes."
)

SNIPPET_CHARS = 320
QUESTION_CHARS = 4_096  # as much of a question as the embedder reads (its window of 256 tokens, 16 chars each)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"\w+")
# Block syntax that means nothing on one line: heading marks, quote and callout markers, bullets, checkboxes.
_BLOCK_MARK = re.compile(r"^(?:\s*>\s*(?:\[![^\]]*\][+-]?\s*)?)*(?:#{1,6}\s+|[-*+]\s+(?:\[.\]\s+)?|\d{1,9}[.)]\s+)?")
# Question words that say nothing about where the answer is in a passage.
_FILLER = frozenset(
    ("what", "when", "where", "which", "while", "does", "have", "with", "that", "this", "from", "into", "about")
    + ("much", "many", "long", "your", "there", "their", "would", "could", "should", "wird", "wann", "welche")
)


def retrieval_only_reply(question: str, hits: Sequence[SearchHit], *, covered: bool, limit: int = 3) -> str:
    """Return the reply for when no model answers: a notice line, then the best passages, each cited.

    Args:
        question: the user's question; each snippet starts at the sentence that shares most words with it.
        hits: the retrieved hits, best first.
        covered: the relevance gate's verdict; False (or no hits) gives the refusal.
        limit: how many distinct passages to show.

    """
    chunks = list({(hit.chunk.path, hit.chunk.index): hit.chunk for hit in hits}.values())[:limit]
    if not covered or not chunks:
        return f"{REFUSAL}\n\n{NO_MODEL_REFUSAL_NOTICE}"
    hosts = named_hosts(question)
    passages = [_passage(number, chunk, question, hosts) for number, chunk in enumerate(chunks, start=1)]
    return "\n\n".join([NO_MODEL_NOTICE, *passages])


def _passage(number: int, chunk: Chunk, question: str, hosts: frozenset[str]) -> str:
    start, end = chunk.line_start, chunk.line_end
    lines = f"line {start}" if start == end else f"lines {start}-{end}"
    # A quoted image is still rendered, so one pointing at a host the question does not name is shown as text.
    quoted = neutralise_links(snippet(chunk.text, question), hosts)
    return f"{number}. {chunk.anchor} ({chunk.path}, {lines})\n   > {quoted}"


def snippet(text: str, question: str, *, max_chars: int = SNIPPET_CHARS) -> str:
    """Return about `max_chars` of `text` on one line, from the sentence sharing most words with `question`."""
    lines = (_BLOCK_MARK.sub("", line) for line in text.replace("![[", "[[").splitlines())
    sentences = [part for line in lines for part in _SENTENCE_END.split(line) if part.strip()]
    if not sentences:
        return ""
    # The question's words beyond QUESTION_CHARS are not looked at: what the embedder sees is bounded the same way.
    wanted = {word for word in _words(question[:QUESTION_CHARS]) if len(word) > 3 and word not in _FILLER}
    scores = [len(wanted.intersection(_words(sentence))) for sentence in sentences]
    start = scores.index(max(scores))
    shown = " ".join(" ".join(sentence.split()) for sentence in sentences[start:])
    if len(shown) > max_chars:
        cut = shown.rfind(" ", 0, max_chars)
        shown = shown[: cut if cut > max_chars // 2 else max_chars].rstrip() + " …"
    return ("… " if start else "") + shown


def _words(text: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(text)}
