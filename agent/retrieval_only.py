"""Answering without a language model: the best passages with citations, or the one refusal wording."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from functools import partial

from agent.answer_footer import SEARCHED_NOTES, with_listed_item
from agent.day_notes import NamedDays, is_about_days_alone, passages_for
from agent.gate.intent import is_surely_change_request
from agent.named_note import NamedNote, note_passages
from agent.notes_list import ChangedAt, listed_notes
from agent.source_question import (
    answer_before,
    asks_for_sources,
    earlier_context,
    questions_before,
    sources_reply,
    with_answer_notes,
)
from agent.state import MessageRecord
from agent.tools.list_reply import ListReply
from core.chat import AnswerDone, AnswerEvent, AnswerStatus, AnswerText, TurnRequest, Usage
from core.domain import SearchHit
from core.errors import InvalidRequest
from rag.answer.citations import note_path
from rag.answer.passages import NO_MODEL_CHANGES, retrieval_only_reply
from rag.answer.relevance_gate import RelevanceGate
from rag.notes.links import LinkResolver
from rag.retrieve import Retriever


def latest_question(request: TurnRequest) -> str:
    """Return the text of the last user message (the edge guarantees there is one), a list item it names as a link.

    "Summarize the second one" after a list of notes searches the second note, as with a model.
    """
    questions = user_texts(request)
    if not questions:
        raise InvalidRequest("the conversation has no user message with text to answer")
    records: list[MessageRecord] = [{"role": message.role, "content": message.content} for message in request.messages]
    return with_listed_item(questions[-1], records)


def user_texts(request: TurnRequest) -> list[str]:
    """Return the texts of the user messages, in order."""
    return [
        message.content.strip() for message in request.messages if message.role == "user" and message.content.strip()
    ]


def previous_reply(request: TurnRequest) -> str:
    """Return the assistant's last answer before the last user message, not a "which note says that?" reply."""
    last_user = max((i for i, message in enumerate(request.messages) if message.role == "user"), default=0)
    return answer_before([(message.role, message.content) for message in request.messages[:last_user]])


def estimate_tokens(text: str) -> int:
    """Return an honest estimate of tokens (about four characters each) when no model counted them."""
    return max(1, round(len(text) / 4)) if text else 0


class RetrievalOnlyAnswerer:
    """Answers with retrieved passages when no LLM endpoint is configured or reachable."""

    def __init__(
        self,
        retriever: Retriever,
        gate: RelevanceGate,
        *,
        top_k: int,
        note_paths: Callable[[], Iterable[str]] = tuple,
        base_embeds: Callable[[Sequence[SearchHit]], list[SearchHit]] | None = None,
        property_records: Callable[[Sequence[SearchHit], str], list[SearchHit]] | None = None,
        code_lists: Callable[[str, Sequence[str]], ListReply | None] | None = None,
        day_notes: Callable[[str], NamedDays] | None = None,
        named_notes: Callable[[str], NamedNote | None] | None = None,
        changed_at: ChangedAt | None = None,
    ) -> None:
        self._retriever = retriever
        self._day_notes = day_notes  # the notes of the days a question names, found by name (agent/day_notes.py)
        self._named_notes = named_notes  # the one note a request asks about as a whole (agent/named_note.py)
        self._changed_at = changed_at  # when the notes' files last changed ("When did I last write about X?")
        self._code_lists = code_lists  # tasks by date or place, links, tags: listed by code (agent/tools/code_lists.py)
        self._base_embeds = base_embeds  # the rows of the base views passages embed (agent/tools/bases/embeds.py)
        self._property_records = property_records  # the properties asked for (rag/answer/property_records.py)
        self._gate = gate
        self._top_k = top_k
        self._note_paths = note_paths  # the indexed notes: a link the client sends back must name one

    @property
    def mode(self) -> str:
        """Return the mode shown by /ready."""
        return "retrieval-only"

    async def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        """Yield the passages reply line by line (so streaming clients see it arrive), then AnswerDone."""
        question = latest_question(request)
        asked = user_texts(request)
        earlier = earlier_context(asked)
        last_reply = previous_reply(request)
        if asks_for_sources(question):  # "which note says that?": the reply before it, not a search
            reply = await asyncio.to_thread(self._sources_reply, last_reply)
        else:
            yield AnswerStatus("searching your notes…")
            reply = await asyncio.to_thread(self._reply, question, earlier, questions_before(asked), last_reply)
        for line in reply.splitlines(keepends=True):
            yield AnswerText(line)
        prompt = sum(estimate_tokens(m.content) for m in request.messages)
        yield AnswerDone(usage=Usage(prompt, estimate_tokens(reply), is_estimate=True))

    def _sources_reply(self, last_reply: str) -> str:
        resolver = LinkResolver(self._note_paths())

        def checked(link: str) -> str | None:
            return link if note_path(resolver, link) is not None else None

        return sources_reply(last_reply, checked=checked)

    def _reply(self, question: str, earlier: str, asked_before: Sequence[str], last_reply: str) -> str:
        if is_surely_change_request(question):  # a question starting with an edit verb still gets passages
            return NO_MODEL_CHANGES
        unready = self._retriever.unready_reason()  # an empty vault, or the first index still running
        if unready is not None:
            return unready
        if self._code_lists is not None and (code_list := self._code_lists(question, asked_before)) is not None:
            return code_list.text  # "Which tasks are due today?", "Which notes link to Books?": code lists them
        query = self._retriever.prepare(question, earlier)  # a follow-up is also searched after `earlier`
        if query.in_context is not None:  # "Which one was the fastest?": also among the notes of the reply before
            resolver = LinkResolver(self._note_paths())
            query = with_answer_notes(query, last_reply, partial(note_path, resolver))
        days = self._day_notes(question) if self._day_notes is not None else NamedDays()
        # A request about the days alone ("What did I do yesterday?") is covered by their notes, whatever its words.
        only_days = is_about_days_alone(days, question)
        # "Summarize the ACME note": that note's passages, whatever its words.
        note = self._named_notes(question) if self._named_notes is not None and not only_days else None
        hits = note_passages(self._retriever, query, note, k=self._top_k) if note else []
        covered = bool(hits) or only_days or self._gate.covers(query)
        # "List my notes about X": the notes found about it (agent/notes_list.py).
        if covered and (
            listed := listed_notes(question, self._retriever, query, self._top_k, changed_at=self._changed_at)
        ):
            return listed.text
        if not covered:  # the nearest sections all the same, as with a model (agent/retrieve_node.floor_refusal)
            nearest = self._retriever.nearest_sections(query, limit=SEARCHED_NOTES)
            return retrieval_only_reply(question, [], covered=False, nearest=nearest)
        hits = hits or passages_for(self._retriever, query, days, k=self._top_k, alone=only_days)
        if hits and self._base_embeds is not None:
            hits = self._base_embeds(hits)
        if hits and self._property_records is not None:
            hits = self._property_records(hits, question)
        return retrieval_only_reply(question, hits, covered=covered)
