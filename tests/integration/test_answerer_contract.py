"""One contract for every Answerer: the fake the HTTP tests use, retrieval-only mode, and the agent."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import pytest

from app.services.answering import build_answerer
from app.wiring import Services
from core.chat import AnswerDone, AnswerEvent, AnswerText, ChatMessage, TurnRequest
from core.ports import Answerer
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel
from tests.fakes import ScriptedAnswerer
from tests.scripted_llm import ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

TURN = TurnRequest("contract-1", (ChatMessage("user", "How long does the sourdough autolyse rest?"),))
Factory = Callable[[AsyncExitStack], Awaitable[Answerer]]


@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(lambda _request: Turn.text("It rests 45 minutes [[Sourdough#Final recipe]].")) as server:
        yield server


@pytest.fixture(params=["scripted", "retrieval-only", "agent"])
def make_answerer(request: pytest.FixtureRequest, settings: Settings, services: Services, llm: Any) -> Factory:
    services.reindexer.run_once()
    configured = settings.model_copy(update={"relevance_floor": -1.0, "llm_base_url": (llm.base_url,)})

    async def factory(stack: AsyncExitStack) -> Answerer:
        if request.param == "scripted":
            return ScriptedAnswerer()
        chat_model = None
        if request.param == "agent":
            chat_model = OpenAICompatibleChatModel(configured.llm)
            stack.push_async_callback(chat_model.aclose)
        return await build_answerer(configured, services, chat_model, stack)

    return factory


@asynccontextmanager
async def opened(factory: Factory) -> AsyncIterator[Answerer]:
    async with AsyncExitStack() as stack:
        yield await factory(stack)


async def collect(answerer: Answerer, turn: TurnRequest) -> list[AnswerEvent]:
    return [event async for event in answerer.answer(turn)]


def test_an_answer_is_text_then_exactly_one_done(make_answerer: Factory) -> None:
    async def scenario() -> list[AnswerEvent]:
        async with opened(make_answerer) as answerer:
            assert answerer.mode
            return await collect(answerer, TURN)

    events = asyncio.run(scenario())

    assert isinstance(events[-1], AnswerDone)
    assert sum(isinstance(event, AnswerDone) for event in events) == 1
    text = "".join(event.text for event in events if isinstance(event, AnswerText))
    assert text.strip()
    usage = events[-1].usage
    assert usage.prompt_tokens >= 0 and usage.completion_tokens >= 0


def test_leaving_after_the_first_text_closes_cleanly(make_answerer: Factory) -> None:
    async def scenario() -> str:
        async with opened(make_answerer) as answerer:
            stream = answerer.answer(TURN)
            async for event in stream:
                if isinstance(event, AnswerText) and event.text:
                    await stream.aclose()  # type: ignore[attr-defined]
                    return event.text
        return ""

    assert asyncio.run(scenario())
