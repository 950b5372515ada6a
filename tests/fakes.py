"""Test doubles for the ports: deterministic, offline and fast, honest to the contracts the real adapters meet."""

from __future__ import annotations

import asyncio
import math
import re
import zlib
from collections import Counter
from collections.abc import AsyncIterator, Sequence

from core.chat import AnswerDone, AnswerEvent, AnswerText, TurnRequest, Usage
from core.domain import Embedding, IndexIdentity, SparseVector
from core.errors import UpstreamUnavailable
from rag.spellings import with_other_spellings

_WORDS = re.compile(r"\w+")
# Word pieces as a BERT pre-tokenizer splits them: runs of word characters and single punctuation marks.
_PIECES = re.compile(r"\w+|[^\w\s]")
_SPECIAL_TOKENS = 2  # [CLS] and [SEP]
# The defaults of qdrant-edge's Bm25Config, so document weights have the real shape.
_BM25_K = 1.2
_BM25_B = 0.75
_BM25_AVG_LEN = 256.0


def _stable_hash(text: str) -> int:
    """Return a 32-bit hash that is the same in every process (Python's hash() is salted per run)."""
    return zlib.crc32(text.encode("utf-8"))


class HashingEmbedder:
    """Embed by hashing lower-case words into signed buckets, so texts sharing words score higher."""

    def __init__(self, dim: int = 64, *, max_tokens: int = 256, model_id: str | None = None) -> None:
        if dim < 2:
            raise ValueError(f"dim must be at least 2, got {dim}")
        self._dim = dim
        self._max_tokens = max_tokens
        # Another id with the same dimension stands for a different model of equal size (e.g. two 384-d models).
        self._model_id = model_id or f"hashing-{dim}"

    @property
    def identity(self) -> IndexIdentity:
        """Return the model id and dense dimension, stored with the index."""
        return IndexIdentity(model_id=self._model_id, dim=self._dim)

    @property
    def max_tokens(self) -> int:
        """Return the window in tokens (special tokens included)."""
        return self._max_tokens

    def count_tokens(self, text: str) -> int:
        """Return words plus punctuation marks plus [CLS] and [SEP]; never truncated."""
        return len(_PIECES.findall(text)) + _SPECIAL_TOKENS

    def embed_documents(self, texts: Sequence[str]) -> list[Embedding]:
        """Embed texts to be stored, with BM25 document weights."""
        return [Embedding(dense=self._dense(text), sparse=_document_sparse(text)) for text in texts]

    def embed_query(self, text: str) -> Embedding:
        """Embed a search query: BM25 query weights (1.0 per distinct word), other spellings added as the real one."""
        sparse, alternates = with_other_spellings(
            _query_sparse(text), text, lambda word: [_stable_hash(word) for word in _words(word)]
        )
        return Embedding(dense=self._dense(text), sparse=sparse, alternates=alternates)

    def _dense(self, text: str) -> tuple[float, ...]:
        buckets = [0.0] * self._dim
        for word in _words(text):
            # A signed hashing trick: collisions cancel out on average, so unrelated texts score near zero.
            hashed = _stable_hash(word)
            buckets[hashed % self._dim] += 1.0 if hashed >> 31 else -1.0
        norm = math.sqrt(sum(value * value for value in buckets))
        if norm == 0.0:
            # An empty text (or words that cancel out): real models still return a unit vector.
            buckets, norm = [1.0] + [0.0] * (self._dim - 1), 1.0
        return tuple(value / norm for value in buckets)


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORDS.findall(text)]


def _query_sparse(text: str) -> SparseVector:
    indices = sorted({_stable_hash(word) for word in _words(text)})
    return SparseVector(indices=tuple(indices), values=tuple(1.0 for _ in indices))


def _document_sparse(text: str) -> SparseVector:
    words = _words(text)
    counts = Counter(_stable_hash(word) for word in words)
    length_norm = 1.0 - _BM25_B + _BM25_B * len(words) / _BM25_AVG_LEN
    indices = sorted(counts)
    values = tuple(counts[i] * (_BM25_K + 1.0) / (counts[i] + _BM25_K * length_norm) for i in indices)
    return SparseVector(indices=tuple(indices), values=values)


class ScriptedAnswerer:
    """Answer every turn with scripted text pieces (the HTTP edge's double for the agent); records the turns."""

    def __init__(
        self,
        pieces: Sequence[str] = ("Hello", " from", " the notes."),
        *,
        fail_after: int | None = None,
        delay_first: float = 0.0,
        delay_per_piece: float = 0.0,
    ) -> None:
        self.pieces = tuple(pieces)
        self.fail_after = fail_after  # raise UpstreamUnavailable after this many pieces
        self.delay_first = delay_first  # like a slow tool run before the first token
        self.delay_per_piece = delay_per_piece
        self.turns: list[TurnRequest] = []
        self.cancelled = asyncio.Event()  # set when the client went away and the work was cancelled
        self.finished = False

    @property
    def mode(self) -> str:
        """Return the mode shown by /ready."""
        return "scripted"

    async def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        """Yield the scripted pieces, then AnswerDone with usage counted in words."""
        self.turns.append(request)
        try:
            await asyncio.sleep(self.delay_first)
            for index, piece in enumerate(self.pieces):
                if self.fail_after is not None and index == self.fail_after:
                    raise UpstreamUnavailable("llm", "scripted failure mid-stream")
                yield AnswerText(piece)
                await asyncio.sleep(self.delay_per_piece)
            prompt = sum(len(m.content.split()) for m in request.messages)
            yield AnswerDone(usage=Usage(prompt_tokens=prompt, completion_tokens=len(self.pieces)))
            self.finished = True
        except (asyncio.CancelledError, GeneratorExit):
            self.cancelled.set()
            raise
