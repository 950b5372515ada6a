"""Agent turns end to end below the HTTP edge: the real graph, SQLite checkpoints and a scripted LLM server."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from agent.answer_footer import UNSUPPORTED_NOTICE
from agent.answerer import AgentAnswerer
from agent.graph import build_graph
from agent.graph_deps import AgentDeps
from agent.locks import ConversationLocks
from agent.tool_use import ToolUse
from agent.tools import ToolRegistry, VaultReader
from agent.turn import STOPPED_EARLY
from app.wiring import Services
from core.chat import AnswerDone, AnswerText, ChatMessage, TurnRequest
from core.errors import UpstreamUnavailable
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel
from rag.answer.quoted_evidence import CLOSEST_HEADING, EVIDENCE_HEADING
from rag.answer.relevance_gate import RelevanceGate
from tests.scripted_llm import ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

QUESTION = "How many garlic cloves did I plant?"
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


class Clock:
    """A settable clock."""

    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def indexed(services: Services) -> Services:
    services.reindexer.run_once()
    return services


@asynccontextmanager
async def agent(
    settings: Settings,
    services: Services,
    llm: ScriptedLLMServer,
    *,
    clock: Callable[[], datetime] | None = None,
    recursion_limit: int = 12,
    show_sources: bool = True,
) -> AsyncIterator[AgentAnswerer]:
    configured = settings.model_copy(update={"llm_base_url": (llm.base_url,)})
    model = OpenAICompatibleChatModel(configured.llm)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    async with AsyncSqliteSaver.from_conn_string(str(checkpoints_file(settings))) as saver:
        deps = AgentDeps(
            chat_model=model,
            tools=ToolRegistry(VaultReader(settings.vault, services.retriever)),
            retriever=services.retriever,
            gate=RelevanceGate(services.embedder, services.store, floor=-1.0),
            top_k=settings.top_k,
            show_sources=show_sources,
            recursion_limit=recursion_limit,
            clock=clock or Clock(),
            tool_use=ToolUse("on"),  # the scripts call tools on plain questions too
            show_evidence=show_sources,  # a bare reply ("Second.") asked for is compared whole
        )
        graph = build_graph(deps).compile(checkpointer=saver)
        try:
            yield AgentAnswerer(graph, services.docstore, recursion_limit=recursion_limit, clock=clock or Clock())
        finally:
            await model.aclose()


def checkpoints_file(settings: Settings) -> Path:
    return settings.data_dir / "turns.sqlite"


async def turn(answerer: AgentAnswerer, messages: Sequence[dict[str, str]], conversation: str = "c1") -> str:
    text, _ = await turn_with_done(answerer, messages, conversation)
    return text


async def turn_with_done(
    answerer: AgentAnswerer, messages: Sequence[dict[str, str]], conversation: str = "c1"
) -> tuple[str, AnswerDone]:
    request = TurnRequest(conversation, tuple(ChatMessage(m["role"], m["content"]) for m in messages))  # type: ignore[arg-type]
    pieces: list[str] = []
    done = AnswerDone()
    async for event in answerer.answer(request):
        if isinstance(event, AnswerText):
            pieces.append(event.text)
        elif isinstance(event, AnswerDone):
            done = event
    return "".join(pieces), done


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


def test_text_before_tool_calls_is_separated_and_stored_as_shown(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(
        Turn.tool_call("read_note", {"note": "Garlic"}, content="Let me look."),
        Turn.text("42 cloves [[Garlic]]."),
        Turn.text("In bed 3."),
    )

    async def run() -> tuple[str, list[dict[str, Any]]]:
        async with agent(settings, indexed, llm) as answerer:
            shown = await turn(answerer, [user(QUESTION)])
            await turn(answerer, [user(QUESTION), assistant(shown), user("Where?")])
            return shown, await answerer.stored_messages("c1")

    shown, stored = asyncio.run(run())

    assert shown.startswith(f"Let me look.\n\n42 cloves [[Garlic]].\n\n{EVIDENCE_HEADING}\n")
    assert shown.endswith("\n\nSources:\n- [[Garlic]]")
    assert [m["role"] for m in stored] == ["user", "assistant", "tool", "assistant", "user", "assistant"]
    assert stored[3]["content"] == shown  # the prefix matched: the first turn's tool steps were kept


def test_an_empty_final_answer_is_an_error_not_a_sources_list(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text(""), Turn.text(""))  # empty with tools, then empty again when asked without them

    async def run() -> None:
        async with agent(settings, indexed, llm) as answerer:
            await turn(answerer, [user(QUESTION)])

    with pytest.raises(UpstreamUnavailable, match="empty answer"):
        asyncio.run(run())
    assert [bool(request.json.get("tools")) for request in llm.chat_requests] == [True, False]


def test_a_length_finish_reason_reaches_the_end_of_the_answer(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("42 cloves were", finish_reason="length"))

    async def run() -> AnswerDone:
        async with agent(settings, indexed, llm) as answerer:
            return (await turn_with_done(answerer, [user(QUESTION)]))[1]

    assert asyncio.run(run()).finish_reason == "length"


def test_a_model_that_keeps_calling_tools_is_stopped_and_the_notice_is_stored(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.tool_call("read_note", {"note": "Garlic"}), Turn.tool_call("read_note", {"note": "Garlic"}))

    async def run() -> tuple[str, list[dict[str, Any]]]:
        async with agent(settings, indexed, llm, recursion_limit=7, show_sources=False) as answerer:
            shown = await turn(answerer, [user(QUESTION)])
            return shown, await answerer.stored_messages("c1")

    shown, stored = asyncio.run(run())

    assert shown == STOPPED_EARLY
    assert stored[-1] == {"role": "assistant", "content": shown}
    assert llm.chat_requests[-1].json.get("tools") in (None, [])  # the last call offered no tools


def test_a_recursion_limit_below_the_fixed_steps_still_stores_what_was_shown(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("Partial [[Garlic]]."))

    async def run() -> tuple[str, list[dict[str, Any]]]:
        async with agent(settings, indexed, llm, recursion_limit=3) as answerer:
            shown = await turn(answerer, [user(QUESTION)])
            return shown, await answerer.stored_messages("c1")

    shown, stored = asyncio.run(run())

    assert shown == f"Partial [[Garlic]].\n\n{STOPPED_EARLY}"
    assert stored[-1] == {"role": "assistant", "content": shown}


def test_each_conversation_keeps_one_small_checkpoint(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("42 cloves [[Garlic]]."), Turn.text("In bed 3."))

    async def run() -> dict[str, Any]:
        async with agent(settings, indexed, llm) as answerer:
            first = await turn(answerer, [user(QUESTION)])
            await turn(answerer, [user(QUESTION), assistant(first), user("Where?")])
            snapshot = await answerer._graph.aget_state({"configurable": {"thread_id": "c1"}})
            return dict(snapshot.values)

    state = asyncio.run(run())

    assert state["incoming"] == [] and state["context"] == ""
    assert [m["content"] for m in state["messages"] if m["role"] == "user"] == [QUESTION, "Where?"]
    with sqlite3.connect(checkpoints_file(settings)) as db:
        assert db.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = 'c1'").fetchone() == (1,)


def test_conversations_idle_for_thirty_days_expire(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("Old [[Garlic]]."), Turn.text("Recent [[Garlic]]."))
    clock = Clock()

    async def run() -> tuple[int, list[dict[str, Any]], list[dict[str, Any]]]:
        async with agent(settings, indexed, llm, clock=clock) as answerer:
            await turn(answerer, [user(QUESTION)], conversation="old")
            clock.now = T0 + timedelta(days=20)
            await turn(answerer, [user(QUESTION)], conversation="recent")
            clock.now = T0 + timedelta(days=31)
            expired = await answerer.expire_idle_conversations()
            return expired, await answerer.stored_messages("old"), await answerer.stored_messages("recent")

    expired, old, recent = asyncio.run(run())

    assert expired == 1
    assert old == [] and recent[-1]["content"].startswith("Recent")


def test_turns_of_one_conversation_run_one_after_another(settings: Settings, indexed: Services) -> None:
    first_in_model = threading.Event()
    release_first = threading.Event()

    def script(request: dict[str, Any]) -> Turn:
        if request["messages"][-1]["content"].endswith(f"Question: {QUESTION}"):  # the first turn's question
            first_in_model.set()
            release_first.wait(timeout=30)
            return Turn.text("First.")
        return Turn.text("Second.")

    history = [user(QUESTION), assistant("First."), user("Where?")]

    async def run(llm: ScriptedLLMServer) -> list[dict[str, Any]]:
        async with agent(settings, indexed, llm, show_sources=False) as answerer:
            first = asyncio.create_task(turn(answerer, [user(QUESTION)]))
            await asyncio.to_thread(first_in_model.wait, 30)
            second = asyncio.create_task(turn(answerer, history))
            # Unserialised, the second turn would finish now and the first, released later, would overwrite it.
            await asyncio.wait({second}, timeout=0.5)
            release_first.set()
            await asyncio.gather(first, second)
            return await answerer.stored_messages("c1")

    with ScriptedLLMServer(script) as llm:
        stored = asyncio.run(run(llm))

    assert [m["content"] for m in stored] == [QUESTION, "First.", "Where?", "Second."]


def test_a_model_that_reads_while_it_may_still_answers_within_the_default_limit(
    settings: Settings, indexed: Services
) -> None:
    def script(request: dict[str, Any]) -> Turn:
        return Turn.tool_call("read_note", {"note": "Garlic"}) if request.get("tools") else Turn.text("42 [[Garlic]].")

    async def run(llm: ScriptedLLMServer) -> str:
        async with agent(settings, indexed, llm, recursion_limit=settings.agent_recursion_limit) as answerer:
            return await turn(answerer, [user(QUESTION)])

    with ScriptedLLMServer(script) as llm:
        shown = asyncio.run(run(llm))

    assert shown.startswith("42 [[Garlic]].") and STOPPED_EARLY not in shown


def test_a_conversation_lock_is_dropped_when_no_turn_holds_or_waits_for_it() -> None:
    locks = ConversationLocks()

    async def run() -> tuple[int, int]:
        async with locks.hold("a"), locks.hold("b"):
            busy = len(locks)
        return busy, len(locks)

    assert asyncio.run(run()) == (2, 0)


def test_an_answer_citing_nothing_lists_the_passage_holding_what_it_says_not_just_the_top_hits(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    # Small models answer without a link (recorded: Qwen2.5-Coder 0.5B): the sources are found from the answer.
    said = "It was planted on 8 November 2026 and takes a third of the bed until July."
    generic = "Kubernetes ingress controllers route external traffic through listeners, TLS secrets and host rules."
    llm.add(Turn.text(said), Turn.text("It depends on the weather."), Turn.text(generic))

    async def run() -> tuple[str, str, str]:
        async with agent(settings, indexed, llm) as answerer:
            drawn = await turn(answerer, [user("How did the garlic do?")])
            vague = await turn(answerer, [user("How did the garlic do?")], conversation="c2")
            own = await turn(answerer, [user("How did the garlic do?")], conversation="c3")
            return drawn, vague, own

    drawn, vague, own = asyncio.run(run())

    sent = llm.chat_requests[0].messages[-1]["content"]
    top_hit = sent.split('<note source="', 1)[1].split('"', 1)[0]
    assert top_hit != "[[Garden Plan 2027#Bed 3 roots and alliums]]"  # ranked lower: the top hits would miss it
    # The sentence holding what it says, verbatim, and its note as the source.
    quoted = "The garlic (planted 8 November 2026) takes a third of the bed until July; see [[Garlic]]."
    assert drawn.startswith(f'{said}\n\n{EVIDENCE_HEADING}\n- "{quoted}" [[Garden Plan 2027#Bed 3 roots and alliums]]')
    assert drawn.endswith("\n\nSources:\n- [[Garden Plan 2027#Bed 3 roots and alliums]]")
    assert "\n\nNotes searched:\n- [[" in vague and "Sources:" not in vague  # nothing in it matched a passage
    assert UNSUPPORTED_NOTICE not in drawn + vague  # a short answer is not judged
    assert own.startswith(generic + UNSUPPORTED_NOTICE + "\n\nNotes searched:")  # the model's own knowledge


def test_an_answer_stating_a_name_no_passage_holds_is_followed_by_a_caution_naming_it(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    # As the 0.5B named "Davio" the author of a library its notes only link to: the variety and the count are read.
    invented = "You planted 42 cloves of Germidour from Bauer Lindqvist [[Garlic]]."
    llm.add(Turn.text(invented))

    async def run() -> str:
        async with agent(settings, indexed, llm) as answerer:
            return await turn(answerer, [user("How many garlic cloves did I plant?")])

    reply = asyncio.run(run())

    assert reply.startswith(invented + "\n\n*(Not in the notes searched: Bauer Lindqvist. Check this name against")
    assert "\n\nSources:\n- [[Garlic]]" in reply


def test_an_answer_stating_a_number_no_passage_holds_is_followed_by_a_caution_naming_it(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    # A misread like the 0.5B's "24 °C" for "4 °C": the garlic note says 42 cloves, the answer 24, citing the note.
    misread = "You planted 24 cloves of Germidour [[Garlic]]."
    read_right = "You planted 42 cloves of Germidour [[Garlic]]."
    llm.add(Turn.text(misread), Turn.text(read_right))

    async def run() -> tuple[str, str]:
        async with agent(settings, indexed, llm) as answerer:
            wrong = await turn(answerer, [user("How many garlic cloves did I plant?")])
            right = await turn(answerer, [user("How many garlic cloves did I plant?")], conversation="c2")
            return wrong, right

    wrong, right = asyncio.run(run())

    assert "42 cloves" in llm.chat_requests[0].messages[-1]["content"]  # what the model read
    assert wrong.startswith(misread + "\n\n*(Not in the notes searched: 24. Check this number against the sources.)*")
    assert "\n\nSources:\n- [[Garlic]]" in wrong
    assert f'{EVIDENCE_HEADING}\n- "42 cloves of' in wrong  # the note's own sentence, under the misread
    assert "Not in the notes searched" not in right and right.startswith(f"{read_right}\n\n{EVIDENCE_HEADING}\n")


def test_an_answer_stating_a_date_no_passage_holds_far_from_today_is_followed_by_a_caution_naming_it(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    # As the 0.5B dated a book "Published: 2014-12-04" its note says is from 1992. The note gives the planting as
    # "8 November 2026": the same date written otherwise is read, another one is not.
    misdated = "You planted 42 cloves of Germidour on 2019-11-08 [[Garlic]]."
    dated_right = "You planted 42 cloves of Germidour on 2026-11-08 [[Garlic]]."
    llm.add(Turn.text(misdated), Turn.text(dated_right))
    today = Clock(datetime(2026, 12, 4, 9, 0, tzinfo=UTC))

    async def run() -> tuple[str, str]:
        async with agent(settings, indexed, llm, clock=today) as answerer:
            wrong = await turn(answerer, [user("How many garlic cloves did I plant, and when?")])
            right = await turn(answerer, [user("How many garlic cloves did I plant, and when?")], conversation="c2")
            return wrong, right

    wrong, right = asyncio.run(run())

    expected = "\n\n*(Not in the notes searched: 2019-11-08. Check this number against the sources.)*"
    assert wrong.startswith(misdated + expected)
    assert "Not in the notes searched" not in right


def test_an_answer_no_sentence_of_the_notes_bears_out_is_followed_by_what_they_say_closest_to_the_question(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    # As the 0.5B answered the plum cake with the sourdough's ingredients; the kitchen map says the recipe is not
    # written down yet. A reply copying a note's sentence needs no such block: it is what the note says.
    invented = "The plum cake takes wheat flour, water, levain and salt."
    copied = "Still to write down: [[Mom's Plum Cake]]"
    llm.add(Turn.text(invented), Turn.text(copied))

    async def run() -> tuple[str, str]:
        async with agent(settings, indexed, llm) as answerer:
            asked = [user("What are the ingredients of my mom's plum cake?")]
            return await turn(answerer, asked), await turn(answerer, asked, conversation="c2")

    reply, copying = asyncio.run(run())

    assert reply.startswith(f'{invented}\n\n{CLOSEST_HEADING}\n- "Still to write down: [[Mom\'s Plum Cake]]" [[')
    assert "\n\nNotes searched:\n- [[" in reply and "Sources:" not in reply  # the closest sentences are no sources
    assert CLOSEST_HEADING not in copying


def test_a_refusal_in_the_models_own_words_is_followed_as_the_services_refusal_is(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    # The 0.5B's "Based on the notes provided, I couldn't find this in your notes." was followed by the caution
    # that nothing in it was found in the notes, as an answer is.
    refusal = "Based on the notes provided, I couldn't find this in your notes."
    llm.add(Turn.text(refusal))

    async def run() -> str:
        async with agent(settings, indexed, llm) as answerer:
            return await turn(answerer, [user("What did I cook on 2026-11-15?")])

    reply = asyncio.run(run())

    assert reply.startswith(refusal) and UNSUPPORTED_NOTICE not in reply
    assert "\n\nNotes searched:\n- [[" in reply and "Sources:" not in reply
