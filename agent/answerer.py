"""Running one chat turn through the compiled agent graph and turning its stream into answer events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime, timedelta

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.errors import GraphRecursionError
from langgraph.graph.state import CompiledStateGraph

from agent.cancellation import cancellable
from agent.checkpoints import TURN_AT, SqliteCheckpoints
from agent.citation_stream import CitationChecker, CitationStream
from agent.locks import ConversationLocks
from agent.state import TURN_INPUTS_CLEARED, AgentState, MessageRecord, to_record
from agent.turn import TurnScratch, WriteToolBox, stopped_notice
from core.chat import AnswerDone, AnswerEvent, AnswerStatus, AnswerText, ChatMessage, TurnRequest
from core.ports import DocStore
from rag.answer.external_links import named_hosts
from rag.notes.links import LinkResolver
from rag.notes.markdown import parse_note

MAX_IDLE = timedelta(days=30)  # conversations without a turn for this long are deleted by expire_idle_conversations


def utc_now() -> datetime:
    """Return the current time in UTC."""
    return datetime.now(UTC)


class AgentAnswerer:
    """Answers turns with the LangGraph agent; one checkpointed thread per conversation."""

    def __init__(
        self,
        graph: CompiledStateGraph[AgentState],
        docstore: DocStore,
        *,
        recursion_limit: int,
        clock: Callable[[], datetime] = utc_now,
        write_tools: Callable[[str], WriteToolBox] | None = None,
    ) -> None:
        self._graph = graph
        self._write_tools = write_tools  # per conversation id; None: no write tools are offered
        self._docstore = docstore
        self._recursion_limit = recursion_limit
        self._clock = clock
        self._locks = ConversationLocks()
        saver = graph.checkpointer
        # Other savers (InMemorySaver in tests) are neither pruned nor expired.
        self._checkpoints = SqliteCheckpoints(saver) if isinstance(saver, AsyncSqliteSaver) else None

    @property
    def mode(self) -> str:
        """Return the mode shown by /ready."""
        return "agent"

    async def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        """Yield status, text and the final AnswerDone; cancelling the iteration cancels the model call.

        Turns of one conversation run one after another, so each starts from the one before it.
        """
        async with self._locks.hold(request.conversation_id):
            async for event in self._answer_turn(request):
                yield event

    async def stored_messages(self, conversation_id: str) -> list[MessageRecord]:
        """Return the stored conversation, tool steps included ([] when there is none)."""
        snapshot = await self._graph.aget_state({"configurable": {"thread_id": conversation_id}})
        return list(snapshot.values.get("messages", []))

    async def expire_idle_conversations(self, max_idle: timedelta = MAX_IDLE) -> int:
        """Delete the conversations without a turn for `max_idle`; return how many (for a scheduled job)."""
        if self._checkpoints is None:
            return 0
        cutoff = self._clock() - max_idle
        expired = 0
        for conversation_id in await self._checkpoints.idle_threads(cutoff):
            async with self._locks.hold(conversation_id):  # never under a running turn; it may have run since
                if await self._checkpoints.delete_if_idle(conversation_id, cutoff):
                    expired += 1
        return expired

    async def _answer_turn(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        checker = await asyncio.to_thread(self._checker)
        writes = self._write_tools(request.conversation_id) if self._write_tools else None
        # Images and links in the reply may point only at hosts the user's message names (issue 8).
        asked = next((message.content for message in reversed(request.messages) if message.role == "user"), "")
        stream = CitationStream(checker, allowed_hosts=named_hosts(asked))
        scratch = TurnScratch(checker=checker, stream=stream, writes=writes)
        config: RunnableConfig = {
            "configurable": {"thread_id": request.conversation_id, "scratch": scratch},
            "metadata": {TURN_AT: int(self._clock().timestamp())},
            "recursion_limit": self._recursion_limit,
        }
        payload = AgentState(incoming=[to_record(m) for m in request.messages])
        try:
            # durability="exit": one checkpoint write per turn instead of one per step (turns are never resumed
            # mid-graph), the largest server-side cost per turn when measured.
            graph_stream = self._graph.astream(payload, config, stream_mode="custom", durability="exit")
            async for chunk in cancellable(graph_stream):  # a client that goes away stops the model call
                if "text" in chunk:
                    yield AnswerText(chunk["text"])
                elif "status" in chunk:
                    yield AnswerStatus(chunk["status"])
        except GraphRecursionError:
            # Only when the limit is below the graph's fixed steps: the graph itself stops the model in time.
            yield AnswerText(scratch.show(stopped_notice(after_text=bool(scratch.shown))))
            await self._store_stopped_turn(config, scratch)
        finally:
            if self._checkpoints is not None:
                await self._checkpoints.keep_latest(request.conversation_id)
        yield AnswerDone(usage=scratch.usage, finish_reason=scratch.finish_reason)

    async def _store_stopped_turn(self, config: RunnableConfig, scratch: TurnScratch) -> None:
        # Store what the user saw, so the next turn's history matches the stored one.
        messages = await self.stored_messages(config["configurable"]["thread_id"])
        if messages:
            reply = to_record(ChatMessage(role="assistant", content=scratch.shown_text))
            update = {"messages": [*messages, reply], "answer": scratch.shown_text, **TURN_INPUTS_CLEARED}
            await self._graph.aupdate_state(config, update, as_node="finish_answer")

    def _checker(self) -> CitationChecker:
        paths = self._docstore.paths()
        return CitationChecker(LinkResolver(paths), self._headings_reader(), allowed=())

    def _headings_reader(self) -> Callable[[str], Sequence[str]]:
        # Reads the docstore: called by CitationChecker.check, which runs in a thread.
        cache: dict[str, list[str]] = {}

        def headings(path: str) -> Sequence[str]:
            if path not in cache:
                doc = self._docstore.get(path)
                note = None if doc is None else parse_note(path, doc.markdown)
                # Block ids ride along as "^id", so [[Note#^id]] citations are checked like headings.
                cache[path] = (
                    [] if note is None else [*(h.text for h in note.headings), *(f"^{b.id}" for b in note.block_ids)]
                )
            return cache[path]

        return headings
