"""The real LLM client when endpoints fail: failover, re-checks, retries before the first token, redacted errors."""

from __future__ import annotations

import asyncio
import logging

import pytest

from core.chat import ChatDelta
from core.errors import UpstreamUnavailable
from tests.integration.llm_client_support import (
    QUESTION,
    FakeClock,
    RecordingSleep,
    chat_model,
    collect,
    collect_until_failure,
    llm_settings,
)
from tests.scripted_llm import ScriptedLLMServer, Turn, free_port

KEY = "sk-live-0123456789abcdefSECRET"


def test_fails_over_from_a_dead_base_url_to_a_live_one() -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"

    async def scenario() -> None:
        async with chat_model(llm_settings(dead, llm.base_url, retries=0)) as model:
            assert (await model.complete(QUESTION)).content == "From the second endpoint."
            assert "".join(d.text for d in await collect(model)) == "Streamed too."

    with ScriptedLLMServer([Turn.text("From the second endpoint."), Turn.text("Streamed too.")]) as llm:
        asyncio.run(scenario())


def test_a_failed_endpoint_is_checked_again_after_the_cooldown() -> None:
    port = free_port()
    clock = FakeClock()

    async def scenario() -> None:
        async with chat_model(llm_settings(f"http://127.0.0.1:{port}/v1", backup.base_url), clock=clock) as model:
            assert (await model.complete(QUESTION)).content == "backup 1"
            with ScriptedLLMServer([Turn.text("primary is back")], port=port) as primary:
                # Within the cool-down the backup answers first; after it the primary is tried first again.
                assert (await model.complete(QUESTION)).content == "backup 2"
                clock.now += 60
                assert (await model.complete(QUESTION)).content == "primary is back"
            assert primary.turns_left == 0

    with ScriptedLLMServer([Turn.text("backup 1"), Turn.text("backup 2")]) as backup:
        asyncio.run(scenario())


def test_connection_refused_is_retried_with_exponential_backoff_before_the_first_token() -> None:
    port = free_port()
    late = ScriptedLLMServer([Turn.text("Finally up.")], port=port)
    sleep = RecordingSleep(on_call={2: late.start})  # the server comes up during the second backoff

    async def scenario() -> list[ChatDelta]:
        async with chat_model(llm_settings(f"http://127.0.0.1:{port}/v1", retries=2), sleep=sleep) as model:
            return await collect(model)

    try:
        deltas = asyncio.run(scenario())
    finally:
        late.stop()
    assert "".join(d.text for d in deltas) == "Finally up."
    assert sleep.delays == [0.2, 0.4]


@pytest.mark.parametrize(
    "failure",
    [Turn.error(503), Turn.error(502, "Bad Gateway"), Turn.error(504), Turn.disconnect(after_tokens=0)],
    ids=["503", "502", "504", "hang-up"],
)
def test_overload_or_hang_up_before_the_first_token_is_retried(failure: Turn) -> None:
    sleep = RecordingSleep()

    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url), sleep=sleep) as model:
            assert "".join(d.text for d in await collect(model)) == "Recovered."
            assert (await model.complete(QUESTION)).content == "Also recovered."

    with ScriptedLLMServer([failure, Turn.text("Recovered."), failure, Turn.text("Also recovered.")]) as llm:
        asyncio.run(scenario())
    assert sleep.delays == [0.2, 0.2]
    assert llm.turns_left == 0


def test_gives_up_after_the_configured_retries_with_the_last_reason() -> None:
    sleep = RecordingSleep()

    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url, retries=2), sleep=sleep) as model:
            with pytest.raises(UpstreamUnavailable) as raised:
                await model.complete(QUESTION)
        assert "no endpoint answered after 3 tries" in raised.value.message
        assert "HTTP 503: model is loading" in raised.value.message
        assert raised.value.service == "llm"

    overloaded = Turn.error(503, {"error": {"message": "model is loading"}})
    with ScriptedLLMServer([overloaded] * 3) as llm:
        asyncio.run(scenario())
    assert sleep.delays == [0.2, 0.4]


def test_a_failure_after_the_first_token_raises_and_is_not_retried() -> None:
    received: list[ChatDelta] = []

    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url)) as model:
            with pytest.raises(UpstreamUnavailable) as raised:
                await collect_until_failure(model, received)
        assert "broke off after it started" in raised.value.message

    cut = Turn.disconnect(after_tokens=2, content="The proof takes twelve hours")
    with ScriptedLLMServer([cut, Turn.text("never asked for")]) as llm:
        asyncio.run(scenario())
    assert [d.text for d in received] == ["The", " proof"]
    assert llm.turns_left == 1


def test_a_reply_slower_than_the_read_timeout_raises_a_clear_error_without_retrying() -> None:
    sleep = RecordingSleep()

    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url, read_timeout=0.2, retries=2), sleep=sleep) as model:
            with pytest.raises(UpstreamUnavailable, match=r"sent nothing for 0.2 s \(LLM_READ_TIMEOUT_SECONDS\)"):
                await model.complete(QUESTION)

    with ScriptedLLMServer([Turn.text("late", delay=5.0), Turn.text("never asked for")]) as llm:
        asyncio.run(scenario())
    assert len(llm.chat_requests) == 1  # a hung endpoint is not waited for again in retry rounds
    assert sleep.delays == []


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_a_hung_endpoint_fails_over_to_the_next_base_url(stream: bool) -> None:
    async def scenario() -> str:
        settings = llm_settings(hung.base_url, healthy.base_url, read_timeout=0.2)
        async with chat_model(settings) as model:
            if stream:
                return "".join(d.text for d in await collect(model))
            return (await model.complete(QUESTION)).content

    with (
        ScriptedLLMServer([Turn.text("late", delay=5.0)]) as hung,
        ScriptedLLMServer([Turn.text("From the healthy endpoint.")]) as healthy,
    ):
        assert asyncio.run(scenario()) == "From the healthy endpoint."
    assert len(hung.chat_requests) == 1


def test_every_endpoint_hung_names_the_timeout_setting_and_each_endpoint() -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(first.base_url, second.base_url, read_timeout=0.2, retries=2)) as model:
            with pytest.raises(UpstreamUnavailable) as raised:
                await collect(model)
        message = raised.value.message
        assert "no endpoint answered after 2 tries" in message
        assert message.count("sent nothing for 0.2 s (LLM_READ_TIMEOUT_SECONDS)") == 2
        assert first.base_url in message and second.base_url in message

    late = Turn.text("late", delay=5.0)
    with ScriptedLLMServer([late, late]) as first, ScriptedLLMServer([late, late]) as second:
        asyncio.run(scenario())
    assert len(first.chat_requests) == len(second.chat_requests) == 1


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_a_server_error_fails_over_to_the_next_base_url(stream: bool) -> None:
    async def scenario() -> str:
        async with chat_model(llm_settings(broken.base_url, healthy.base_url)) as model:
            if stream:
                return "".join(d.text for d in await collect(model))
            return (await model.complete(QUESTION)).content

    crashed = Turn.error(500, {"error": {"message": "CUDA out of memory", "type": "server_error"}})
    with (
        ScriptedLLMServer([crashed, Turn.text("not retried")]) as broken,
        ScriptedLLMServer([Turn.text("From the healthy endpoint.")]) as healthy,
    ):
        assert asyncio.run(scenario()) == "From the healthy endpoint."
    assert broken.turns_left == 1


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_a_refused_key_is_reported_without_the_key(stream: bool, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url, api_key=KEY)) as model:
            with pytest.raises(UpstreamUnavailable) as raised:
                await (collect(model) if stream else model.complete(QUESTION))
        message = raised.value.message
        assert "the endpoint refused the API key (HTTP 401" in message
        assert "check LLM_API_KEY" in message
        assert "Incorrect API key provided" in message  # the provider's own words survive
        assert KEY not in message and "0123456789" not in message
        assert KEY not in str(raised.value) and KEY not in repr(raised.value)

    # The server wants another key and echoes the Authorization header it got, as some proxies do.
    with caplog.at_level(logging.DEBUG), ScriptedLLMServer(api_key="sk-the-right-one-987654") as llm:
        asyncio.run(scenario())
    assert llm.requests[0].headers["authorization"] == f"Bearer {KEY}"  # the key really was sent and echoed
    assert KEY not in caplog.text


def test_an_error_body_echoing_request_headers_is_redacted() -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url, api_key=KEY)) as model:
            with pytest.raises(UpstreamUnavailable) as raised:
                await model.complete(QUESTION)
        assert KEY not in raised.value.message
        assert "0123456789" not in raised.value.message

    body = {"error": f"forbidden for Authorization: Bearer {KEY}, api_key={KEY}"}
    with ScriptedLLMServer([Turn.error(403, body)]) as llm:
        asyncio.run(scenario())


def test_an_unknown_model_is_named_in_the_error() -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url, model="llama-9-huge")) as model:
            with pytest.raises(UpstreamUnavailable) as raised:
                await model.complete(QUESTION)
        message = raised.value.message
        assert "HTTP 404" in message and "'llama-9-huge'" in message
        assert "LLM_MODEL" in message and "does not exist" in message

    with ScriptedLLMServer() as llm:
        asyncio.run(scenario())


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_other_errors_carry_the_status_and_the_providers_message(stream: bool) -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url)) as model:
            with pytest.raises(UpstreamUnavailable) as raised:
                await (collect(model) if stream else model.complete(QUESTION))
        assert "HTTP 500" in raised.value.message
        assert "CUDA out of memory" in raised.value.message

    failure = Turn.error(500, {"error": {"message": "CUDA out of memory", "type": "server_error"}})
    with ScriptedLLMServer([failure, Turn.text("not retried")]) as llm:
        asyncio.run(scenario())
    assert llm.turns_left == 1


def test_a_client_error_with_a_plain_text_body_is_shown() -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url)) as model:
            with pytest.raises(UpstreamUnavailable, match=r"HTTP 400 .*context window is 4096 tokens"):
                await model.complete(QUESTION)

    with ScriptedLLMServer([Turn.error(400, "the context window is 4096 tokens")]) as llm:
        asyncio.run(scenario())
