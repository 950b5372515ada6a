"""Choosing how turns are answered: the agent when an LLM endpoint is configured, else retrieval-only mode."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable
from contextlib import AsyncExitStack
from datetime import datetime
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from agent.answerer import AgentAnswerer
from agent.chat_app_tasks import ChatAppTasks
from agent.context_fit import ContextWindow
from agent.day_notes import DayNotes
from agent.fallback import FallbackAnswerer
from agent.gate.edit_gate import EditGate
from agent.gate.vault_writes import AfterWrite
from agent.graph import build_graph
from agent.graph_deps import AgentDeps
from agent.named_note import NamedNotes
from agent.notes_list import files_changed_at
from agent.prompt_cache import WarmUp
from agent.prompt_cache import warm_up as warm_up_model
from agent.propose import ProposalToolbox
from agent.retrieval_only import RetrievalOnlyAnswerer
from agent.tool_use import ToolUse
from agent.tools import ToolRegistry, VaultReader
from agent.tools.bases.embeds import BaseEmbeds
from agent.tools.code_lists import CodeLists
from app.process.tracing import TracedAnswerer
from app.services.crew_chat import CrewChatAnswerer
from app.wiring import EditServices, Services
from core.chat import AnswerText, ChatMessage, TurnRequest
from core.errors import AppError
from core.llm_endpoints import key_values
from core.ports import Answerer, ChatModel, DocStore
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel, build_chat_model
from llm_client.prompt_speed import PromptSpeed
from rag.answer.note_outlines import NoteOutlines
from rag.answer.property_records import PropertyRecords
from rag.answer.relevance_gate import RelevanceGate
from rag.answer.secrets import caching_redactor

if TYPE_CHECKING:
    from crews.service import CrewService

logger = logging.getLogger(__name__)
CHECKPOINTS_FILE = "checkpoints.sqlite"
SPEED_FILE = "prompt_speed.json"  # how fast the model reads prompts (llm_client/prompt_speed.py), per model
AUTO_APPLY_WARNING = (
    "WRITE_CONFIRM=false: every change the model proposes is APPLIED WITHOUT ASKING. Any note the model reads, "
    "including one with planted instructions, can make it change your vault. Use this only with a trusted model "
    "and vault; changes can still be undone with `librarian undo`."
)
EXPIRY_INTERVAL_SECONDS = 24 * 3600
# Distinct texts kept masked (system prompts, history messages, tool results): the history comes again every turn.
PROMPT_MASK_CACHE = 1024


def local_now() -> datetime:
    """Return the local time (the date in the prompt is the user's today, not UTC's)."""
    return datetime.now().astimezone()


async def find_chat_model(settings: Settings, stack: AsyncExitStack) -> ChatModel | None:
    """Return the configured (or probed) LLM endpoint, closed with `stack`; None means retrieval-only mode.

    With REDACT_SECRETS every text it sends is masked, history a chat client resends included. How fast the model
    reads prompts is kept in DATA_DIR (SPEED_FILE), so a process starts from what the last one measured.
    """
    mask = caching_redactor(PROMPT_MASK_CACHE) if settings.redact_secrets else None
    model = await build_chat_model(settings.llm, mask=mask, prompt_speed=PromptSpeed(settings.data_dir / SPEED_FILE))
    if model is not None:
        stack.push_async_callback(model.aclose)
    return model


async def build_answerer(
    settings: Settings,
    services: Services,
    chat_model: ChatModel | None,
    stack: AsyncExitStack,
    *,
    edits: EditServices | None = None,
    after_write: AfterWrite | None = None,
    crews: CrewService | None = None,
    tool_use: ToolUse | None = None,
    warm_up: WarmUp | None = None,
) -> Answerer:
    """Return the answerer for this configuration; resources it opens are closed by `stack`.

    With a model the agent answers, and falls back to retrieval-only replies on turns where the model fails
    before answering (an endpoint that is down, e.g. Docker's default host.docker.internal without Ollama).
    With `edits`, the agent gets the propose-only write tools (unless the vault is read-only) and every turn
    passes the edit gate, which applies or undoes changes only on the user's yes. `warm_up`: do now, in the
    background, what the first question would wait for: the relevance gate's probe embeddings, and the model
    server's evaluation of the stable prompt prefix (agent/prompt_cache.py), its progress kept there for /ready.
    """
    answerer = await _build_unguarded(settings, services, chat_model, stack, edits, tool_use, warm_up=warm_up)
    if edits is None:
        chores = ChatAppTasks(answerer, chat_model, max_tokens=settings.llm.max_tokens)
        return TracedAnswerer(chores)  # each turn one span, when tracing is on
    if crews is not None and edits.writer is not None:  # "run the X crew": a dry run whose writes wait for a yes
        answerer = CrewChatAnswerer(
            answerer, crews, edits.store, ttl_minutes=edits.settings.proposal_ttl_minutes, clock=local_now
        )
    gate = EditGate(
        answerer,
        store=edits.store,
        log=edits.log,
        writer=edits.writer,
        settings=edits.settings,
        clock=local_now,
        lock=edits.lock,
        after_write=after_write,
    )
    # Outermost, so the gate's applies and undos are spans of the turn; a chat app's chore never reaches the gate.
    return TracedAnswerer(ChatAppTasks(gate, chat_model, max_tokens=settings.llm.max_tokens))


def indexed_text(docstore: DocStore) -> Callable[[str], str | None]:
    """Return a lookup of a note's indexed markdown by path (where a trimmed passage's lines are found)."""

    def text(path: str) -> str | None:
        doc = docstore.get(path)
        return None if doc is None else doc.markdown

    return text


def log_write_mode(edits: EditServices) -> None:
    """Say at start how approved edits are written; loudly when they are applied without asking."""
    if edits.writer is None:
        logger.info("WRITE_BACKEND=none: the vault is read-only; no write tools are offered")
    elif not edits.settings.confirm:
        logger.warning(AUTO_APPLY_WARNING)


def toolbox_factory(
    edits: EditServices, reader: VaultReader, clock: Callable[[], datetime]
) -> Callable[[str], ProposalToolbox]:
    """Return a function that makes one turn's propose-only write tools for a conversation id."""

    def make(conversation_id: str) -> ProposalToolbox:
        return ProposalToolbox(reader, edits.store, edits.settings, conversation_id=conversation_id, clock=clock)

    return make


async def _build_unguarded(
    settings: Settings,
    services: Services,
    chat_model: ChatModel | None,
    stack: AsyncExitStack,
    edits: EditServices | None,
    tool_use: ToolUse | None = None,
    *,
    warm_up: WarmUp | None = None,
) -> Answerer:
    gate = RelevanceGate.from_settings(services.embedder, services.store, settings.answer)
    if warm_up is not None:  # the probe questions of the relevance gate, embedded in a worker thread
        preparing = asyncio.create_task(asyncio.to_thread(gate.prepare), name="prepare-relevance-gate")
        stack.push_async_callback(_cancel, preparing)
    reader = VaultReader(settings.vault, services.retriever)  # one reader: its parsed-notes cache serves every turn
    base_embeds, code_lists = BaseEmbeds(reader).expand, CodeLists(reader).reply_for
    day_notes, named_notes = DayNotes(reader).named, NamedNotes(reader).named
    changed_at = files_changed_at(reader)
    property_records = PropertyRecords(indexed_text(services.docstore), redact=settings.redact_secrets).add
    passages = RetrievalOnlyAnswerer(
        services.retriever,
        gate,
        top_k=settings.top_k,
        note_paths=services.docstore.paths,
        base_embeds=base_embeds,
        property_records=property_records,
        code_lists=code_lists,
        day_notes=day_notes,
        named_notes=named_notes,
        changed_at=changed_at,
    )
    if chat_model is None:
        return passages  # said once, at start (app/http/main.py), and in the reply itself
    checkpoints = str(settings.data_dir / CHECKPOINTS_FILE)
    saver = await stack.enter_async_context(AsyncSqliteSaver.from_conn_string(checkpoints))
    deps = AgentDeps(
        chat_model=chat_model,
        tools=ToolRegistry(reader),
        retriever=services.retriever,
        gate=gate,
        top_k=settings.top_k,
        show_sources=settings.show_sources,
        recursion_limit=settings.agent_recursion_limit,
        clock=local_now,
        tool_use=tool_use or ToolUse(settings.llm.tools),
        context=ContextWindow(
            chat_model, configured=settings.llm.context_tokens, answer_tokens=settings.llm.max_tokens
        ),
        note_text=indexed_text(services.docstore),
        quote_first=settings.answer.quote_first,
        check_answers=settings.answer.check_answers,
        show_evidence=settings.answer.show_evidence,
        passage_chars=settings.answer.passage_chars,
        first_token_seconds=settings.answer.first_token_seconds,
        neighbour_chunks=settings.answer.neighbour_chunks,
        base_embeds=base_embeds,
        property_records=property_records,
        note_outlines=NoteOutlines(indexed_text(services.docstore)).add,
        code_lists=code_lists,
        day_notes=day_notes,
        named_notes=named_notes,
        changed_at=changed_at,
    )
    graph = build_graph(deps).compile(checkpointer=saver)
    write_tools = toolbox_factory(edits, reader, local_now) if edits is not None and edits.writer else None
    agent = AgentAnswerer(
        graph, services.docstore, recursion_limit=settings.agent_recursion_limit, write_tools=write_tools
    )
    expiry = asyncio.create_task(expire_conversations_daily(agent), name="expire-conversations")
    stack.push_async_callback(_cancel, expiry)
    if warm_up is not None and settings.llm.warm_up:
        # The tools every question would be offered (the cued ones and the write tools come after them).
        offered = deps.tools.specs("") if deps.tool_use.is_offered(chat_model.model_name) else []
        warm_up.status = "running"  # from now: a question asked before the task starts waits behind it too
        warming_up = warm_up_model(chat_model, offered, deps.tool_use, quote_first=deps.quote_first, progress=warm_up)
        warming = asyncio.create_task(warming_up, name="warm-up-model")
        stack.push_async_callback(_cancel, warming)
    # A probed endpoint is known only to the client; a configured one is in the settings too.
    endpoints = chat_model.base_urls if isinstance(chat_model, OpenAICompatibleChatModel) else settings.llm.base_urls
    return FallbackAnswerer(agent, passages, endpoints=endpoints, secrets=key_values(settings.llm))


async def expire_conversations_daily(agent: AgentAnswerer) -> None:
    """Forget conversations idle for longer than the agent's limit, once at start and then daily."""
    while True:
        try:
            removed = await agent.expire_idle_conversations()
        except AppError as exc:
            logger.warning("expiring old conversations failed: %s", exc.message)
        else:
            if removed:
                logger.info("forgot %d conversation(s) idle for more than 30 days", removed)
        await asyncio.sleep(EXPIRY_INTERVAL_SECONDS)


async def _cancel(task: asyncio.Task[Any]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def stream_answer(settings: Settings, services: Services, question: str, write: Callable[[str], None]) -> None:
    """Answer one question in this process (the CLI), passing the answer's text to `write` as it streams."""
    async with AsyncExitStack() as stack:
        chat_model = await find_chat_model(settings, stack)
        answerer = await build_answerer(settings, services, chat_model, stack)
        turn = TurnRequest(conversation_id=f"cli:{uuid.uuid4().hex}", messages=(ChatMessage("user", question),))
        async for event in answerer.answer(turn):
            if isinstance(event, AnswerText):
                write(event.text)
