"""The graph's retrieve_context node: search the notes for the latest question before the model runs.

"Which note says that?" is answered here from the reply before it, without a search.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer

from agent.answer_footer import SEARCHED_NOTES, earlier_question, latest_question, user_questions_before
from agent.day_notes import NamedDays, is_about_days_alone, passages_for
from agent.gate.intent import looks_like_edit_request
from agent.graph_deps import AgentDeps, scratch_of
from agent.history import model_history
from agent.named_note import NamedNote, note_passages
from agent.notes_list import listed_notes
from agent.passage_budget import passage_chars
from agent.source_question import answer_before, asks_for_sources, sources_reply, with_answer_notes
from agent.state import AgentState, MessageRecord, turn_start
from agent.tool_offer import is_contract_request, offers_tools
from core.domain import SearchHit
from rag.answer.citations import note_of, sources_list
from rag.answer.context import REFUSAL, build_context
from rag.answer.note_outlines import is_about_note

T = TypeVar("T")


class RetrieveNode:
    """The node that searches the notes; its method's name is the node's name."""

    def __init__(self, deps: AgentDeps) -> None:
        self._deps = deps

    async def retrieve_context(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Search the notes for the latest question, unless the relevance floor says they don't cover it.

        "Which note says that?" is neither searched nor judged: the reply is what the last answer came from.
        """
        deps = self._deps
        question = latest_question(state["messages"])
        reply_before = previous_reply(state["messages"])
        checker = scratch_of(config).checker
        if asks_for_sources(question):  # "which note says that?": the reply before it, not a search
            checked = partial(_linked, checker.check)  # a link the client sent back, as the vault has it
            return {
                "is_covered": False,
                "answer": await _in_thread(lambda: sources_reply(reply_before, checked=checked)),
            }
        get_stream_writer()({"status": "searching your notes…"})
        unready = await _in_thread(deps.retriever.unready_reason)  # an empty vault, or the first index running
        if unready is not None:
            return {"is_covered": False, "answer": unready}
        # An edit request ("add a task to today's note") is no question the notes must cover: the floor stays out.
        edit_like = looks_like_edit_request(question)
        is_edit = scratch_of(config).writes is not None and edit_like
        # "Which tasks are due today?", "What tasks are in ACME?", "Which notes link to Books?": listed by code from the
        # vault itself, no model asked (agent/tools/code_lists.py).
        # Not for a request to add one ("Add a task for tomorrow: …"), in a vault that can be changed or not.
        code_lists = None if edit_like else deps.code_lists
        if code_lists is not None and (
            code_list := await _in_thread(code_lists, question, user_questions_before(state["messages"]))
        ):
            scratch_of(config).checker.allowed.update(code_list.anchors)
            return {"is_covered": False, "answer": code_list.text}
        # Embedded once, for the floor and the search; "How did I rate it?" also after the question before it.
        earlier = earlier_question(state["messages"])
        query = await _in_thread(deps.retriever.prepare, question, earlier)
        query = with_answer_notes(query, reply_before, checker.note_path)  # "Which one was the fastest?"
        # The notes of the days it names, found by name (agent/day_notes.py). A request about those days alone ("What
        # did I do yesterday?") is covered by them whatever its words; any other question still meets the floor.
        days = NamedDays() if edit_like or deps.day_notes is None else await _in_thread(deps.day_notes, question)
        only_days = is_about_days_alone(days, question)
        # The one note a request asks about as a whole ("Summarize the ACME note"): covered by its passages, and read
        # alone; a note not indexed yet has none, and the request goes on as any other.
        note = None if edit_like or only_days else await _in_thread(_named_note, deps, question)
        hits = await _in_thread(partial(note_passages, deps.retriever, query, note, k=deps.top_k)) if note else []
        note = note if hits else None
        if not is_edit and not only_days and note is None and not await _in_thread(lambda: deps.gate.covers(query)):
            # Below the floor, still the nearest sections, as a refusal of the model's lists them: a question worded
            # unlike its note ("the quick way", "credential") may fall under it with that note found first.
            nearest = await _in_thread(lambda: deps.retriever.nearest_sections(query, limit=SEARCHED_NOTES))
            scratch_of(config).checker.allowed.update(nearest)
            return {"is_covered": False, "answer": floor_refusal(nearest if deps.show_sources else [])}
        # "When is the race?" is answered about the half marathon asked of before: its answer is checked so too.
        follows = earlier if query.in_context is not None and not query.is_topic_switch else ""
        # "List my notes about Hyprland": the notes the search finds about it, listed by code (agent/notes_list.py).
        listing = partial(listed_notes, question, deps.retriever, query, deps.top_k, changed_at=deps.changed_at)
        if not edit_like and (listed := await _in_thread(listing)):
            scratch_of(config).checker.allowed.update(listed.anchors)
            return {"is_covered": False, "answer": listed.text}
        if not hits:
            hits = await _in_thread(lambda: passages_for(deps.retriever, query, days, k=deps.top_k, alone=only_days))
        hit_paths = list(dict.fromkeys(hit.chunk.path for hit in hits))
        if is_contract_request(deps, question, scratch_of(config)):
            scratch_of(config).checker.allowed.update(hit.chunk.anchor for hit in hits)
            return {"is_covered": True, "is_contract": True, "hit_paths": hit_paths}
        budget = passage_chars(
            deps.passage_chars,
            first_token_seconds=deps.first_token_seconds,
            tokens_per_second=deps.chat_model.prompt_tokens_per_second(),
            read_with="\n".join(str(record.get("content", "")) for record in model_history(state["messages"])),
            sample="".join(hit.chunk.text for hit in hits),
        )
        # Room the hits leave in the passages may go to the chunks around the best one (rag/answer/neighbours.py);
        # the hits' sections stay first in `allowed`, which "Notes searched:" lists from.
        around = (
            await _in_thread(
                lambda: deps.retriever.with_neighbours(hits, max_chars=budget, max_distance=deps.neighbour_chunks)
            )
            if deps.neighbour_chunks
            else hits
        )
        if deps.base_embeds is not None:  # `![[Trips.base#Location]]`: the rows the note shows, not the embed alone
            around = await _in_thread(deps.base_embeds, around)
        if deps.property_records is not None:  # "in which year?": the note's `year:` row, which no chunk holds
            around = await _in_thread(deps.property_records, around, question)
        # "Which AI models did I test?": the sections of "AI Models I Tested". Not asked about days alone: the week's
        # own note comes first already, and with its sections listed the 1.5B refused "Summarize the week of …".
        if deps.note_outlines is not None and not only_days:
            around = await _in_thread(deps.note_outlines, around, question)
        anchors = list(dict.fromkeys(hit.chunk.anchor for hit in [*hits, *around]))
        scratch_of(config).checker.allowed.update(anchors)
        # A model answering from the passages alone (no tools this turn) cites `source` and needs no path or lines.
        with_location = offers_tools(deps, question)
        context = await _in_thread(
            lambda: build_context(
                around, question, max_chars=budget, note_text=deps.note_text, with_location=with_location
            )
        )
        return {
            "is_covered": True,
            "context": context,
            "allowed": anchors,
            "hit_paths": hit_paths,
            "follows": follows,
            "named_days": days.as_record(),
            "named_note": note.anchor if note else "",
            "titled_note": _titled_note(question, hits) if note is None and not only_days else "",
        }


def _titled_note(question: str, hits: list[SearchHit]) -> str:
    """Return the link of the best hit's note when `question` is worded as its title ("" for none).

    "Which AI models did I test?" over vaultofknowledge: the note "AI Models I Tested" first, its sections listed
    beside (rag/answer/note_outlines.py), and the 0.5B refused; the note is then quoted in place of the refusal.
    """
    if not hits or not is_about_note(question, hits[0].chunk.title):
        return ""
    return f"[[{note_of(hits[0].chunk.anchor)}]]"


def _named_note(deps: AgentDeps, question: str) -> NamedNote | None:
    return deps.named_notes(question) if deps.named_notes is not None else None


def floor_refusal(nearest: list[str]) -> str:
    """Return the refusal of a question the notes do not cover, with the `nearest` sections as "Notes searched:"."""
    listed = sources_list((), fallback=nearest, limit=SEARCHED_NOTES)
    return f"{REFUSAL}\n\n{listed}" if listed else REFUSAL


def previous_reply(records: list[MessageRecord]) -> str:
    """Return the assistant's last answer before this turn, not a "which note says that?" reply ("" for none)."""
    before = records[: turn_start(records)]
    return answer_before([(record["role"], str(record.get("content") or "")) for record in before])


def _linked(check: Callable[[str], str], link: str) -> str | None:
    """Return `link` as the citation check shows it, or None when it names no note of the vault."""
    shown = check(link)
    return shown if shown.startswith("[[") else None


async def _in_thread(function: Callable[..., T], *args: Any) -> T:
    return await asyncio.to_thread(function, *args)
