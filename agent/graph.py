"""The LangGraph agent: retrieve first, let the model read with tools, stream a citation-checked answer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph

from agent.citation_stream import CitationChecker, CitationStream
from agent.history import client_instructions, reconcile
from agent.prompts import system_prompt
from agent.state import AgentState, MessageRecord, from_record, to_record
from core.chat import ChatMessage, ToolCall, ToolSpec, Usage
from core.ports import ChatModel
from rag.answer.citations import sources_list
from rag.answer.context import INDEX_NOT_READY, REFUSAL, build_context, is_refusal
from rag.answer.refusal import RelevanceGate
from rag.retrieve import Retriever

FIXED_NODES = 4  # prepare_turn, retrieve_context, the last call_model, finish_answer


class ToolResult(Protocol):
    """What a tool run gives the model, and the anchors it surfaced (allowed citations)."""

    @property
    def text(self) -> str:
        """Return the text for the model."""
        ...

    @property
    def anchors(self) -> Sequence[str]:
        """Return citation anchors of what the tool read."""
        ...


class ToolBox(Protocol):
    """The read tools offered to the model."""

    def specs(self) -> list[ToolSpec]:
        """Return the tool descriptions the model reads."""
        ...

    async def run(self, name: str, arguments_json: str) -> ToolResult:
        """Run one tool call; bad arguments raise an AppError with a message the model can act on."""
        ...


@dataclass(slots=True)
class TurnScratch:
    """Per-turn objects that are not checkpointed: the citation checker and the token usage so far."""

    checker: CitationChecker
    stream: CitationStream
    usage: Usage = field(default_factory=Usage)

    def add_usage(self, usage: Usage | None) -> None:
        """Accumulate the usage of one model call."""
        if usage is not None:
            self.usage = Usage(
                self.usage.prompt_tokens + usage.prompt_tokens,
                self.usage.completion_tokens + usage.completion_tokens,
                self.usage.is_estimate or usage.is_estimate,
            )


@dataclass(frozen=True, slots=True)
class AgentDeps:
    """Everything the nodes need."""

    chat_model: ChatModel
    tools: ToolBox
    retriever: Retriever
    gate: RelevanceGate
    top_k: int
    show_sources: bool
    recursion_limit: int
    clock: Callable[[], datetime]

    @property
    def max_tool_rounds(self) -> int:
        """Return how many tool rounds fit under the recursion limit (two steps each)."""
        return max(0, (self.recursion_limit - FIXED_NODES) // 2)


def scratch_of(config: RunnableConfig) -> TurnScratch:
    """Return the per-turn scratch passed in the run's config."""
    scratch: TurnScratch = config["configurable"]["scratch"]
    return scratch


def build_graph(deps: AgentDeps) -> StateGraph[AgentState]:
    """Return the uncompiled graph; wiring compiles it with a checkpointer."""

    async def prepare_turn(state: AgentState) -> dict[str, Any]:
        messages = reconcile(state.get("messages", []), state.get("incoming", []))
        return {"messages": messages, "tool_rounds": 0, "answer": "", "allowed": [], "context": ""}

    async def retrieve_context(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        get_stream_writer()({"status": "searching your notes…"})
        question = _latest_question(state["messages"])
        if not await _in_thread(deps.retriever.has_index):
            return {"is_covered": False, "answer": INDEX_NOT_READY}
        embedding = await _in_thread(deps.retriever.embed_query, question)  # once, for the floor and the search
        coverage = await _in_thread(deps.gate.check, question, embedding=embedding)
        if not coverage.is_covered:
            return {"is_covered": False}
        hits = await _in_thread(deps.retriever.search, question, k=deps.top_k, embedding=embedding)
        anchors = [hit.chunk.anchor for hit in hits]
        scratch_of(config).checker.allowed.update(anchors)
        return {"is_covered": True, "context": build_context(hits), "allowed": anchors}

    async def call_model(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        scratch = scratch_of(config)
        rounds = state.get("tool_rounds", 0)
        tools = deps.tools.specs() if rounds < deps.max_tool_rounds else []
        prompt = system_prompt(
            today=deps.clock().date(),
            context=state.get("context", ""),
            client_instructions=client_instructions(state.get("incoming", [])),
            has_tools=bool(tools),
        )
        messages = [ChatMessage(role="system", content=prompt), *(from_record(r) for r in state["messages"])]
        write = get_stream_writer()
        text: list[str] = []
        calls: tuple[ToolCall, ...] = ()
        async for delta in deps.chat_model.stream(messages, tools=tools):
            if delta.text:
                text.append(delta.text)
                shown = scratch.stream.feed(delta.text)
                if shown:
                    write({"text": shown})
            calls = calls or delta.tool_calls
            scratch.add_usage(delta.usage)
        reply = to_record(ChatMessage(role="assistant", content="".join(text), tool_calls=calls))
        if calls:
            return {"messages": [*state["messages"], reply], "tool_rounds": rounds + 1}
        return {"answer": "".join(text)}

    async def run_tools(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        scratch = scratch_of(config)
        write = get_stream_writer()
        results: list[MessageRecord] = []
        for call in from_record(state["messages"][-1]).tool_calls:
            write({"status": f"using {call.name}…"})
            content = await _run_tool(deps.tools, call, scratch)
            results.append(to_record(ChatMessage(role="tool", content=content, tool_call_id=call.id, name=call.name)))
        return {"messages": [*state["messages"], *results]}

    async def refuse(state: AgentState) -> dict[str, Any]:
        text = state.get("answer") or REFUSAL  # the index-not-ready notice, else the refusal
        get_stream_writer()({"text": text})
        reply = to_record(ChatMessage(role="assistant", content=text))
        return {"messages": [*state["messages"], reply], "answer": text}

    async def finish_answer(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        scratch = scratch_of(config)
        write = get_stream_writer()
        rest = scratch.stream.flush()
        if rest:
            write({"text": rest})
        answer = state.get("answer", "")
        shown = scratch.checker.check(answer)
        sources = ""
        if deps.show_sources and not is_refusal(shown):
            sources = sources_list(scratch.checker.cited, fallback=state.get("allowed", []))
        if sources:
            write({"text": f"\n\n{sources}"})
            shown = f"{shown}\n\n{sources}"
        reply = to_record(ChatMessage(role="assistant", content=shown))
        return {"messages": [*state["messages"], reply], "answer": shown}

    def route_coverage(state: AgentState) -> Literal["call_model", "refuse"]:
        return "call_model" if state.get("is_covered") else "refuse"

    def route_after_model(state: AgentState) -> Literal["run_tools", "finish_answer"]:
        last = state["messages"][-1]
        return "run_tools" if last["role"] == "assistant" and last.get("tool_calls") else "finish_answer"

    builder: StateGraph[AgentState] = StateGraph(AgentState)
    for node in (prepare_turn, retrieve_context, call_model, run_tools, refuse, finish_answer):
        builder.add_node(node.__name__, node)
    builder.add_edge(START, "prepare_turn")
    builder.add_edge("prepare_turn", "retrieve_context")
    builder.add_conditional_edges("retrieve_context", route_coverage)
    builder.add_conditional_edges("call_model", route_after_model)
    builder.add_edge("run_tools", "call_model")
    builder.add_edge("refuse", END)
    builder.add_edge("finish_answer", END)
    return builder


async def _run_tool(tools: ToolBox, call: ToolCall, scratch: TurnScratch) -> str:
    from core.errors import AppError

    try:
        result = await tools.run(call.name, call.arguments)
    except AppError as exc:
        # A failed tool call goes back to the model as data it can act on (the one place errors travel as data).
        return f"Error: {exc.message}"
    scratch.checker.allowed.update(result.anchors)
    return result.text


def _latest_question(messages: list[MessageRecord]) -> str:
    for record in reversed(messages):
        if record["role"] == "user" and record.get("content", "").strip():
            return str(record["content"]).strip()
    return ""


async def _in_thread(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    import asyncio

    return await asyncio.to_thread(function, *args, **kwargs)
