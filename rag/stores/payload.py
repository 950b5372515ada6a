"""What both vector-store adapters share: point ids, the Chunk <-> payload mapping and the filter description."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from core.domain import Chunk, EmbeddedChunk, Embedding, IndexIdentity, SearchFilters, SearchHit
from core.errors import IndexModelMismatch, UpstreamUnavailable

# Fixed forever: changing it changes every point id, so old points would never be replaced.
POINT_NAMESPACE = uuid.UUID("cef98538-f01c-46ed-9c41-e5e284cb1048")

DENSE_VECTOR = "dense"
SPARSE_VECTOR = "bm25"
CHUNK_FIELDS = ("path", "title", "heading_path", "anchor", "text", "tags", "links", "line_start", "line_end", "index")
# Keyword payload indexes: the fields filters and deletions match on.
INDEXED_FIELDS = ("path", "folders", "tag_keys", "embed_key")
# qdrant-edge holds the GIL during a call, so writes go in small batches to keep the event loop responsive.
UPSERT_BATCH = 256
DELETE_PATH_BATCH = 256
SCROLL_PAGE = 4096

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class KeywordMatch:
    """One engine-neutral filter condition: `key` equals `values[0]`, or (`is_any`) any of `values`."""

    key: str
    values: tuple[str, ...]
    is_any: bool


def point_id(path: str, chunk_index: int) -> str:
    """Return the deterministic point id of a chunk, so re-upserting a chunk replaces it."""
    return str(uuid.uuid5(POINT_NAMESPACE, f"{path}::{chunk_index}"))


def folder_keys(path: str) -> list[str]:
    """Return every ancestor folder of a vault path ("A/B/n.md" -> ["A", "A/B"]; root notes -> [])."""
    parts = path.strip("/").split("/")[:-1]
    return ["/".join(parts[: depth + 1]) for depth in range(len(parts))]


def tag_keys(tags: Iterable[str]) -> list[str]:
    """Return lowercased tags plus every parent of nested tags ("Project/Lib" -> ["project", "project/lib"])."""
    keys: dict[str, None] = {}
    for tag in tags:
        parts = [part for part in tag.lstrip("#").lower().split("/") if part]
        for depth in range(len(parts)):
            keys["/".join(parts[: depth + 1])] = None
    return list(keys)


def chunk_payload(item: EmbeddedChunk) -> dict[str, object]:
    """Return the stored payload of a chunk: every Chunk field plus the filter keys and `embed_key`."""
    chunk = item.chunk
    return {
        "path": chunk.path,
        "title": chunk.title,
        "heading_path": list(chunk.heading_path),
        "anchor": chunk.anchor,
        "text": chunk.text,
        "tags": list(chunk.tags),
        "links": list(chunk.links),
        "line_start": chunk.line_start,
        "line_end": chunk.line_end,
        "index": chunk.index,
        "embed_key": item.embed_key,
        "folders": folder_keys(chunk.path),
        "tag_keys": tag_keys(chunk.tags),
    }


def chunk_from_payload(payload: Mapping[str, object]) -> Chunk:
    """Return the domain Chunk stored in a point payload."""
    return Chunk(
        path=_text(payload, "path"),
        title=_text(payload, "title"),
        heading_path=_texts(payload, "heading_path"),
        anchor=_text(payload, "anchor"),
        text=_text(payload, "text"),
        tags=_texts(payload, "tags"),
        links=_texts(payload, "links"),
        line_start=_number(payload, "line_start"),
        line_end=_number(payload, "line_end"),
        index=_number(payload, "index"),
    )


def in_order(places: Sequence[tuple[str, int]], chunks: Iterable[Chunk]) -> list[Chunk]:
    """Return `chunks` in the order of `places` (a store returns points by id in an order of its own)."""
    by_place = {(chunk.path, chunk.index): chunk for chunk in chunks}
    return [by_place[place] for place in places if place in by_place]


def payload_text(payload: Mapping[str, object] | None, key: str) -> str:
    """Return a text field of a point payload, or fail loudly when the index was built differently."""
    return _text(payload or {}, key)


def filter_conditions(filters: SearchFilters | None) -> list[KeywordMatch]:
    """Describe `filters` as keyword conditions that must all hold (empty list: no restriction)."""
    if filters is None:
        return []
    conditions: list[KeywordMatch] = []
    folder = (filters.folder or "").strip("/")
    if folder:
        conditions.append(KeywordMatch("folders", (folder,), is_any=False))
    tags = tuple(dict.fromkeys(tag.lstrip("#").strip("/").lower() for tag in filters.tags if tag.strip("#/")))
    if tags:
        conditions.append(KeywordMatch("tag_keys", tags, is_any=True))
    if filters.paths:
        conditions.append(KeywordMatch("path", tuple(dict.fromkeys(filters.paths)), is_any=True))
    return conditions


def check_dim(identity: IndexIdentity, embeddings: Iterable[Embedding]) -> None:
    """Refuse vectors whose size differs from the index's, so two models' vectors are never mixed."""
    for embedding in embeddings:
        if len(embedding.dense) != identity.dim:
            raise IndexModelMismatch(
                f"the index holds {identity.dim}-dimensional vectors of {identity.model_id!r}, "
                f"got a {len(embedding.dense)}-dimensional one; reset the index to change models"
            )


def batched(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Yield consecutive slices of at most `size` items."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def sort_hits(hits: Iterable[SearchHit]) -> list[SearchHit]:
    """Order hits best first with a stable tie-break, so both engines rank equal RRF scores alike."""
    return sorted(hits, key=lambda hit: (-hit.score, hit.chunk.path, hit.chunk.index))


def _text(payload: Mapping[str, object], key: str) -> str:
    value = payload.get(key)
    if not isinstance(value, str):
        raise _malformed(key, value)
    return value


def _texts(payload: Mapping[str, object], key: str) -> tuple[str, ...]:
    value = payload.get(key)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _malformed(key, value)
    return tuple(value)


def _number(payload: Mapping[str, object], key: str) -> int:
    value = payload.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _malformed(key, value)
    return value


def _malformed(key: str, value: object) -> UpstreamUnavailable:
    # A point written by another version of this program: the index must be rebuilt, not patched up.
    return UpstreamUnavailable("qdrant", f"point payload field {key!r} is malformed ({value!r}); rebuild the index")
