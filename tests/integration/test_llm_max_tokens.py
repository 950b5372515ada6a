"""The reply's token cap: sent as max_tokens, or as max_completion_tokens where an endpoint refuses max_tokens.

A small model that repeats itself runs until its context is full (recorded with Qwen2.5-Coder 0.5B through the
service: 6,459 tokens, four minutes, for one golden question); LLM_MAX_TOKENS stops it (issue 10).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from agent.repetition import NOTICE as LOOP_NOTICE
from app.wiring import Services
from core.settings import Settings
from tests.integration.edit_flow_support import LibrarianFactory, librarian_factory
from tests.integration.llm_client_support import QUESTION, chat_model, llm_settings
from tests.scripted_llm import ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed


def test_the_cap_is_sent_as_max_tokens_and_a_longer_reply_stops_there() -> None:
    async def scenario() -> tuple[str, str]:
        async with chat_model(llm_settings(llm.base_url)) as model:
            deltas = [delta async for delta in model.stream(QUESTION, max_tokens=3)]
            whole = await model.complete(QUESTION)
            return "".join(d.text for d in deltas) + "|" + (deltas[-1].finish_reason or ""), whole.content

    with ScriptedLLMServer([Turn.text(["one", " two", " three", " four"]), Turn.text("whole")]) as llm:
        streamed, whole = asyncio.run(scenario())
    assert streamed == "one two three|length" and whole == "whole"
    assert [r.json.get("max_tokens") for r in llm.chat_requests] == [3, None]  # only when asked for


def test_an_endpoint_refusing_max_tokens_gets_max_completion_tokens_from_then_on() -> None:
    async def scenario() -> list[str]:
        async with chat_model(llm_settings(llm.base_url)) as model:
            first = "".join([d.text async for d in model.stream(QUESTION, max_tokens=50)])
            second = (await model.complete(QUESTION, max_tokens=50)).content
            return [first, second]

    with ScriptedLLMServer([Turn.text("one"), Turn.text("two")], reject_max_tokens=True) as llm:
        assert asyncio.run(scenario()) == ["one", "two"]
    sent = [(r.json.get("max_tokens"), r.json.get("max_completion_tokens")) for r in llm.chat_requests]
    assert sent == [(50, None), (None, 50), (None, 50)]  # refused once, then remembered


@pytest.fixture
def factory(settings: Settings, services: Services, llm: ScriptedLLMServer) -> Iterator[LibrarianFactory]:
    with librarian_factory(settings, services, llm, "files") as made:
        yield made


@pytest.mark.parametrize(("window", "sent"), [(None, 700), (8192, 700), (2048, 512)])  # a quarter of 2048: 512
def test_a_chat_turn_caps_each_model_call_at_llm_max_tokens_within_a_quarter_of_the_window(
    factory: LibrarianFactory, llm: ScriptedLLMServer, window: int | None, sent: int
) -> None:
    llm.add(Turn.text("14 hours [[Sourdough#Final recipe]]."))
    librarian = factory.start(llm_max_tokens=700, llm_context_tokens=window)

    librarian.chat().say("How long does the sourdough proof in the fridge?")

    assert [r.json["max_tokens"] for r in llm.chat_requests] == [sent]


def test_a_reply_running_on_to_the_cap_ends_with_finish_reason_length(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    runaway = ["Proof it 14 hours [[Sourdough#Final recipe]]."] + [f" Step {n}." for n in range(300)]
    llm.add(Turn.text(runaway))
    librarian = factory.start(llm_max_tokens=64, answer_check=False)  # its steps are no note's: it would be refused

    reply = librarian.client.chat.completions.create(
        model="vault-librarian", messages=[{"role": "user", "content": "How long does the sourdough proof?"}]
    )

    assert reply.choices[0].finish_reason == "length"
    assert reply.choices[0].message.content is not None
    assert reply.choices[0].message.content.count(" Step ") == 63 and " Step 62." in reply.choices[0].message.content


def test_a_link_the_token_cap_cut_in_two_is_not_shown_or_read_as_a_name(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    steps = [f" Step {n}." for n in range(62)]  # the 64th token is the link's first half
    answer = "Proof it 14 hours [[Sourdough#Final recipe]]."
    llm.add(Turn.text([answer, *steps, " See [[Sour", "dough#Final recipe]]."]))
    librarian = factory.start(llm_max_tokens=64, answer_check=False)

    reply = librarian.client.chat.completions.create(
        model="vault-librarian", messages=[{"role": "user", "content": "How long does the sourdough proof?"}]
    )

    text = reply.choices[0].message.content or ""
    assert reply.choices[0].finish_reason == "length"
    assert text.startswith("Proof it 14 hours [[Sourdough#Final recipe]]. Step 0.") and " Step 61. See" in text
    after = text.split(" Step 61. See", 1)[1]
    assert not after.startswith(" [[") and "Sour." not in after  # neither shown nor named in a caution as "Sour"


def test_a_reply_that_loops_is_stopped_after_a_few_repeats_and_says_so(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    loop = " The loaf proofs 14 hours in the fridge."
    llm.add(Turn.text(["It rests [[Sourdough#Final recipe]]."] + [loop] * 3000, delay_per_token=0.002))
    librarian = factory.start(answer_check=False)  # the loop, not the check, is what stops this reply

    reply = librarian.client.chat.completions.create(
        model="vault-librarian", messages=[{"role": "user", "content": "How long does the sourdough proof?"}]
    )

    text = reply.choices[0].message.content or ""
    assert reply.choices[0].finish_reason == "length"
    assert LOOP_NOTICE in text and text.count(loop) < 10  # stopped after a few repeats, not 500
    deadline = time.monotonic() + 5
    while llm.abandoned_streams == 0 and time.monotonic() < deadline:  # the server notices at its next write
        time.sleep(0.02)
    assert llm.abandoned_streams == 1  # the stream was closed, so the server stopped generating


def test_the_temperature_is_sent_with_every_call_and_left_out_where_refused() -> None:
    async def scenario(base_url: str) -> str:
        async with chat_model(llm_settings(base_url).model_copy(update={"temperature": 0.2})) as model:
            first = "".join([d.text async for d in model.stream(QUESTION)])
            return first + (await model.complete(QUESTION)).content

    with ScriptedLLMServer([Turn.text("one"), Turn.text("two")]) as plain:
        assert asyncio.run(scenario(plain.base_url)) == "onetwo"
    with ScriptedLLMServer([Turn.text("one"), Turn.text("two")], reject_temperature=True) as strict:
        assert asyncio.run(scenario(strict.base_url)) == "onetwo"
    assert [r.json.get("temperature") for r in plain.chat_requests] == [0.2, 0.2]
    assert [r.json.get("temperature") for r in strict.chat_requests] == [0.2, None, None]  # refused once
