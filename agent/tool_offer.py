"""Whether a turn is offered tools, and whether a change request goes through a change contract instead."""

from __future__ import annotations

from agent.change_contract.moc import moc_request
from agent.change_contract.topic_tags import tag_request
from agent.gate.intent import asked_change
from agent.graph_deps import AgentDeps
from agent.turn import TurnScratch


def asks_change(question: str) -> bool:
    """Return True when the message asks for a change, not to follow a note's instructions (which gets no tools)."""
    intent = asked_change(question)
    return intent.is_change and not intent.follows_note


def offers_tools(deps: AgentDeps, question: str) -> bool:
    """Return True when this message is offered tools, by the rule `call_model` offers them by.

    A change, or a question to a model that makes structured tool calls; the passages say where they are only then.
    """
    model = deps.chat_model.model_name
    tool_use = deps.tool_use
    return tool_use.is_offered(model) and (asks_change(question) or tool_use.is_offered_on_questions(model))


def is_contract_request(deps: AgentDeps, question: str, scratch: TurnScratch) -> bool:
    """Return True when this change request goes through a change contract rather than free tool calls."""
    is_change = scratch.writes is not None and asks_change(question)
    # A map of content, or a tag for many notes, is built by code whatever the model (agent/change_contract/).
    is_code_only = moc_request(question) is not None or tag_request(question) is not None
    return is_change and (is_code_only or deps.tool_use.uses_contract(deps.chat_model.model_name))
