"""The agent's state in LangGraph, kept as plain JSON records so checkpoints never depend on our classes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from core.chat import ChatMessage, ToolCall

MessageRecord = dict[str, Any]


class AgentState(TypedDict, total=False):
    """What a conversation's checkpoint holds, plus the working fields of the current turn."""

    messages: list[MessageRecord]  # the whole conversation, tool messages included
    incoming: list[MessageRecord]  # the client's history for this turn (input only)
    context: str  # retrieved passages for this turn, as <note> elements
    allowed: list[str]  # citation anchors retrieved or read this turn
    is_covered: bool  # False: the notes don't cover the question, refuse without asking the model
    tool_rounds: int  # model calls that asked for tools this turn
    answer: str  # the checked text of the model's final reply; at the end, the whole reply as the user saw it
    is_stopped_early: bool  # the model still asked for tools when none were left: the answer says it stopped
    is_contract: bool  # a change request proposed through a change contract (agent/change_contract/), no tools
    hit_paths: list[str]  # the notes retrieved for this turn, in rank order (the contract's fallback targets)
    follows: str  # the questions a follow-up leans on, as the search read it ("" for a question on its own)
    named_days: dict[str, Any]  # the days the question names and their notes (agent/day_notes.NamedDays.as_record)
    named_note: str  # the link of the one note a request asks about as a whole, read alone ("" for none)
    titled_note: str  # the link of the best hit's note when the question is worded as its title ("" for none)


# Written by the last node of a turn: the client's history and the retrieved notes are per-turn input that
# would otherwise be stored again in every checkpoint.
TURN_INPUTS_CLEARED: AgentState = {"incoming": [], "context": ""}


def turn_start(records: Sequence[MessageRecord]) -> int:
    """Return the index where this turn begins: its latest user message (0 when there is none)."""
    return next((i for i in range(len(records) - 1, -1, -1) if records[i]["role"] == "user"), 0)


def to_record(message: ChatMessage) -> MessageRecord:
    """Return a message as a JSON-able record."""
    record: MessageRecord = {"role": message.role, "content": message.content}
    if message.tool_calls:
        record["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls]
    if message.tool_call_id is not None:
        record["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        record["name"] = message.name
    return record


def from_record(record: MessageRecord) -> ChatMessage:
    """Return the message a record holds."""
    calls = tuple(ToolCall(c["id"], c["name"], c["arguments"]) for c in record.get("tool_calls", ()))
    return ChatMessage(
        role=record["role"],
        content=record.get("content", ""),
        tool_calls=calls,
        tool_call_id=record.get("tool_call_id"),
        name=record.get("name"),
    )
