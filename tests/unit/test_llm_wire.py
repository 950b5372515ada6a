"""Parsing what OpenAI-compatible servers send: streamed chunks from several servers, replies, error bodies."""

from __future__ import annotations

import json

import pytest

from core.chat import ChatMessage, ToolCall, Usage
from llm_client.completions.wire import (
    MalformedReply,
    ProviderError,
    StreamAssembler,
    error_text_from_bytes,
    first_model_id,
    result_from_wire,
)

PROMPT = (ChatMessage("user", "What is in my notes?"),)


def chunk(delta: dict[str, object], finish: str | None = None, **extra: object) -> str:
    return "data: " + json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra})


def feed(lines: list[str]) -> tuple[list[str], StreamAssembler]:
    assembler = StreamAssembler()
    texts = [text for line in lines if (text := assembler.feed_line(line))]
    return texts, assembler


def test_text_deltas_pass_through_and_comments_and_blank_lines_are_ignored() -> None:
    lines = [": keep-alive", "", chunk({"role": "assistant"}), chunk({"content": "Hel"}), "", chunk({"content": "lo"})]
    texts, assembler = feed([*lines, chunk({}, "stop"), "data: [DONE]"])
    assert texts == ["Hel", "lo"]
    closing = assembler.final_delta(PROMPT, ())
    assert (closing.finish_reason, closing.tool_calls) == ("stop", ())
    assert closing.usage is not None and closing.usage.is_estimate


def test_tool_call_fragments_are_joined_by_index_even_when_interleaved() -> None:
    lines = [
        chunk({"tool_calls": [{"index": 0, "id": "a", "type": "function", "function": {"name": "search"}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "b", "function": {"name": "read", "arguments": '{"pa'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"query": '}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"name": "read", "arguments": 'th": "x.md"}'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"bread"}'}}]}),
        chunk({}, "tool_calls"),
        "data: " + json.dumps({"choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 9}}),
        "data: [DONE]",
    ]
    _, assembler = feed(lines)
    closing = assembler.final_delta(PROMPT, ())
    assert closing.tool_calls == (
        ToolCall("a", "search", '{"query": "bread"}'),
        ToolCall("b", "read", '{"path": "x.md"}'),
    )
    assert closing.usage == Usage(prompt_tokens=20, completion_tokens=9)


def test_whole_tool_calls_without_index_and_with_object_arguments_are_kept_apart() -> None:
    # Ollama's /v1 sends each call whole in one chunk; some servers send arguments as an object.
    lines = [
        chunk({"tool_calls": [{"id": "c1", "function": {"name": "tags", "arguments": {}}}]}),
        chunk({"tool_calls": [{"id": "c2", "function": {"name": "search", "arguments": {"query": "dal"}}}]}),
        chunk({}, "tool_calls"),
    ]
    _, assembler = feed(lines)
    calls = assembler.final_delta(PROMPT, ()).tool_calls
    assert [(c.id, c.name, json.loads(c.arguments)) for c in calls] == [
        ("c1", "tags", {}),
        ("c2", "search", {"query": "dal"}),
    ]


def test_a_stream_without_done_or_finish_reason_is_incomplete() -> None:
    _, assembler = feed([chunk({"content": "cut"})])
    assert not assembler.is_complete
    _, finished = feed([chunk({"content": "whole"}, "stop")])
    assert finished.is_complete


@pytest.mark.parametrize(
    "line",
    ['data: {"error": {"message": "model crashed"}}', 'error: {"code": 500, "message": "model crashed"}'],
    ids=["data-event", "llama.cpp-error-line"],
)
def test_an_error_event_mid_stream_raises_the_providers_message(line: str) -> None:
    with pytest.raises(ProviderError, match="model crashed"):
        feed([chunk({"content": "Hi"}), line])


def test_a_chunk_that_is_not_json_is_malformed() -> None:
    with pytest.raises(MalformedReply):
        feed(["data: {not json"])


def test_a_reply_without_usage_is_estimated_from_characters() -> None:
    body = {"choices": [{"message": {"role": "assistant", "content": "12345678"}, "finish_reason": "stop"}]}
    result = result_from_wire(body, PROMPT, ())
    assert result.usage == Usage(prompt_tokens=5, completion_tokens=2, is_estimate=True)


def test_cached_tokens_and_llama_cpps_reading_time_come_with_the_usage() -> None:
    message = {"message": {"role": "assistant", "content": "Twelve hours."}, "finish_reason": "stop"}
    openai_shape = {"prompt_tokens": 790, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 512}}
    assert result_from_wire({"choices": [message], "usage": openai_shape}, PROMPT, ()).usage == Usage(
        prompt_tokens=790, completion_tokens=3, cached_tokens=512
    )
    timings = {"cache_n": 190, "prompt_n": 600, "prompt_ms": 4000.0, "predicted_n": 3}
    body = {"choices": [message], "usage": {"prompt_tokens": 790, "completion_tokens": 3}, "timings": timings}
    assert result_from_wire(body, PROMPT, ()).usage == Usage(790, 3, cached_tokens=190, prompt_seconds=4.0)
    # Timings that make no sense (a negative time, no tokens read) are not taken.
    for odd in ({"prompt_n": 0, "prompt_ms": 10.0}, {"prompt_n": 600, "prompt_ms": -1}, {"prompt_ms": "4000"}):
        assert result_from_wire({**body, "timings": odd}, PROMPT, ()).usage == Usage(790, 3)
    assert result_from_wire(
        {**body, "timings": {"prompt_n": 600, "prompt_ms": float("nan")}}, PROMPT, ()
    ).usage == Usage(790, 3)
    # The cached tokens count even where the reading time does not: the prompt was not all read.
    cached_only = {"prompt_n": 0, "prompt_ms": 0.0, "cache_n": 789}
    assert result_from_wire({**body, "timings": cached_only}, PROMPT, ()).usage == Usage(790, 3, cached_tokens=789)


def test_a_streamed_reply_gets_llama_cpps_timings_from_its_last_chunk_or_the_time_to_its_first_output() -> None:
    usage = {"prompt_tokens": 790, "completion_tokens": 1}
    timings = {"cache_n": 190, "prompt_n": 600, "prompt_ms": 4000.0}
    lines = [chunk({"role": "assistant", "content": ""}), chunk({"content": "Hi"}), chunk({}, "stop", timings=timings)]
    _, assembler = feed([*lines, "data: " + json.dumps({"choices": [], "usage": usage})])
    assert assembler.has_output
    assembler.first_output_seconds = 9.0  # the server's own figure wins
    assert assembler.final_delta(PROMPT, ()).usage == Usage(790, 1, cached_tokens=190, prompt_seconds=4.0)

    _, plain = feed(
        [chunk({"role": "assistant", "content": ""}), chunk({}, "stop"), "data: " + json.dumps({"usage": usage})]
    )
    assert not plain.has_output  # a role and no text: no output yet
    plain.first_output_seconds = 2.5
    assert plain.final_delta(PROMPT, ()).usage == Usage(790, 1, prompt_seconds=2.5)
    # Timings that give no reading time: the server's figures stand, the time to its first output is not taken.
    _, cached = feed([chunk({"content": "Hi"}), chunk({}, "stop", timings={"prompt_n": 0, "cache_n": 789})])
    cached.usage = Usage(790, 1)
    cached.first_output_seconds = 0.5
    assert cached.final_delta(PROMPT, ()).usage == Usage(790, 1, cached_tokens=789)
    _, thinking = feed([chunk({"reasoning_content": "Let me see"})])
    assert thinking.has_output  # a reasoning model's thinking is output too: the prompt has been read


def test_a_reply_without_choices_is_malformed() -> None:
    with pytest.raises(MalformedReply):
        result_from_wire({"object": "chat.completion", "choices": []}, PROMPT, ())


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"error": {"message": "Invalid model", "type": "invalid_request_error"}}', "Invalid model"),  # OpenAI
        (b'{"error": "model \\"x\\" not found, try pulling it first"}', 'model "x" not found, try pulling it first'),
        (b'{"detail": "Not authenticated"}', "Not authenticated"),  # FastAPI-based servers
        (b'{"object": "error", "message": "max_tokens too large"}', "max_tokens too large"),  # vLLM
        (b"upstream connect error", "upstream connect error"),
        (b"", "(empty body)"),
    ],
)
def test_provider_error_bodies_give_their_message(raw: bytes, expected: str) -> None:
    assert error_text_from_bytes(raw) == expected


def test_the_first_listed_model_is_used() -> None:
    assert first_model_id({"object": "list", "data": [{"id": "qwen2.5:7b"}, {"id": "llama3"}]}) == "qwen2.5:7b"
    assert first_model_id({"object": "list", "data": []}) is None
    assert first_model_id(["not", "a", "list", "reply"]) is None
