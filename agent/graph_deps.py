"""What the agent graph's nodes share: their dependencies (`AgentDeps`), the turn's scratch and the text stream."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langchain_core.runnables import RunnableConfig

from agent.context_fit import ContextWindow
from agent.day_notes import NamedDays
from agent.named_note import NamedNote
from agent.notes_list import ChangedAt
from agent.tool_use import ToolUse
from agent.tools.list_reply import ListReply
from agent.turn import ToolBox, TurnScratch
from core.domain import SearchHit
from core.ports import ChatModel
from rag.answer.context import PASSAGE_CHARS
from rag.answer.relevance_gate import RelevanceGate
from rag.retrieve import Retriever

FIXED_NODES = 4  # prepare_turn, retrieve_context, the last call_model, finish_answer


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
    tool_use: ToolUse = field(default_factory=ToolUse)  # whether the model is offered tools (LLM_TOOLS)
    context: ContextWindow | None = None  # the model's context window; None: prompts are not fitted
    # The indexed markdown of a note by path: where a trimmed passage's lines are (None: estimated from the chunk).
    note_text: Callable[[str], str | None] | None = None
    # Questions answered without tools quote the passages first and are answered from verified quotes only
    # (ANSWER_QUOTES; off by default there too).
    quote_first: bool = False
    # A plain answer's opening is shown only when the notes bear it out, else the service refuses (ANSWER_CHECK).
    check_answers: bool = False
    # Under an answer, the sentences of the notes it read that hold what it says (SHOW_EVIDENCE).
    show_evidence: bool = True
    # Characters of note text sent with each question (ANSWER_PASSAGE_CHARS), at most.
    passage_chars: int = PASSAGE_CHARS
    # Seconds the model may take to read them (ANSWER_FIRST_TOKEN_SECONDS; 0: no limit): fewer for a slow reader.
    first_token_seconds: float = 0.0
    # Chunks around the best hit that may fill the room the passages leave (ANSWER_NEIGHBOUR_CHUNKS; 0: none).
    neighbour_chunks: int = 0
    # The base views passages embed, written out as the embedding note shows them (agent/tools/bases/embeds.py).
    base_embeds: Callable[[Sequence[SearchHit]], list[SearchHit]] | None = None
    # The properties a question asks for of the notes its passages come from, after them (rag/answer/property_records).
    property_records: Callable[[Sequence[SearchHit], str], list[SearchHit]] | None = None
    # The sections of the note a question names by its title's words, after its passages (rag/answer/note_outlines).
    note_outlines: Callable[[Sequence[SearchHit], str], list[SearchHit]] | None = None
    # The reply listing what a question asks for that code lists: tasks by date or of a note or folder, the notes
    # linking to a note, the notes of a tag, the tags (agent/tools/code_lists.py; None: not looked for). Called with
    # the question and the user's questions before it ("And tomorrow?", "Which of them are done?" ask again).
    code_lists: Callable[[str, Sequence[str]], ListReply | None] | None = None
    # The notes of the days a question names, searched beside its words (agent/day_notes.py; None: not looked for).
    day_notes: Callable[[str], NamedDays] | None = None
    # The one note a request asks about as a whole ("Summarize the ACME note"), read alone (agent/named_note.py).
    named_notes: Callable[[str], NamedNote | None] | None = None
    # When the notes' files last changed, for "When did I last write about X?" (agent/notes_list.py; None: not said).
    changed_at: ChangedAt | None = None

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


def write_text(write: Callable[[Any], None], text: str) -> None:
    """Send `text` to the turn's stream, unless it is empty."""
    if text:
        write({"text": text})
