"""response_format through the real client: sent when asked for, dropped (once, then remembered) where refused."""

from __future__ import annotations

import asyncio

import pytest

from core.errors import UpstreamUnavailable
from tests.integration.llm_client_support import QUESTION, chat_model, llm_settings
from tests.scripted_llm import ScriptedLLMServer, Turn

SCHEMA = {"type": "object", "properties": {"markdown": {"type": "string"}}, "required": ["markdown"]}
WANTED = {"type": "json_schema", "json_schema": {"name": "briefing-v1", "schema": SCHEMA, "strict": True}}


def test_response_format_is_sent_only_when_asked_for() -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url)) as model:
            await model.complete(QUESTION, response_format=WANTED)
            await model.complete(QUESTION)
            [delta async for delta in model.stream(QUESTION, response_format=WANTED)]

    with ScriptedLLMServer([Turn.text('{"markdown": "x"}')] * 3) as llm:
        asyncio.run(scenario())
    assert [r.response_format for r in llm.chat_requests] == [WANTED, None, WANTED]


def test_a_refused_response_format_is_dropped_and_remembered_for_complete() -> None:
    async def scenario() -> list[str]:
        async with chat_model(llm_settings(llm.base_url)) as model:
            return [(await model.complete(QUESTION, response_format=WANTED)).content for _ in range(2)]

    with ScriptedLLMServer([Turn.text("one"), Turn.text("two")], reject_response_format=True) as llm:
        assert asyncio.run(scenario()) == ["one", "two"]
    assert [r.response_format is not None for r in llm.chat_requests] == [True, False, False]


def test_a_server_refusing_both_optional_fields_still_streams() -> None:
    async def scenario() -> list[str]:
        async with chat_model(llm_settings(llm.base_url)) as model:
            replies = []
            for _ in range(2):
                deltas = [delta async for delta in model.stream(QUESTION, response_format=WANTED)]
                replies.append("".join(d.text for d in deltas))
            return replies

    turns = [Turn.text("one"), Turn.text("two")]
    with ScriptedLLMServer(turns, reject_stream_options=True, reject_response_format=True) as llm:
        assert asyncio.run(scenario()) == ["one", "two"]
    sent = [("stream_options" in r.json, r.response_format is not None) for r in llm.chat_requests]
    assert sent == [(True, True), (False, True), (False, False), (False, False)]


def test_another_400_is_not_mistaken_for_a_refused_field() -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url)) as model:
            await model.complete(QUESTION, response_format=WANTED)

    error = {"error": {"code": 400, "message": "the request exceeds the available context size", "type": "x"}}
    with ScriptedLLMServer([Turn.error(400, error)]) as llm, pytest.raises(UpstreamUnavailable, match="context size"):
        asyncio.run(scenario())
    assert len(llm.chat_requests) == 1
