"""The LangGraph agent: retrieve first, let the model read with tools, stream a citation-checked answer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph

from agent.gate.intent import looks_like_edit_request
from agent.history import client_instructions, model_history, reconcile
from agent.prompts import system_prompt
from agent.state import TURN_INPUTS_CLEARED, AgentState, MessageRecord, from_record, to_record
from agent.turn import ToolBox, TurnScratch, stopped_notice
from core.chat import ChatMessage, ToolCall
from core.errors import AppError, UpstreamUnavailable
from core.ports import ChatModel
from rag.answer.citations import sources_list
from rag.answer.context import REFUSAL, build_context, is_refusal
from rag.answer.refusal import RelevanceGate
from rag.retrieve import Retriever

FIXED_NODES = 4  # prepare_turn, retrieve_context, the last call_model, finish_answer
EMPTY_ANSWER = "the model returned an empty answer; try again or rephrase"

T = TypeVar("T")


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
        """Return how many tool rounds fit under the recursion limit (two steps each).

        LangGraph stops a run that reaches the limit, so a run of N steps needs a limit of N + 1.
        """
        return max(0, (self.recursion_limit - 1 - FIXED_NODES) // 2)


def scratch_of(config: RunnableConfig) -> TurnScratch:
    """Return the per-turn scratch passed in the run's config."""
    scratch: TurnScratch = config["configurable"]["scratch"]
    return scratch


class AgentNodes:
    """The graph's nodes; each method's name is its node's name."""

    def __init__(self, deps: AgentDeps) -> None:
        self._deps = deps

    async def prepare_turn(self, state: AgentState) -> dict[str, Any]:
        """Reconcile the client's history with the stored conversation and reset the turn's fields."""
        messages = reconcile(state.get("messages", []), state.get("incoming", []))
        return {
            "messages": messages,
            "tool_rounds": 0,
            "answer": "",
            "allowed": [],
            "context": "",
            "is_stopped_early": False,
        }

    async def retrieve_context(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Search the notes for the latest question, unless the relevance floor says they don't cover it."""
        deps = self._deps
        get_stream_writer()({"status": "searching your notes…"})
        question = _latest_question(state["messages"])
        unready = await _in_thread(deps.retriever.unready_reason)  # an empty vault, or the first index running
        if unready is not None:
            return {"is_covered": False, "answer": unready}
        embedding = await _in_thread(deps.retriever.embed_query, question)  # once, for the floor and the search
        # An edit request ("add a task to today's note") is no question the notes must cover: the floor stays out.
        is_edit = scratch_of(config).writes is not None and looks_like_edit_request(question)
        if not is_edit and not (await _in_thread(lambda: deps.gate.check(question, embedding=embedding))).is_covered:
            return {"is_covered": False}
        hits = await _in_thread(lambda: deps.retriever.search(question, k=deps.top_k, embedding=embedding))
        anchors = [hit.chunk.anchor for hit in hits]
        scratch_of(config).checker.allowed.update(anchors)
        return {"is_covered": True, "context": build_context(hits), "allowed": anchors}

    async def call_model(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Stream one model reply to the user through the citation check; keep its tool calls, if any."""
        scratch = scratch_of(config)
        rounds = state.get("tool_rounds", 0)
        tools = []
        if rounds < self._deps.max_tool_rounds:
            tools = [*self._deps.tools.specs(), *(scratch.writes.specs() if scratch.writes else [])]
        prompt = system_prompt(
            today=self._deps.clock().date(),
            context=state.get("context", ""),
            client_instructions=client_instructions(state.get("incoming", [])),
            has_tools=bool(tools),
            can_propose=scratch.writes is not None,
        )
        messages = [ChatMessage(role="system", content=prompt), *map(from_record, model_history(state["messages"]))]
        write = get_stream_writer()
        scratch.start_reply()
        text: list[str] = []
        calls: tuple[ToolCall, ...] = ()
        finish_reason = "stop"
        async for delta in self._deps.chat_model.stream(messages, tools=tools):
            if delta.text:
                text.append(delta.text)
                _write_text(write, scratch.show_reply(await scratch.stream.feed(delta.text)))
            calls = calls or delta.tool_calls
            finish_reason = delta.finish_reason or finish_reason
            scratch.add_usage(delta.usage)
        _write_text(write, scratch.show_reply(scratch.stream.flush()))
        if calls and tools:
            reply = to_record(ChatMessage(role="assistant", content="".join(text), tool_calls=calls))
            return {"messages": [*state["messages"], reply], "tool_rounds": rounds + 1}
        # Tool calls when none were offered: the model wanted more steps than the recursion limit allows.
        scratch.finish_reason = "stop" if calls else finish_reason
        return {"answer": scratch.reply_text, "is_stopped_early": bool(calls)}

    async def run_tools(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Run the tool calls of the last reply; their anchors become allowed citations."""
        scratch = scratch_of(config)
        write = get_stream_writer()
        results: list[MessageRecord] = []
        for call in from_record(state["messages"][-1]).tool_calls:
            write({"status": f"using {call.name}…"})
            content = await self._run_tool(call, scratch)
            results.append(to_record(ChatMessage(role="tool", content=content, tool_call_id=call.id, name=call.name)))
        return {"messages": [*state["messages"], *results]}

    async def refuse(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Reply with the refusal (or the index-not-ready notice) without asking the model."""
        text = scratch_of(config).show(state.get("answer") or REFUSAL)
        get_stream_writer()({"text": text})
        reply = to_record(ChatMessage(role="assistant", content=text))
        return {"messages": [*state["messages"], reply], "answer": text, **TURN_INPUTS_CLEARED}

    async def finish_answer(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Add the stopped-early notice and the sources; store the reply exactly as the user saw it."""
        scratch = scratch_of(config)
        answer = state.get("answer", "")
        is_stopped_early = state.get("is_stopped_early", False)
        if not answer.strip() and not is_stopped_early:
            raise UpstreamUnavailable("llm", EMPTY_ANSWER)
        write = get_stream_writer()
        if is_stopped_early:
            _write_text(write, scratch.show(stopped_notice(after_text=bool(scratch.shown))))
        if self._deps.show_sources and not is_refusal(answer):
            # A turn that proposed edits lists only what it cited: the passages retrieved for "add a task ..."
            # are not its sources.
            proposed = scratch.writes is not None and bool(scratch.writes.proposals)
            sources = sources_list(scratch.checker.cited, fallback=[] if proposed else state.get("allowed", []))
            _write_text(write, scratch.show(f"\n\n{sources}" if sources else ""))
        shown = scratch.shown_text
        reply = to_record(ChatMessage(role="assistant", content=shown))
        return {"messages": [*state["messages"], reply], "answer": shown, **TURN_INPUTS_CLEARED}

    async def _run_tool(self, call: ToolCall, scratch: TurnScratch) -> str:
        tools: ToolBox = self._deps.tools
        if scratch.writes is not None and scratch.writes.has_tool(call.name):
            tools = scratch.writes
        try:
            result = await tools.run(call.name, call.arguments)
        except AppError as exc:
            # A failed tool call goes back to the model as data it can act on (the one place errors travel as data).
            return f"Error: {exc.message}"
        scratch.checker.allowed.update(result.anchors)
        return result.text


def route_coverage(state: AgentState) -> Literal["call_model", "refuse"]:
    """Ask the model only when the notes cover the question."""
    return "call_model" if state.get("is_covered") else "refuse"


def route_after_model(state: AgentState) -> Literal["run_tools", "finish_answer"]:
    """Run tools when the last reply asked for them, else finish."""
    last = state["messages"][-1]
    return "run_tools" if last["role"] == "assistant" and last.get("tool_calls") else "finish_answer"


def build_graph(deps: AgentDeps) -> StateGraph[AgentState]:
    """Return the uncompiled graph; wiring compiles it with a checkpointer."""
    nodes = AgentNodes(deps)
    builder: StateGraph[AgentState] = StateGraph(AgentState)
    for node in (
        nodes.prepare_turn,
        nodes.retrieve_context,
        nodes.call_model,
        nodes.run_tools,
        nodes.refuse,
        nodes.finish_answer,
    ):
        builder.add_node(node.__name__, node)
    builder.add_edge(START, "prepare_turn")
    builder.add_edge("prepare_turn", "retrieve_context")
    builder.add_conditional_edges("retrieve_context", route_coverage)
    builder.add_conditional_edges("call_model", route_after_model)
    builder.add_edge("run_tools", "call_model")
    builder.add_edge("refuse", END)
    builder.add_edge("finish_answer", END)
    return builder


def _write_text(write: Callable[[Any], None], text: str) -> None:
    if text:
        write({"text": text})


def _latest_question(messages: list[MessageRecord]) -> str:
    for record in reversed(messages):
        if record["role"] == "user" and record.get("content", "").strip():
            return str(record["content"]).strip()
    return ""


async def _in_thread(function: Callable[..., T], *args: Any) -> T:
    return await asyncio.to_thread(function, *args)
