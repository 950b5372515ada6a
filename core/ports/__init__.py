"""Ports: the small Protocols that adapters implement and the rest of the code depends on.

Imported from here (`from core.ports import ChatModel`); each lives in the module of its side: the index
(embedder, vector store, reranker, docstore, watermarks), chat, and note writes.
"""

from core.ports.chat import Answerer, ChatModel
from core.ports.index import DocStore, Embedder, Reranker, VectorStore, WatermarkStore
from core.ports.notes import NoteWriter

__all__ = ["Answerer", "ChatModel", "DocStore", "Embedder", "NoteWriter", "Reranker", "VectorStore", "WatermarkStore"]
