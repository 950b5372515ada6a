"""A configured LLM that does not answer: passages from the notes instead of an error, over real HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import openai
import pytest
from pydantic import SecretStr

from agent.fallback import DEGRADED_MODE, FAILED_NOTICE, UNREACHABLE_NOTICE, FallbackAnswerer
from agent.retrieval_only import RetrievalOnlyAnswerer
from app.http.main import create_app
from app.wiring import Services
from core.chat import AnswerEvent, AnswerStatus, AnswerText, ChatMessage, TurnRequest
from core.errors import UpstreamUnavailable
from core.settings import Settings
from rag.answer.passages import NO_MODEL_NOTICE
from rag.answer.relevance_gate import RelevanceGate
from tests.fakes import ScriptedAnswerer
from tests.live_server import serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn, free_port

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

QUESTION = "How do I feed the sourdough starter before a bake?"
LLM_KEY = "sk-llm-key-0123456789abcdef"


def ask(client: openai.OpenAI, question: str, *, stream: bool) -> str:
    messages: list[Any] = [{"role": "user", "content": question}]
    if not stream:
        completion = client.chat.completions.create(model="vault-librarian", messages=messages)
        return completion.choices[0].message.content or ""
    pieces = client.chat.completions.create(model="vault-librarian", messages=messages, stream=True)
    return "".join(chunk.choices[0].delta.content or "" for chunk in pieces if chunk.choices)


@pytest.fixture
def dead_port() -> int:
    return free_port()


@pytest.fixture
def librarian_url(settings: Settings, services: Services, dead_port: int) -> Iterator[str]:
    """Serve the app with LLM_BASE_URL on a closed port (credentials in the URL) and no retries."""
    services.reindexer.run_once()
    configured = settings.model_copy(
        update={
            "llm_base_url": (f"http://ana:url-password@127.0.0.1:{dead_port}/v1",),
            "llm_api_key": SecretStr(LLM_KEY),
            "llm_retries": 0,
            "relevance_floor": -1.0,
            "watch": False,
        }
    )
    with serve_in_thread(create_app(configured, services)) as base_url:
        yield base_url


def client_for(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_an_unreachable_llm_gives_cited_passages_with_one_notice(
    librarian_url: str, dead_port: int, stream: bool
) -> None:
    reply = ask(client_for(librarian_url), QUESTION, stream=stream)  # raises on any non-200 or error chunk

    assert reply.splitlines()[0] == UNREACHABLE_NOTICE
    assert "127.0.0.1" not in reply and str(dead_port) not in reply  # where the LLM runs is for the log only
    assert reply.count("unreachable") == 1
    assert NO_MODEL_NOTICE not in reply  # a model is configured; it just did not answer
    assert "[[Sourdough#" in reply
    assert "url-password" not in reply and LLM_KEY not in reply


def test_ready_shows_the_degraded_mode_until_the_llm_answers_again(librarian_url: str, dead_port: int) -> None:
    client = client_for(librarian_url)
    ask(client, QUESTION, stream=False)
    degraded = httpx.get(f"{librarian_url}/ready").json()

    with ScriptedLLMServer([Turn.text("Feed it 1:1:1 the night before [[Sourdough]].")], port=dead_port):
        answer = ask(client, QUESTION, stream=True)
        recovered = httpx.get(f"{librarian_url}/ready").json()

    assert degraded["mode"] == DEGRADED_MODE and degraded["checks"]["llm"] == "unreachable"
    assert answer.startswith("Feed it 1:1:1 the night before")
    assert "unreachable" not in answer
    assert recovered["mode"] == "agent"


def test_a_failure_after_the_answer_started_is_an_error_not_passages(settings: Settings, services: Services) -> None:
    services.reindexer.run_once()
    with ScriptedLLMServer([Turn.disconnect(after_tokens=3, content="Feed the starter twice daily")]) as llm:
        llm_port = str(llm.port)
        # Without the answer check, which would hold these first words back (the next test).
        update = {"llm_base_url": (llm.base_url,), "llm_retries": 0, "relevance_floor": -1.0, "watch": False}
        configured = settings.model_copy(update=update | {"answer_check": False})
        with serve_in_thread(create_app(configured, services)) as base_url:
            pieces = client_for(base_url).chat.completions.create(
                model="vault-librarian", messages=[{"role": "user", "content": QUESTION}], stream=True
            )
            received: list[str] = []
            with pytest.raises(openai.APIError, match="broke off after it started") as failed:
                for chunk in pieces:
                    if chunk.choices:
                        received.append(chunk.choices[0].delta.content or "")

    assert "".join(received) == "Feed the starter"  # what was shown stays; no passages are glued onto it
    assert "127.0.0.1" not in str(failed.value) and llm_port not in str(failed.value)


def test_a_failure_while_the_answers_opening_is_held_is_answered_with_passages(
    settings: Settings, services: Services
) -> None:
    services.reindexer.run_once()
    with ScriptedLLMServer([Turn.disconnect(after_tokens=3, content="Feed the starter twice daily")]) as llm:
        update = {"llm_base_url": (llm.base_url,), "llm_retries": 0, "relevance_floor": -1.0, "watch": False}
        with serve_in_thread(create_app(settings.model_copy(update=update), services)) as base_url:
            reply = ask(client_for(base_url), QUESTION, stream=True)  # raises on an error chunk

    # Nothing was shown when the model broke off: the user gets the passages, not half a sentence and an error, and
    # is told the model failed (it was reached: "unreachable" would send them to check a server that is up).
    assert reply.splitlines()[0] == FAILED_NOTICE and "[[Sourdough#" in reply
    assert not reply.startswith("Feed the starter")


def test_an_llm_answering_an_error_is_said_to_have_failed_not_to_be_unreachable(
    settings: Settings, services: Services
) -> None:
    services.reindexer.run_once()
    refused = Turn.error(422, {"error": {"message": "the server could not process the request"}})
    with ScriptedLLMServer([refused, refused]) as llm:  # the client asks again without its optional fields
        update = {"llm_base_url": (llm.base_url,), "llm_retries": 0, "relevance_floor": -1.0, "watch": False}
        with serve_in_thread(create_app(settings.model_copy(update=update), services)) as base_url:
            reply = ask(client_for(base_url), QUESTION, stream=False)

    assert reply.splitlines()[0] == FAILED_NOTICE and "[[Sourdough#" in reply


def test_a_reasoning_model_that_only_thought_is_said_to_have_failed_to_answer(
    settings: Settings, services: Services
) -> None:
    services.reindexer.run_once()
    # Its <think> block never closed before the token cap, twice (an unusable reply is asked for once more): no
    # answer, and no thinking shown as one.
    thought = Turn.text("<think>\nThe user asks about feeding. Let me think about this for a while")
    with ScriptedLLMServer([thought, thought]) as llm:
        update = {"llm_base_url": (llm.base_url,), "llm_retries": 0, "relevance_floor": -1.0, "watch": False}
        with serve_in_thread(create_app(settings.model_copy(update=update), services)) as base_url:
            reply = ask(client_for(base_url), QUESTION, stream=True)

    assert reply.splitlines()[0] == FAILED_NOTICE and "[[Sourdough#" in reply and "think" not in reply
    assert len(llm.chat_requests) == 2


class FailingAnswerer:
    """Fail like the agent does when a backing service other than the LLM is down."""

    mode = "agent"

    async def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        """Report progress, then fail."""
        yield AnswerStatus("searching your notes…")
        raise UpstreamUnavailable("qdrant", "connection refused")


async def events_of(answerer: FallbackAnswerer) -> list[AnswerEvent]:
    turn = TurnRequest(conversation_id="c1", messages=(ChatMessage("user", QUESTION),))
    return [event async for event in answerer.answer(turn)]


def test_only_llm_failures_fall_back(services: Services) -> None:
    services.reindexer.run_once()
    passages = RetrievalOnlyAnswerer(
        services.retriever, RelevanceGate(services.embedder, services.store, floor=-1.0), top_k=3
    )

    with pytest.raises(UpstreamUnavailable, match="qdrant"):
        asyncio.run(events_of(FallbackAnswerer(FailingAnswerer(), passages, endpoints=("http://x/v1",))))
    half = FallbackAnswerer(ScriptedAnswerer(fail_after=1), passages, endpoints=("http://x/v1",))
    with pytest.raises(UpstreamUnavailable, match="scripted failure mid-stream"):
        asyncio.run(events_of(half))
    fell_back = asyncio.run(events_of(FallbackAnswerer(ScriptedAnswerer(fail_after=0), passages, endpoints=())))

    text = "".join(event.text for event in fell_back if isinstance(event, AnswerText))
    assert text.startswith(UNREACHABLE_NOTICE)
    assert half.mode == "scripted"
