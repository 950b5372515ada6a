"""At start the service sends the model its stable prompt prefix and stops at the first token (LLM_WARM_UP).

The model server then holds the prefix in its prompt cache, and the first question evaluates only its own part;
the warm-up request must therefore begin with exactly the bytes a plain question begins with (issue 10).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from agent.prompt_cache import PROBE_TOKENS, TIMING_TEXT, WarmUp, warm_up
from agent.quoting.prompt import QUOTE_SYSTEM
from agent.tool_use import ToolUse
from app.wiring import Services
from core.settings import Settings
from tests.integration.edit_flow_support import Librarian, LibrarianFactory, librarian_factory
from tests.integration.llm_client_support import chat_model, llm_settings
from tests.scripted_llm import ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed


@pytest.fixture
def factory(settings: Settings, services: Services, llm: ScriptedLLMServer) -> Iterator[LibrarianFactory]:
    with librarian_factory(settings, services, llm, "files") as made:
        yield made


def wait_for_requests(llm: ScriptedLLMServer, count: int, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while len(llm.chat_requests) < count:
        assert time.monotonic() < deadline, f"{len(llm.chat_requests)} model requests, expected {count}"
        time.sleep(0.02)


def wait_for_warm_up(librarian: Librarian, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while librarian.http.get("/ready").json()["model"]["warm_up"] != "done":
        assert time.monotonic() < deadline
        time.sleep(0.05)


def rendered_prefix(body: dict[str, Any]) -> str:
    """Return what a server renders first: the system message, then the tool schemas."""
    return json.dumps([body["messages"][0], body.get("tools")])


def test_the_warm_up_sends_the_prefix_of_a_plain_question_and_stops_at_the_first_token(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("Hello there, how can I help?"), Turn.text("14 hours [[Sourdough]]."))
    librarian: Librarian = factory.start(llm_warm_up=True)
    wait_for_requests(llm, 1)

    librarian.chat().say("How long does the sourdough proof in the fridge?")

    warm_up, question = (request.json for request in llm.chat_requests)
    assert warm_up["stream"] is True and warm_up["max_tokens"] == 1
    assert question["messages"][-1]["content"].endswith("in the fridge?")
    assert rendered_prefix(warm_up) == rendered_prefix(question)  # the same bytes, so the cache holds them
    assert "<note source=" not in json.dumps(warm_up) and "Today is" not in json.dumps(warm_up)


def test_the_warm_up_times_the_models_reading_so_a_slow_model_gets_fewer_passages_from_the_first_question(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    # llama.cpp read the warm-up's 160 tokens after the cached prefix in 3.2 s: 50 tokens a second, as a 1.5B model
    # on a slow CPU. In ANSWER_FIRST_TOKEN_SECONDS (7) it reads ~350 tokens: the first question gets the floor,
    # 800 characters of passages, where an unmeasured model got up to ANSWER_PASSAGE_CHARS (2,000).
    timed = Turn.text("Hi", usage=(350, 1), timings={"prompt_n": 160, "prompt_ms": 3200.0, "cache_n": 190})
    llm.add(timed, Turn.text("14 hours [[Sourdough]]."))
    librarian = factory.start(llm_warm_up=True)
    wait_for_requests(llm, 1)
    deadline = time.monotonic() + 10
    while (model := librarian.http.get("/ready").json()["model"])["warm_up"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert model["warm_up"] == "done" and model["prompt_tokens_per_second"] == 50.0  # /ready says both

    librarian.chat().say("How long does the sourdough proof in the fridge?")

    warm_up, question = (request.json["messages"][-1]["content"] for request in llm.chat_requests)
    passages = re.findall(r"<note [^>]*>(.*?)</note>", question, re.DOTALL)
    assert passages and sum(len(text.strip()) for text in passages) <= 800
    # After the cached prefix: a mark no cache holds (a new one each start), then text the model reads afresh.
    assert re.fullmatch(rf"\([0-9a-f]{{12}}\) {re.escape(TIMING_TEXT)} Hello\.", warm_up)


def test_a_model_that_is_down_at_start_is_warmed_up_never_and_the_service_still_answers(
    factory: LibrarianFactory, llm: ScriptedLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    llm.add(Turn.error(503, "loading model"), Turn.text("14 hours [[Sourdough]]."))
    with caplog.at_level(logging.INFO, logger="agent.prompt_cache"):
        librarian: Librarian = factory.start(llm_warm_up=True, llm_retries=0)
        wait_for_requests(llm, 1)
        answer = librarian.chat().say("How long does the sourdough proof in the fridge?")

    assert answer.startswith("14 hours")
    assert any("warming the model up failed" in record.getMessage() for record in caplog.records)


def test_no_warm_up_is_sent_when_it_is_turned_off(factory: LibrarianFactory, llm: ScriptedLLMServer) -> None:
    llm.add(Turn.text("14 hours [[Sourdough]]."))

    factory.start(llm_warm_up=False).chat().say("How long does the sourdough proof in the fridge?")

    assert len(llm.chat_requests) == 1


def test_with_llm_tools_auto_the_warm_up_asks_for_a_call_and_a_model_writing_it_as_text_gets_plain_answers(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    written = Turn.text('{"name": "search_notes", "arguments": {"query": "zebra"}}')
    quoted = Turn.text('{"quotes": [{"passage": "N1", "quote": "14 hours in the fridge"}], "answer": "14 hours."}')
    llm.add(written, Turn.text("Hello"), quoted)
    librarian: Librarian = factory.start(llm_warm_up=True, llm_tools="auto", answer_quotes=True)
    wait_for_requests(llm, 2)

    librarian.chat().say("How long does the sourdough proof in the fridge?")

    probe, prime, question = (request.json for request in llm.chat_requests)
    assert probe["max_tokens"] == PROBE_TOKENS and [t["function"]["name"] for t in probe["tools"]] == [
        "search_notes",
        "read_note",
    ]
    assert prime["max_tokens"] == 1 and "tools" not in prime and "tools" not in question  # no tools
    # The question is answered quoting first (agent/quoting): the prefix cached is that call's system message.
    assert question["response_format"]["type"] == "json_schema"
    assert prime["messages"][0]["content"] == QUOTE_SYSTEM
    assert rendered_prefix(prime) == rendered_prefix(question)
    assert librarian.http.get("/ready").json()["model"]["tools"].endswith("questions answered in one completion")


def test_a_model_making_a_structured_call_at_the_warm_up_gets_tools_on_plain_questions(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    probe, prime = Turn.tool_call("search_notes", {"query": "zebra"}), Turn.text("Hello")
    llm.add(probe, prime, Turn.text("14 hours [[Sourdough]]."))
    librarian: Librarian = factory.start(llm_warm_up=True, llm_tools="auto")
    wait_for_warm_up(librarian)

    librarian.chat().say("How long does the sourdough proof in the fridge?")

    probe, prime, question = (request.json for request in llm.chat_requests)
    assert rendered_prefix(probe) == rendered_prefix(prime) == rendered_prefix(question)  # tools in each
    # The probe's prompt may be cached by a server started before the service: the prime times the reading.
    assert prime["max_tokens"] == 1 and TIMING_TEXT in prime["messages"][-1]["content"]


@pytest.mark.parametrize("is_structured", [False, True], ids=["call-as-text", "structured-call"])
def test_the_warm_up_probe_decides_whether_a_change_request_goes_through_a_contract_or_free_tool_calls(
    factory: LibrarianFactory, llm: ScriptedLLMServer, is_structured: bool
) -> None:
    if is_structured:
        llm.add(Turn.tool_call("search_notes", {"query": "zebra"}), Turn.text("Hello"))
        llm.add(
            Turn.tool_call("edit_note", {"command": "add_tag", "path": "Garlic", "value": "mulch"}), Turn.text("Ok.")
        )
    else:
        llm.add(Turn.text('{"name": "search_notes", "arguments": {"query": "zebra"}}'), Turn.text("Hello"))
        llm.add(Turn.text('{"operation": "add_tag", "target": "Areas/Garden/Garlic.md", "tag": "mulch"}'))
    librarian: Librarian = factory.start(llm_warm_up=True, llm_tools="auto")
    wait_for_warm_up(librarian)

    shown = librarian.chat().say("Add the tag mulch to the Garlic note.")

    change = llm.chat_requests[2].json
    assert "+  - mulch" in shown
    assert ("response_format" in change) is not is_structured
    assert ("edit_note" in json.dumps(change.get("tools", []))) is is_structured


def test_the_warm_up_asks_the_model_only_after_what_it_waits_for_has_ended() -> None:
    """The index run at start takes the cores: timed during it, the model's reading looked half as fast."""

    async def scenario(llm: ScriptedLLMServer) -> WarmUp:
        index_built = asyncio.Event()
        progress = WarmUp(after=index_built.wait)
        async with chat_model(llm_settings(llm.base_url)) as model:
            warming = asyncio.create_task(warm_up(model, [], ToolUse("off"), progress=progress))
            await asyncio.sleep(0.3)
            assert progress.status == "running" and llm.chat_requests == []  # nothing asked while it waits
            index_built.set()
            assert await asyncio.wait_for(warming, 10.0)
        return progress

    with ScriptedLLMServer([Turn.text("Hello")]) as llm:
        assert asyncio.run(scenario(llm)).status == "done"
        (prime,) = llm.chat_requests
    assert TIMING_TEXT in prime.messages[-1]["content"]
