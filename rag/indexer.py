"""Turning note text into embedded chunks: parse, chunk, reuse known vectors, embed the rest in batches."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from core.domain import Chunk, EmbeddedChunk, Embedding, Link, Note
from core.ports import Embedder
from rag.chunks.chunking import chunk_note
from rag.notes.budget import NoteBudget, NoteLimits, NoteSkipped, check_is_text
from rag.notes.links import LinkResolver
from rag.notes.markdown import parse_note

EmbeddedTextLookup = Callable[[str, Link], str | None]


@dataclass(frozen=True, slots=True)
class PreparedNote:
    """A parsed and chunked note whose chunks still need vectors."""

    path: str
    note: Note
    chunks: tuple[Chunk, ...]
    embed_keys: tuple[str, ...]
    # Keys the same chunks had under the note's previous title: a renamed note reuses those vectors instead
    # of being re-embedded (its breadcrumb keeps the old title until the chunk's text changes).
    previous_keys: tuple[str, ...] = ()


def compute_embed_key(model_id: str, chunk: Chunk) -> str:
    """Return the key under which a chunk's vectors are stored and reused: the model plus the embedded text."""
    return hashlib.sha256(f"{model_id}\x1f{chunk.embed_text}".encode()).hexdigest()


class NoteIndexer:
    """Prepares notes for the vector store with one embedder."""

    def __init__(
        self,
        embedder: Embedder,
        *,
        overlap_tokens: int,
        limits: NoteLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._embedder = embedder
        self._overlap_tokens = overlap_tokens
        self._limits = limits or NoteLimits()
        self._clock = clock  # the per-note deadline's clock
        # Notes refused for their cost, by path: (content key, the error). A long-running service re-runs the
        # index on every change; an unchanged refused note is refused again at once instead of after its budget.
        self._refused: dict[str, tuple[str, NoteSkipped]] = {}

    def prepare(
        self,
        path: str,
        text: str,
        *,
        resolver: LinkResolver,
        embedded_text: EmbeddedTextLookup | None = None,
        previous_path: str | None = None,
        max_chunks: int | None = None,
    ) -> PreparedNote:
        """Parse and chunk one note; embeds (`![[...]]`) are expanded through `embedded_text`.

        Args:
            path: vault-relative path of the note.
            text: the note's markdown.
            resolver: link resolution over the whole vault (citation anchors, embeds).
            embedded_text: returns the text an embed shows.
            previous_path: where the note lived before a rename, so its vectors can be reused.
            max_chunks: the most chunks the note keeps (MAX_NOTE_CHUNKS), else the indexer's limit; a note
                that makes more keeps its first ones, and its first warning says so.

        Raises:
            NotText: the file is mostly NUL, control characters or invalid UTF-8.
            NoteTooCostly: parsing and chunking the note took longer than its time budget.

        """
        text = text.rstrip("\x00")  # NUL padding a crash or a sync tool left at the end is no content
        limits = self._limits if max_chunks is None else replace(self._limits, max_chunks=max_chunks)
        # Embedded notes can change under an unchanged note, so only a note without embeds is remembered.
        key = None if "![" in text else hashlib.sha256(f"{limits!r}\x1f{text}".encode()).hexdigest()
        refused = self._refused.pop(path, None)
        if refused is not None and key is not None and refused[0] == key:
            self._refused[path] = refused
            raise type(refused[1])(refused[1].message)
        try:
            return self._prepare(
                path, text, resolver, embedded_text, previous_path, NoteBudget(limits, clock=self._clock)
            )
        except NoteSkipped as exc:
            if key is not None:
                self._refused[path] = (key, exc)
            raise

    def _prepare(
        self,
        path: str,
        text: str,
        resolver: LinkResolver,
        embedded_text: EmbeddedTextLookup | None,
        previous_path: str | None,
        budget: NoteBudget,
    ) -> PreparedNote:
        check_is_text(text)
        note = parse_note(path, text, budget=budget)
        lookup = None if embedded_text is None else (lambda link: embedded_text(path, link))
        chunks = chunk_note(
            note,
            link_text=resolver.link_text_for(path),
            count_tokens=self._embedder.count_tokens,
            max_tokens=self._embedder.max_tokens,
            overlap_tokens=self._overlap_tokens,
            embedded_text=lookup,
            budget=budget,
        )
        if budget.cut is not None:
            cut = budget.cut.warning(last_line=chunks[-1].line_end, lines=len(text.splitlines()))
            note = replace(note, warnings=(cut, *note.warnings))  # first, so no cap on warnings drops it
        model_id = self._embedder.identity.model_id
        keys = tuple(compute_embed_key(model_id, chunk) for chunk in chunks)
        previous: tuple[str, ...] = ()
        if previous_path is not None:
            old_title = PurePosixPath(previous_path).stem
            previous = tuple(compute_embed_key(model_id, replace(chunk, title=old_title)) for chunk in chunks)
        return PreparedNote(path=path, note=note, chunks=tuple(chunks), embed_keys=keys, previous_keys=previous)

    def embed(
        self, notes: Sequence[PreparedNote], *, known: Mapping[str, Embedding]
    ) -> tuple[list[list[EmbeddedChunk]], int]:
        """Attach vectors to each chunk, embedding only keys not in `known`; return them per note and the new count."""
        known = {**known, **_renamed_vectors(notes, known)}
        missing: dict[str, str] = {}
        for prepared in notes:
            for chunk, key in zip(prepared.chunks, prepared.embed_keys, strict=True):
                if key not in known and key not in missing:
                    missing[key] = chunk.embed_text
        fresh = self._embed_texts(missing)
        vectors = {**known, **fresh}
        embedded = [
            [
                EmbeddedChunk(chunk=chunk, embedding=vectors[key], embed_key=key)
                for chunk, key in zip(prepared.chunks, prepared.embed_keys, strict=True)
            ]
            for prepared in notes
        ]
        return embedded, len(fresh)

    def _embed_texts(self, texts_by_key: Mapping[str, str]) -> dict[str, Embedding]:
        # One call for the whole commit: the embedder batches it, grouping texts of similar length.
        keys = list(texts_by_key)
        embeddings = self._embedder.embed_documents([texts_by_key[key] for key in keys])
        return dict(zip(keys, embeddings, strict=True))


def _renamed_vectors(notes: Sequence[PreparedNote], known: Mapping[str, Embedding]) -> dict[str, Embedding]:
    """Map the new keys of renamed notes' chunks to the vectors stored under their previous keys."""
    reused: dict[str, Embedding] = {}
    for prepared in notes:
        for key, previous in zip(prepared.embed_keys, prepared.previous_keys, strict=False):
            if key not in known and previous in known:
                reused[key] = known[previous]
    return reused
