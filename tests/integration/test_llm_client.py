"""The real OpenAI-compatible client against ScriptedLLMServer: replies, streaming, tool calls, usage, models."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest

from core.chat import ChatMessage, ToolCall, ToolSpec, Usage
from llm_client import OpenAICompatibleChatModel, build_chat_model
from llm_client.completions.wire import is_chat_model_id
from tests.integration.llm_client_support import QUESTION, chat_model, collect, llm_settings
from tests.scripted_llm import ScriptedLLMServer, Turn, free_port

SEARCH = ToolSpec(
    name="search",
    description="Search the notes.",
    parameters={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)


def test_complete_returns_the_reply_with_the_providers_usage() -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url, api_key="sk-test-key-123456")) as model:
            result = await model.complete(QUESTION)
        assert result.content == "Proof it for 12 hours in the fridge."
        assert result.usage == Usage(prompt_tokens=11, completion_tokens=7)
        assert result.finish_reason == "stop"
        assert result.tool_calls == ()

    with ScriptedLLMServer([Turn.text("Proof it for 12 hours in the fridge.", usage=(11, 7))]) as llm:
        asyncio.run(scenario())
    (request,) = llm.chat_requests
    assert request.headers["authorization"] == "Bearer sk-test-key-123456"
    assert request.json["model"] == "scripted-model"
    assert request.json["stream"] is False
    assert request.messages == [
        {"role": "system", "content": "Answer from the notes."},
        {"role": "user", "content": "How long does the dough proof?"},
    ]


def test_messages_and_tools_are_sent_in_openai_wire_format() -> None:
    history = (
        ChatMessage("user", "Find my bread notes", name="ana"),
        ChatMessage("assistant", "", tool_calls=(ToolCall("call_9", "search", '{"query": "bread"}'),)),
        ChatMessage("tool", "Sourdough.md: proof 12 h", tool_call_id="call_9", name="search"),
    )

    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url)) as model:
            await model.complete(history, tools=[SEARCH, ToolSpec("recent_notes", "List recent notes.")])

    with ScriptedLLMServer([Turn.text("Found it.")]) as llm:
        asyncio.run(scenario())
    body = llm.chat_requests[0].json
    assert body["messages"] == [
        {"role": "user", "content": "Find my bread notes", "name": "ana"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_9", "type": "function", "function": {"name": "search", "arguments": '{"query": "bread"}'}}
            ],
        },
        {"role": "tool", "content": "Sourdough.md: proof 12 h", "tool_call_id": "call_9"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "search", "description": "Search the notes.", "parameters": dict(SEARCH.parameters)},
        },
        {
            "type": "function",
            "function": {
                "name": "recent_notes",
                "description": "List recent notes.",
                "parameters": {"type": "object", "properties": {}},
            },
        },
    ]


def test_stream_yields_each_token_then_one_closing_delta_with_usage() -> None:
    tokens = ["The", " proof", " takes", " twelve", " hours."]

    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url)) as model:
            deltas = await collect(model)
        assert [d.text for d in deltas[:-1]] == tokens
        closing = deltas[-1]
        assert closing.text == ""
        assert closing.usage is not None and closing.usage.prompt_seconds is not None
        # No timings from this server: the prompt's reading is timed to the first chunk of text (the reply's delay).
        assert 0.2 <= closing.usage.prompt_seconds < 10
        assert replace(closing.usage, prompt_seconds=None) == Usage(prompt_tokens=9, completion_tokens=5)
        assert closing.finish_reason == "stop"
        assert closing.tool_calls == ()

    with ScriptedLLMServer([Turn.text(tokens, usage=(9, 5), delay=0.2)]) as llm:
        asyncio.run(scenario())
    body = llm.chat_requests[0].json
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


def test_stream_yields_the_first_token_before_the_reply_is_finished() -> None:
    # The server holds the second token back for a minute; the client must hand over the first at once.
    async def scenario() -> str:
        async with chat_model(llm_settings(llm.base_url)) as model:
            deltas = model.stream(QUESTION)
            first = await anext(deltas)
            await deltas.aclose()
        return first.text

    with ScriptedLLMServer([Turn.text(["Twelve", " hours."], delay_per_token=60)]) as llm:
        assert asyncio.run(scenario()) == "Twelve"


def test_streamed_tool_call_fragments_are_assembled_with_intact_json() -> None:
    arguments = {"query": 'crème "brûlée" — 12 h', "folder": "Recipes/Desserts", "k": 3}
    turn = Turn.tool_calls(("search", arguments), ("read_note", {"path": "Recipes/Flan.md"}), content="Looking.")

    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url)) as model:
            deltas = await collect(model, tools=[SEARCH])
        assert "".join(d.text for d in deltas) == "Looking."
        closing = deltas[-1]
        assert closing.finish_reason == "tool_calls"
        assert [(c.id, c.name) for c in closing.tool_calls] == [("call_1", "search"), ("call_2", "read_note")]
        assert json.loads(closing.tool_calls[0].arguments) == arguments
        assert json.loads(closing.tool_calls[1].arguments) == {"path": "Recipes/Flan.md"}

    with ScriptedLLMServer([turn]) as llm:
        asyncio.run(scenario())


def test_complete_returns_tool_calls() -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url)) as model:
            result = await model.complete(QUESTION, tools=[SEARCH])
        assert result.content == ""
        assert result.finish_reason == "tool_calls"
        assert result.tool_calls == (ToolCall("call_a", "search", '{"query": "proof"}'),)

    with ScriptedLLMServer([Turn.tool_call("search", {"query": "proof"}, id="call_a")]) as llm:
        asyncio.run(scenario())


def test_usage_is_estimated_and_marked_when_the_provider_reports_none() -> None:
    reply = "Twelve hours in the fridge, then bake."

    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url)) as model:
            result = await model.complete(QUESTION)
            closing = (await collect(model))[-1]
        prompt_chars = sum(len(m.content) for m in QUESTION)
        expected = Usage(prompt_tokens=-(-prompt_chars // 4), completion_tokens=-(-len(reply) // 4), is_estimate=True)
        assert result.usage == expected
        assert closing.usage == expected

    with ScriptedLLMServer([Turn.text(reply, report_usage=False), Turn.text(reply, report_usage=False)]) as llm:
        asyncio.run(scenario())


def test_model_is_discovered_from_the_models_list_once_per_endpoint() -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url, model=None)) as model:
            assert model.model_name == "auto"
            await model.complete(QUESTION)
            await collect(model)
            assert model.model_name == "llama-3.1-8b"

    with ScriptedLLMServer([Turn.text("one"), Turn.text("two")], models=("llama-3.1-8b", "qwen2.5")) as llm:
        asyncio.run(scenario())
    assert [r.path for r in llm.requests if r.method == "GET"] == ["/v1/models"]
    assert [r.json["model"] for r in llm.chat_requests] == ["llama-3.1-8b", "llama-3.1-8b"]


def test_stream_options_refused_is_retried_without_and_remembered() -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url)) as model:
            first = await collect(model)
            second = await collect(model)
        assert "".join(d.text for d in first) == "Twelve hours."
        assert first[-1].usage is not None and first[-1].usage.is_estimate
        assert "".join(d.text for d in second) == "Again."

    with ScriptedLLMServer([Turn.text("Twelve hours."), Turn.text("Again.")], reject_stream_options=True) as llm:
        asyncio.run(scenario())
    assert ["stream_options" in r.json for r in llm.chat_requests] == [True, False, False]


async def availability(*base_urls: str) -> bool:
    async with chat_model(llm_settings(*base_urls)) as model:
        return await model.is_available()


def test_is_available_reflects_whether_an_endpoint_answers_now() -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    with ScriptedLLMServer() as llm:
        assert asyncio.run(availability(llm.base_url)) is True
        assert asyncio.run(availability(dead)) is False
        assert asyncio.run(availability(dead, llm.base_url)) is True
        url = llm.base_url
    assert asyncio.run(availability(url)) is False


def test_build_chat_model_without_endpoints_or_probing_is_retrieval_only() -> None:
    assert asyncio.run(build_chat_model(llm_settings(model=None, probe=False))) is None


def test_build_chat_model_uses_configured_endpoints() -> None:
    model = asyncio.run(build_chat_model(llm_settings("http://127.0.0.1:9/v1/", "http://127.0.0.1:10/v1")))
    assert isinstance(model, OpenAICompatibleChatModel)
    assert model.base_urls == ("http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1")


def test_build_chat_model_probes_local_ports_and_uses_the_first_that_answers() -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"

    async def scenario() -> None:
        settings = llm_settings(model=None, probe=True, api_key="lm-studio-key")
        model = await build_chat_model(settings, probe_urls=(dead, llm.base_url))
        assert isinstance(model, OpenAICompatibleChatModel)
        assert model.base_urls == (llm.base_url,)
        assert (await model.complete(QUESTION)).content == "Found you."
        await model.aclose()

    with ScriptedLLMServer([Turn.text("Found you.")], api_key="lm-studio-key") as llm:
        asyncio.run(scenario())


def test_build_chat_model_ignores_a_probed_server_with_no_model_loaded() -> None:
    with ScriptedLLMServer(models=()) as llm:
        settings = llm_settings(model=None, probe=True)
        assert asyncio.run(build_chat_model(settings, probe_urls=(llm.base_url,))) is None
        with_model = settings.model_copy(update={"model": "llama3"})
        assert asyncio.run(build_chat_model(with_model, probe_urls=(llm.base_url,))) is not None


def test_api_key_setting_is_sent_as_bearer_to_every_endpoint_call() -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url, api_key="k-123456", model=None)) as model:
            assert await model.is_available()
            await model.complete(QUESTION)

    with ScriptedLLMServer([Turn.text("ok")], api_key="k-123456") as llm:
        asyncio.run(scenario())
    assert {r.headers["authorization"] for r in llm.requests} == {"Bearer k-123456"}


EMBEDDERS = ("text-embedding-nomic-embed-text-v1.5", "nomic-embed-text:latest", "mxbai-embed-large", "bge-m3")


def test_model_discovery_skips_embedding_and_rerank_models() -> None:
    listed = (*EMBEDDERS, "bge-reranker-v2-m3", "multilingual-e5-large", "qwen2.5:7b-instruct", "llama3.1")

    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url, model=None)) as model:
            await model.complete(QUESTION)
            assert model.model_name == "qwen2.5:7b-instruct"

    with ScriptedLLMServer([Turn.text("ok")], models=listed) as llm:
        asyncio.run(scenario())
    assert llm.chat_requests[0].json["model"] == "qwen2.5:7b-instruct"


@pytest.mark.parametrize(
    ("model_id", "is_chat"),
    [
        *((m, True) for m in ("qwen2.5:7b", "phi3.5", "gpt-4o-mini", "qwen/qwen3-4b", "mistral-nemo", "gemma3:4b")),
        *((m, False) for m in ("all-minilm:l6-v2", "paraphrase-multilingual", "thenlper/gte-large", "whisper-1")),
    ],
)
def test_chat_models_are_told_from_embedding_and_speech_models(model_id: str, is_chat: bool) -> None:
    assert is_chat_model_id(model_id) is is_chat


def test_model_discovery_takes_the_first_id_when_every_model_looks_like_an_embedder() -> None:
    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url, model=None)) as model:
            assert (await model.complete(QUESTION)).content == "ok"

    with ScriptedLLMServer([Turn.text("ok")], models=EMBEDDERS) as llm:
        asyncio.run(scenario())
    assert llm.chat_requests[0].json["model"] == EMBEDDERS[0]


def test_probing_ignores_a_server_that_lists_only_embedding_models() -> None:
    async def scenario() -> None:
        model = await build_chat_model(
            llm_settings(model=None, probe=True), probe_urls=(embed_only.base_url, llm.base_url)
        )
        assert isinstance(model, OpenAICompatibleChatModel)
        assert model.base_urls == (llm.base_url,)

    with ScriptedLLMServer(models=EMBEDDERS) as embed_only, ScriptedLLMServer(models=("gemma3:4b",)) as llm:
        asyncio.run(scenario())


def test_the_configured_key_is_removed_from_reply_text_even_when_split_over_tokens() -> None:
    key = "sk-echo-0123456789abcdef"
    tokens = ["Your key is sk-ec", "ho-01234", "56789a", "bcdef, and sk-e", "cho is not one."]

    async def scenario() -> None:
        async with chat_model(llm_settings(llm.base_url, api_key=key)) as model:
            deltas = await collect(model)
            result = await model.complete(QUESTION)
        streamed = [d.text for d in deltas if d.text]
        assert "".join(streamed) == "Your key is [REDACTED], and sk-echo is not one."
        assert streamed[0] == "Your key is "  # text before a possible key is not held back
        assert result.content == "Your key is [REDACTED], and sk-echo is not one."

    with ScriptedLLMServer([Turn.text(tokens), Turn.text(tokens)], api_key=key) as llm:
        asyncio.run(scenario())


def test_the_prompts_reading_speed_is_measured_on_the_replies_llama_cpp_times() -> None:
    # llama.cpp's `timings`: 600 tokens read (190 more from its cache) in 4 s, then 900 in 6 s; short reads (a
    # warm-up's one token) are no measure of reading.
    turns = [
        Turn.text("Twelve hours.", usage=(790, 3), timings={"prompt_n": 600, "prompt_ms": 4000.0, "cache_n": 190}),
        Turn.text("Hello.", usage=(791, 2), timings={"prompt_n": 1, "prompt_ms": 40.0, "cache_n": 790}),
        Turn.text("Twelve hours.", usage=(1090, 3), timings={"prompt_n": 900, "prompt_ms": 6000.0, "cache_n": 190}),
    ]

    async def scenario() -> list[float | None]:
        speeds = []
        async with chat_model(llm_settings(llm.base_url)) as model:
            speeds.append(model.prompt_tokens_per_second())
            for _ in turns:
                closing = (await collect(model))[-1]
                assert closing.usage is not None and closing.usage.cached_tokens >= 190
                speeds.append(model.prompt_tokens_per_second())
        return speeds

    with ScriptedLLMServer(turns) as llm:
        assert asyncio.run(scenario()) == [None, 150.0, 150.0, 150.0]
