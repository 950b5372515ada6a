"""The graph's propose_by_contract node: a change request proposed from one constrained model reply, no tools.

Chosen for a model not seen making structured tool calls, and for a map of content or a tag for many notes, which
code builds whatever the model (agent/change_contract/).
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer

from agent.answer_footer import latest_question
from agent.change_contract import ContractProposer
from agent.change_contract.moc import SEARCH_DEPTH as MOC_SEARCH_DEPTH
from agent.change_contract.moc import TopicSearch, moc_request, propose_moc
from agent.change_contract.proposer import ContractOutcome
from agent.change_contract.topic_tags import propose_tags, tag_request
from agent.graph_deps import AgentDeps, scratch_of, write_text
from agent.retrieve_node import previous_reply
from agent.state import TURN_INPUTS_CLEARED, AgentState, MessageRecord, to_record
from core.chat import ChatMessage
from core.errors import InvalidRequest
from rag.answer.citations import note_of
from rag.notes.inline import WIKILINK


class ContractNode:
    """The node that proposes a change by contract; its method's name is the node's name."""

    def __init__(self, deps: AgentDeps) -> None:
        self._deps = deps

    async def propose_by_contract(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Propose the requested change from one constrained model reply (agent/change_contract/); no tools."""
        scratch = scratch_of(config)
        writes = scratch.writes
        if writes is None:  # routed here only with write tools; the type checker cannot know
            raise InvalidRequest("the vault is read-only: no change can be proposed")
        write = get_stream_writer()
        write({"status": "reading your change request…"})
        request = latest_question(state["messages"])
        if (moc := moc_request(request)) is not None:
            text, _ = await propose_moc(moc, request, writes, search=self._topic_search)
            outcome = ContractOutcome(text, is_proposed=bool(writes.proposals))
        elif (tags := tag_request(request)) is not None:
            previous = previous_reply(state["messages"])
            text, _ = await propose_tags(tags, writes, search=self._topic_search, previous=previous)
            outcome = ContractOutcome(text, is_proposed=bool(writes.proposals))
        else:
            outcome = await ContractProposer(self._deps.chat_model).propose(
                request, writes, hits=state.get("hit_paths", []), cited=cited_before(state["messages"])
            )
        for usage in outcome.usage:
            scratch.add_usage(usage)
        write_text(write, scratch.show(outcome.text))
        reply = to_record(ChatMessage(role="assistant", content=scratch.shown_text))
        return {"messages": [*state["messages"], reply], "answer": scratch.shown_text, **TURN_INPUTS_CLEARED}

    def _topic_search(self, topic: str) -> TopicSearch:
        """Return the notes a search for `topic` finds (best first) and the gate's verdict on each, embedded once."""
        deps = self._deps
        embedding = deps.retriever.embed_query(topic)
        hits = deps.retriever.search(topic, k=MOC_SEARCH_DEPTH, embedding=embedding)
        ranked = list(dict.fromkeys(hit.chunk.path for hit in hits))
        return TopicSearch(ranked, lambda path: deps.gate.covers_note(topic, path, embedding=embedding))


def cited_before(records: list[MessageRecord]) -> list[str]:
    """Return the notes the assistant's reply before this turn links, in order: what "that note" may mean."""
    return list(dict.fromkeys(note_of(link[2]) for link in WIKILINK.finditer(previous_reply(records))))
