"""The LangGraph agent: retrieve first, let the model read with tools, stream a citation-checked answer.

A change request to a model not seen making structured tool calls goes to `propose_by_contract` instead: one
constrained model reply, bound to what code found, becomes the proposal (agent/change_contract/).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import date
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph

from agent.answer_footer import answer_footer, earlier_question, latest_question, refusal_footer
from agent.call_feedback import REPEATED_CALL, earlier_failure, other_tool_hint, unoffered_call_error
from agent.context_fit import fit_messages
from agent.contract_node import ContractNode
from agent.day_notes import NamedDays, days_label
from agent.gate.intent import asked_change
from agent.graph_deps import AgentDeps, scratch_of, write_text
from agent.history import client_instructions, model_history, reconcile
from agent.model_reply import ModelReply, stream_reply
from agent.opening_check import opening_check_for
from agent.opening_hold import PARTS_HOLD_SECONDS, OpeningCheck
from agent.prompts import model_messages
from agent.quoting.turn import QuoteInputs, quoted_reply
from agent.retrieve_node import RetrieveNode
from agent.state import TURN_INPUTS_CLEARED, AgentState, MessageRecord, from_record, to_record
from agent.tool_offer import asks_change, offers_tools
from agent.turn import ToolBox, TurnScratch, note_orders_notice, stopped_notice
from core.chat import ChatMessage, ToolCall, ToolSpec
from core.errors import AppError, UpstreamUnavailable
from rag.answer.context import REFUSAL, is_bare_refusal, is_refusal
from rag.answer.question_kind import asks_about_topic, asks_only_yes_or_no
from rag.answer.question_parts import question_parts
from rag.answer.time_cues import needs_today
from rag.answer.topic_passages import asks_about_days_alone
from rag.follow_up import is_continuation

EMPTY_ANSWER = "the model returned an empty answer; try again or rephrase"


class AgentNodes:
    """The graph's nodes but two (agent.retrieve_node, agent.contract_node); each method's name is its node's name."""

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
            "is_contract": False,
            "hit_paths": [],
            "follows": "",
            "named_days": {},
            "named_note": "",
            "titled_note": "",
        }

    async def call_model(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Stream one model reply to the user through the citation check; keep its tool calls, if any."""
        scratch = scratch_of(config)
        rounds = state.get("tool_rounds", 0)
        model = self._deps.chat_model.model_name
        known: list[ToolSpec] = []  # what the model may call this turn; offered while rounds are left
        held: list[ToolSpec] = []  # not offered, but a call of them written as text is never shown
        asked = latest_question(state["messages"])  # the tools it calls for (agent.tools.cues)
        intent = asked_change(asked)
        # Write tools only when the message asks for a change (only offered tools run, so a plain question
        # proposes nothing); deletes and moves nobody asked for still wait for "yes delete" / "yes move".
        # "Follow the instructions in X" offers none at all: a note's text never becomes a proposal.
        is_change = asks_change(asked)
        if self._deps.tool_use.is_offered(model):
            writes = scratch.writes.specs(asked) if scratch.writes and is_change else []
            reads = self._deps.tools.specs(asked)
            if offers_tools(self._deps, asked):
                known = [*reads, *writes]
            else:  # a question to a model that writes its calls as text: one completion (agent/tool_use.py)
                held = reads
        is_question = not intent.is_change and not intent.follows_note
        if not known and is_question and rounds == 0 and self._deps.quote_first:
            # A question answered without tools: quote first, answer from the verified quotes (agent/quoting).
            quoted = await quoted_reply(self._quote_inputs(state), scratch, get_stream_writer())
            if quoted is not None:
                return {"answer": quoted, "is_stopped_early": False}
        tools = known if rounds < self._deps.max_tool_rounds else []
        scratch.offered = tuple(tools)
        # Only the first reply to a question is held for its check: it answers from the passages sent, or calls a
        # tool (then what it wrote before the call is no answer, and is dropped unjudged). After a tool round the
        # model answers from results too (task lists, tag counts), which the check was not calibrated on.
        is_checked = is_question and rounds == 0
        opening = self._opening_check(state) if is_checked else None
        reply = await self._reply(state, scratch, tools, known=known or held, opening=opening)
        if tools:
            has_called = any(call.name in {tool.name for tool in tools} for call in reply.calls)
            # Named after the call: a model discovered at the endpoint is known only once it has been asked.
            model = self._deps.chat_model.model_name
            self._deps.tool_use.record(
                model, has_called=has_called, is_unusable=reply.is_unusable, is_structured=reply.is_structured
            )
        if reply.is_unusable:
            # Nothing of it was shown: answer in one completion without tools, from the passages retrieved and the
            # tool results so far. A call it still writes as text is held back like one made when the rounds ran out.
            opening = self._opening_check(state) if is_checked else None
            reply = await self._reply(state, scratch, [], known=known or held, opening=opening)
        if reply.calls and reply.has_tools:
            record = to_record(ChatMessage(role="assistant", content=reply.text, tool_calls=reply.calls))
            return {"messages": [*state["messages"], record], "tool_rounds": rounds + 1}
        if reply.calls and not known:
            # A question answered with a call written as text, with no tools offered: no answer at all, so
            # the turn fails over to the retrieved passages (agent/fallback.py) rather than to a stopped notice.
            return {"answer": scratch.reply_text, "is_stopped_early": False}
        # Tool calls when none were offered: the model wanted more steps than the recursion limit allows.
        scratch.finish_reason = "stop" if reply.calls else reply.finish_reason
        return {"answer": scratch.reply_text, "is_stopped_early": bool(reply.calls)}

    def _quote_inputs(self, state: AgentState) -> QuoteInputs:
        history = list(map(from_record, model_history(state["messages"])))
        return QuoteInputs(
            chat_model=self._deps.chat_model,
            history=history,
            context=state.get("context", ""),
            today=self._told_today(history, can_propose=False),
            fit=lambda messages: fit_messages(messages, [], self._deps.context),
        )

    def _told_today(self, history: Sequence[ChatMessage], *, can_propose: bool) -> date | None:
        """Return the date the model is told this turn (`history`: what it reads): None when nothing asked needs it.

        A change request always gets it (a task due Friday, today's daily note); a question only when it, or a question
        before it in the conversation, names a day or a time relative to today ("And the garlic?" after "What did I
        plant yesterday?": the earlier question is read with it).
        """
        if can_propose or any(needs_today(message.content) for message in history if message.role == "user"):
            return self._deps.clock().date()
        return None

    def _opening_check(self, state: AgentState) -> OpeningCheck | None:
        """Return the check a plain answer's opening must pass before it is shown (None: shown as written)."""
        if not self._deps.check_answers:
            return None
        # "Tell me more" asks about the questions before it.
        question = self._continued(state) or latest_question(state["messages"])
        check = opening_check_for(state, question=question, today=self._deps.clock().date())
        if check is not None and self._deps.first_token_seconds > 0:
            # The first text is due when the model has read its passages and written a first sentence: a hold for a
            # numbered answer's last part ends then (agent/opening_hold.PARTS_HOLD_SECONDS).
            check.hold_until(time.monotonic() + self._deps.first_token_seconds + PARTS_HOLD_SECONDS)
        return check

    @staticmethod
    def _days_alone_label(state: AgentState, asked: str) -> str:
        """Return the days a request about them alone names, as the prompt says them ("": no such request)."""
        named = NamedDays.from_record(state.get("named_days"))
        if not named.paths or not asks_about_days_alone(asked):
            return ""
        return days_label(named.days)

    async def _reply(
        self,
        state: AgentState,
        scratch: TurnScratch,
        tools: list[ToolSpec],
        *,
        known: list[ToolSpec] | None = None,
        opening: OpeningCheck | None = None,
    ) -> ModelReply:
        """Ask the model once, with `tools` (maybe none); stream its reply (`known`, `opening`: see stream_reply)."""
        asked = latest_question(state["messages"])
        parts = question_parts(asked)  # listed for the model (not with a change request), and trimmed if it copies them
        can_propose = scratch.writes is not None and any(scratch.writes.has_tool(tool.name) for tool in tools)
        history = list(map(from_record, model_history(state["messages"])))
        messages = model_messages(
            history,
            today=self._told_today(history, can_propose=can_propose),
            context=state.get("context", ""),
            client_instructions=client_instructions(state.get("incoming", [])),
            has_tools=bool(tools),
            can_propose=can_propose,
            follows_note=asked_change(asked).follows_note,
            continues=self._continued(state),
            about_topic=not can_propose and asks_about_topic(asked),
            about_days=self._days_alone_label(state, asked),
            yes_or_no=not can_propose and asks_only_yes_or_no(asked),
            parts=() if can_propose else parts,
        )
        messages = await fit_messages(messages, tools, self._deps.context)
        # A cap, so that a small model repeating itself stops (finish_reason "length") before its context is full.
        max_tokens = await self._deps.context.reply_tokens() if self._deps.context is not None else None
        write = get_stream_writer()
        return await stream_reply(
            self._deps.chat_model,
            messages,
            tools,
            scratch,
            write,
            known=known or [],
            max_tokens=max_tokens,
            asked=asked,
            parts=parts,
            opening=opening,
        )

    @staticmethod
    def _continued(state: AgentState) -> str:
        """Return what "Tell me more" asks more of: the questions before it ("" for any other message)."""
        asked = latest_question(state["messages"])
        return earlier_question(state["messages"]) if is_continuation(asked) else ""

    async def run_tools(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Run the tool calls of the last reply; their anchors become allowed citations."""
        scratch = scratch_of(config)
        write = get_stream_writer()
        results: list[MessageRecord] = []
        for call in from_record(state["messages"][-1]).tool_calls:
            write({"status": f"using {call.name}…"})
            if (failed := earlier_failure(state["messages"], call)) is not None:
                content = f"{REPEATED_CALL} It failed with: {failed}"
            else:
                content = await self._run_tool(call, scratch)
            results.append(to_record(ChatMessage(role="tool", content=content, tool_call_id=call.id, name=call.name)))
        return {"messages": [*state["messages"], *results]}

    async def refuse(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Reply without the model: the refusal, the index-not-ready notice, or what the last answer came from."""
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
            raise UpstreamUnavailable("llm", EMPTY_ANSWER, was_reached=True)
        write = get_stream_writer()
        if is_stopped_early:
            write_text(write, scratch.show(stopped_notice(after_text=bool(scratch.shown))))
        if asked_change(latest_question(state["messages"])).follows_note:
            # Written by code, whatever the model claimed above: nothing a note told it to do was done.
            write_text(write, scratch.show(note_orders_notice(after_text=bool(scratch.shown))))
        # A turn that proposed edits lists only what it cited: the passages retrieved for "add a task ..." are not
        # its sources.
        proposed = scratch.writes is not None and bool(scratch.writes.proposals)
        if scratch.withheld and not is_refusal(answer):
            pass  # in place of the answer withheld, code quoted the notes asked about, each with its link: no footer
        elif not is_bare_refusal(answer):  # "Based on the notes provided, I couldn't find this …" is one too
            # In a thread: an answer no sentence bears out gets the closest sentences, ranked by the embedder.
            footer = await asyncio.to_thread(
                answer_footer,
                state,
                scratch,
                has_proposed=proposed,
                show_sources=self._deps.show_sources,
                show_evidence=self._deps.show_evidence,
                today=self._deps.clock().date(),
                similarity=self._deps.retriever.similarities,
            )
            write_text(write, scratch.show(footer))
        elif not proposed:
            footer = await asyncio.to_thread(
                refusal_footer,
                answer,
                state,
                show_sources=self._deps.show_sources,
                show_evidence=self._deps.show_evidence,
                withheld=scratch.withheld,
                similarity=self._deps.retriever.similarities,
            )
            write_text(write, scratch.show(footer))
        shown = scratch.shown_text
        reply = to_record(ChatMessage(role="assistant", content=shown))
        return {"messages": [*state["messages"], reply], "answer": shown, **TURN_INPUTS_CLEARED}

    async def _run_tool(self, call: ToolCall, scratch: TurnScratch) -> str:
        if call.name not in {tool.name for tool in scratch.offered}:
            # A call written as text may name any tool (or one not offered this turn): only offered ones run.
            return unoffered_call_error(call, scratch.offered)
        tools: ToolBox = self._deps.tools
        if scratch.writes is not None and scratch.writes.has_tool(call.name):
            tools = scratch.writes
        try:
            result = await tools.run(call.name, call.arguments)
        except AppError as exc:
            # A failed tool call goes back to the model as data it can act on (the one place errors travel as data).
            return f"Error: {exc.message}{other_tool_hint(call, scratch.offered)}"
        scratch.checker.allowed.update(result.anchors)
        return result.text


def route_coverage(state: AgentState) -> Literal["call_model", "propose_by_contract", "refuse"]:
    """Ask the model only when the notes cover the question; a change request may go through a contract."""
    if not state.get("is_covered"):
        return "refuse"
    return "propose_by_contract" if state.get("is_contract") else "call_model"


def route_after_model(state: AgentState) -> Literal["run_tools", "finish_answer"]:
    """Run tools when the last reply asked for them, else finish."""
    last = state["messages"][-1]
    return "run_tools" if last["role"] == "assistant" and last.get("tool_calls") else "finish_answer"


def build_graph(deps: AgentDeps) -> StateGraph[AgentState]:
    """Return the uncompiled graph; wiring compiles it with a checkpointer."""
    nodes, retrieve, contract = AgentNodes(deps), RetrieveNode(deps), ContractNode(deps)
    builder: StateGraph[AgentState] = StateGraph(AgentState)
    for node in (
        nodes.prepare_turn,
        retrieve.retrieve_context,
        nodes.call_model,
        nodes.run_tools,
        contract.propose_by_contract,
        nodes.refuse,
        nodes.finish_answer,
    ):
        builder.add_node(node.__name__, node)
    builder.add_edge(START, "prepare_turn")
    builder.add_edge("prepare_turn", "retrieve_context")
    builder.add_conditional_edges("retrieve_context", route_coverage)
    builder.add_conditional_edges("call_model", route_after_model)
    builder.add_edge("run_tools", "call_model")
    builder.add_edge("propose_by_contract", END)
    builder.add_edge("refuse", END)
    builder.add_edge("finish_answer", END)
    return builder
