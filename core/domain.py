"""Domain values shared by every layer: parsed notes, chunks, embeddings, hits and watermarks."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

LinkKind = Literal["wikilink", "markdown"]


@dataclass(frozen=True, slots=True)
class Link:
    """A link or embed as written in a note (`[[target#heading^block|alias]]` or `[alias](target.md)`)."""

    target: str  # link path as written, without subpath; "" for a same-note link like [[#Heading]]
    heading: str | None = None  # subpath after '#', nested headings joined with '#'
    block: str | None = None  # block id after '^', without the caret
    alias: str | None = None  # display text; never an embed size like "100x200"
    is_embed: bool = False
    line: int = 0  # 1-based line in the file
    kind: LinkKind = "wikilink"


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading line of a note."""

    level: int
    text: str
    line: int  # 1-based


@dataclass(frozen=True, slots=True)
class BlockId:
    """A `^block-id` marker and the line it sits on."""

    id: str
    line: int  # 1-based


@dataclass(frozen=True, slots=True)
class Task:
    """A markdown task `- [x] text`; any single character between the brackets is a status."""

    text: str
    status: str  # the character between the brackets: " ", "x", "/", "-", "?" ...
    line: int  # 1-based

    @property
    def is_done(self) -> bool:
        """Return True for a completed task ([x] or [X])."""
        return self.status in ("x", "X")


@dataclass(frozen=True, slots=True)
class Section:
    """The text a heading owns before its first sub-heading (or the preamble before any heading)."""

    heading_path: tuple[str, ...]  # () for the preamble; ("H1", "H2") for a nested heading
    level: int  # 0 for the preamble
    line_start: int  # 1-based line of the heading itself (or of the first body line for the preamble)
    line_end: int  # 1-based, inclusive
    text: str  # body text without the heading line, with %%comments%% removed
    # 1-based file line of the first line of `text` (below a setext heading's underline, which may follow a
    # multi-line heading); 0 = not given, then the chunker takes line_start + 1 (line_start for the preamble)
    body_line: int = 0


@dataclass(frozen=True, slots=True)
class Note:
    """One parsed Obsidian note."""

    path: str  # vault-relative POSIX path, e.g. "Projects/Alpha.md"
    title: str  # file name without extension
    frontmatter: Mapping[str, object] = field(default_factory=dict)
    frontmatter_error: str | None = None
    aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # without '#', first casing seen, de-duplicated case-insensitively
    headings: tuple[Heading, ...] = ()
    links: tuple[Link, ...] = ()  # body and frontmatter links, embeds included (is_embed=True)
    block_ids: tuple[BlockId, ...] = ()
    tasks: tuple[Task, ...] = ()
    sections: tuple[Section, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def embeds(self) -> tuple[Link, ...]:
        """Return the `![[...]]` embeds of the note."""
        return tuple(link for link in self.links if link.is_embed)

    @property
    def folder(self) -> str:
        """Return the vault-relative folder of the note ("" at the vault root)."""
        return self.path.rpartition("/")[0]


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable piece of a note, sized to fit the dense model's window with its breadcrumb."""

    path: str
    title: str
    heading_path: tuple[str, ...]
    anchor: str  # citation that resolves in Obsidian: [[Note#Heading]] or [[Folder/Note#Heading]]
    text: str
    tags: tuple[str, ...] = ()
    links: tuple[str, ...] = ()  # link targets as written in this chunk
    line_start: int = 1
    line_end: int = 1
    index: int = 0  # position of the chunk in its note

    @property
    def breadcrumb(self) -> str:
        """Return "Title > H1 > H2", the context prepended to the text before embedding."""
        return " > ".join((self.title, *self.heading_path))

    @property
    def embed_text(self) -> str:
        """Return the text that is embedded: breadcrumb, then the chunk text."""
        return f"{self.breadcrumb}\n{self.text}"

    @property
    def heading(self) -> str:
        """Return the innermost heading of the chunk, or "" for text before any heading."""
        return self.heading_path[-1] if self.heading_path else ""


@dataclass(frozen=True, slots=True)
class SparseVector:
    """A sparse vector (BM25 term weights keyed by hashed token ids)."""

    indices: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Embedding:
    """The dense and sparse representation of one text.

    A query's sparse vector may hold a word's other spelling too ("authorize" for "authorise"): `alternates` pairs
    each such term with the question's own term it spells, so the search finds either while measures that count a
    question's words (the relevance gate's term coverage, follow-up detection) count the word once.
    """

    dense: tuple[float, ...]
    sparse: SparseVector
    alternates: tuple[tuple[int, int], ...] = ()  # (another spelling's term, the question's own term)

    @property
    def terms(self) -> tuple[int, ...]:
        """Return the distinct sparse terms of the text itself, without other spellings added for the search."""
        added = {alternate for alternate, _ in self.alternates}
        return tuple(dict.fromkeys(term for term in self.sparse.indices if term not in added))

    def has_word(self, term: int, others: AbstractSet[int]) -> bool:
        """Return True when `others` (another text's terms) hold own `term`, in either spelling."""
        return term in others or any(own == term and alternate in others for alternate, own in self.alternates)


@dataclass(frozen=True, slots=True)
class EmbeddedChunk:
    """A chunk ready for the vector store.

    `embed_key` identifies the embedded content independent of where the note lives, so vectors can be
    reused when a note is renamed or only part of it changes.
    """

    chunk: Chunk
    embedding: Embedding
    embed_key: str


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Restrictions applied inside every retrieval branch (dense and sparse)."""

    folder: str | None = None  # vault-relative folder; matches notes in it and its sub-folders
    tags: tuple[str, ...] = ()  # any of these tags (nested tags match their parents: "a/b" matches "a")
    paths: tuple[str, ...] = ()  # any of these exact note paths

    @property
    def is_empty(self) -> bool:
        """Return True when nothing is filtered."""
        return not (self.folder or self.tags or self.paths)


@dataclass(frozen=True, slots=True)
class Fusion:
    """How a store merges its dense and BM25 result lists into one ranking."""

    method: Literal["rrf", "dbsf"] = "rrf"  # reciprocal rank fusion, or Qdrant's distribution-based score fusion
    rrf_k: int = 60  # RRF's constant (Qdrant's default); lower lets each list's first places count for more
    dense_weight: float = 1.0  # RRF only: the dense list's weight, the BM25 list's being 1


DEFAULT_FUSION = Fusion()


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A retrieved chunk with its fused (or reranked) score."""

    chunk: Chunk
    score: float

    def to_json(self) -> dict[str, object]:
        """Return the hit as `POST /v1/search` and `librarian search --json` show it."""
        chunk = self.chunk
        return {
            "path": chunk.path,
            "title": chunk.title,
            "heading": chunk.heading,
            "heading_path": list(chunk.heading_path),
            "anchor": chunk.anchor,
            "score": self.score,
            "text": chunk.text,
            "line_start": chunk.line_start,
            "line_end": chunk.line_end,
        }


@dataclass(frozen=True, slots=True)
class RankedLists:
    """The dense and the BM25 result lists of one query apart, each best first, before fusion (to explain a ranking)."""

    dense: tuple[SearchHit, ...]  # scores: cosine similarity
    sparse: tuple[SearchHit, ...]  # scores: BM25 (IDF-weighted term matches); empty for a query without terms


@dataclass(frozen=True, slots=True)
class StoredDoc:
    """The verbatim markdown of a note as kept in the docstore."""

    path: str
    markdown: str
    content_hash: str


@dataclass(frozen=True, slots=True)
class Watermark:
    """What the indexer last saw of a file. `sha256 is None` means a run started on it and did not finish."""

    path: str
    mtime_ns: int
    size: int
    sha256: str | None
    indexed_at: datetime | None
    last_error: str | None = None
    chunks: int | None = None  # points the note has in the vector store once confirmed (None: not known)
    warnings: tuple[str, ...] = ()  # what reading the note found odd (broken YAML, ambiguous links ...)

    @property
    def is_pending(self) -> bool:
        """Return True when indexing of this file started but was not confirmed."""
        return self.sha256 is None and self.last_error is None


@dataclass(frozen=True, slots=True)
class IndexIdentity:
    """The embedding model an index was built with; vectors of two identities are never mixed."""

    model_id: str
    dim: int
