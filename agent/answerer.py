"""Running one chat turn through the compiled agent graph and turning its stream into answer events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence

from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphRecursionError
from langgraph.graph.state import CompiledStateGraph

from agent.citation_stream import CitationChecker, CitationStream
from agent.graph import TurnScratch
from agent.state import AgentState, to_record
from core.chat import AnswerDone, AnswerEvent, AnswerStatus, AnswerText, TurnRequest
from core.ports import DocStore
from rag.notes.links import LinkResolver
from rag.notes.markdown import parse_note

STOPPED_EARLY = "\n\n(I stopped here: the question needed more steps than allowed.)"


class AgentAnswerer:
    """Answers turns with the LangGraph agent; one checkpointed thread per conversation."""

    def __init__(self, graph: CompiledStateGraph[AgentState], docstore: DocStore, *, recursion_limit: int) -> None:
        self._graph = graph
        self._docstore = docstore
        self._recursion_limit = recursion_limit

    @property
    def mode(self) -> str:
        """Return the mode shown by /ready."""
        return "agent"

    async def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        """Yield status, text and the final AnswerDone; cancelling the iteration cancels the model call."""
        checker = await asyncio.to_thread(self._checker)
        scratch = TurnScratch(checker=checker, stream=CitationStream(checker))
        config: RunnableConfig = {
            "configurable": {"thread_id": request.conversation_id, "scratch": scratch},
            "recursion_limit": self._recursion_limit,
        }
        payload = AgentState(incoming=[to_record(m) for m in request.messages])
        try:
            # durability="exit": one checkpoint write per turn instead of one per step (turns are never resumed
            # mid-graph), the largest server-side cost per turn when measured.
            async for chunk in self._graph.astream(payload, config, stream_mode="custom", durability="exit"):
                if "text" in chunk:
                    yield AnswerText(chunk["text"])
                elif "status" in chunk:
                    yield AnswerStatus(chunk["status"])
        except GraphRecursionError:
            yield AnswerText(STOPPED_EARLY)
        yield AnswerDone(usage=scratch.usage)

    def _checker(self) -> CitationChecker:
        paths = self._docstore.paths()
        return CitationChecker(LinkResolver(paths), self._headings_reader(), allowed=())

    def _headings_reader(self) -> Callable[[str], Sequence[str]]:
        cache: dict[str, list[str]] = {}

        def headings(path: str) -> Sequence[str]:
            if path not in cache:
                doc = self._docstore.get(path)
                cache[path] = [] if doc is None else [h.text for h in parse_note(path, doc.markdown).headings]
            return cache[path]

        return headings
