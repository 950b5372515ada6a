"""Choosing how turns are answered: the agent when an LLM endpoint answers, else retrieval-only mode."""

from __future__ import annotations

import logging
from contextlib import AsyncExitStack

from agent.retrieval_only import RetrievalOnlyAnswerer
from app.wiring import Services
from core.ports import Answerer, ChatModel
from core.settings import Settings
from rag.answer.refusal import RelevanceGate

logger = logging.getLogger(__name__)


async def build_answerer(
    settings: Settings, services: Services, chat_model: ChatModel | None, stack: AsyncExitStack
) -> Answerer:
    """Return the answerer for this configuration; resources it opens are closed by `stack`."""
    gate = RelevanceGate(services.embedder, services.store, floor=settings.relevance_floor)
    if chat_model is None:
        logger.warning("no LLM endpoint configured or found: answering in retrieval-only mode")
        return RetrievalOnlyAnswerer(services.retriever, gate, top_k=settings.top_k)
    del stack  # the agent (next) registers its checkpointer here
    return RetrievalOnlyAnswerer(services.retriever, gate, top_k=settings.top_k)
