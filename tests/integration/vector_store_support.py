"""Helpers of the VectorStore contract suite: tiny chunks with hand-made vectors, and the two adapters to open."""

from __future__ import annotations

from pathlib import Path

from qdrant_client import QdrantClient

from core.domain import Chunk, EmbeddedChunk, Embedding, IndexIdentity, SparseVector
from core.ports import VectorStore
from rag.stores.edge import EdgeVectorStore
from rag.stores.server import ServerVectorStore

DIM = 8
IDENTITY = IndexIdentity(model_id="test/tiny", dim=DIM)
UNREACHABLE = "http://127.0.0.1:9"  # the discard port: connections are refused at once


def vec(weights: dict[int, float], dim: int = DIM) -> tuple[float, ...]:
    return tuple(weights.get(i, 0.0) for i in range(dim))


def sparse(weights: dict[int, float] | None = None) -> SparseVector:
    weights = weights or {}
    return SparseVector(tuple(weights), tuple(weights.values()))


def item(
    path: str,
    index: int = 0,
    *,
    dense: tuple[float, ...],
    terms: dict[int, float] | None = None,
    tags: tuple[str, ...] = (),
    text: str = "",
) -> EmbeddedChunk:
    title = path.rsplit("/", 1)[-1].removesuffix(".md")
    chunk = Chunk(
        path=path,
        title=title,
        heading_path=("Intro", "Details"),
        anchor=f"[[{path.removesuffix('.md')}#Details]]",
        text=text or f"text of {path} chunk {index}",
        tags=tags,
        links=("Other Note",),
        line_start=10 * index + 1,
        line_end=10 * index + 9,
        index=index,
    )
    return EmbeddedChunk(chunk=chunk, embedding=Embedding(dense, sparse(terms)), embed_key=f"key:{path}:{index}")


def query(dense: tuple[float, ...], terms: dict[int, float] | None = None) -> Embedding:
    return Embedding(dense, sparse(terms))


def bm25_score(store: VectorStore, term: int) -> float:
    """Return the best BM25 score of a query holding `term` alone (its IDF, for a point holding it once)."""
    return store.search_lists(query(vec({DIM - 1: 1.0}), {term: 1.0}), limit=1).sparse[0].score


class Backend:
    """Opens stores of one kind on shared storage, so a test can reopen what it wrote."""

    def __init__(self, kind: str, tmp_path: Path) -> None:
        self.kind = kind
        self._path = tmp_path / "qdrant-edge"
        self._client = QdrantClient(":memory:") if kind == "server" else None

    def open(self) -> VectorStore:
        if self._client is not None:
            return ServerVectorStore(self._client, "vault")
        return EdgeVectorStore(self._path)

    def reopen(self, store: VectorStore) -> VectorStore:
        if self._client is None:
            store.close()  # a shard is locked while open
        return self.open()
