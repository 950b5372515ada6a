"""The model's prompt-reading speed over its latest replies, and the passages a question gets from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.passage_budget import MIN_PASSAGE_CHARS, passage_chars
from core.chat import Usage
from llm_client.prompt_speed import SAMPLES, PromptSpeed


def read(tokens: int, seconds: float | None, *, cached: int = 0, estimate: bool = False) -> Usage:
    return Usage(tokens + cached, 5, is_estimate=estimate, cached_tokens=cached, prompt_seconds=seconds)


def test_the_speed_is_the_median_of_the_latest_replies_of_the_model_that_answered_last() -> None:
    speed = PromptSpeed()
    assert speed.tokens_per_second() is None
    speed.record("qwen-1.5b", read(700, 10.0, cached=190))  # 70 a second: the cached tokens were not read
    speed.record("qwen-1.5b", read(700, 1.0))  # a burst on an idle machine
    speed.record("qwen-1.5b", read(600, 10.0))
    assert speed.tokens_per_second() == 70.0
    speed.record("qwen-0.5b", read(700, 5.0))  # after a failover, the other endpoint's model
    assert speed.tokens_per_second() == 140.0
    assert speed.tokens_per_second("qwen-1.5b") == 70.0
    for _ in range(SAMPLES):
        speed.record("qwen-1.5b", read(1000, 5.0))  # the machine got faster: old replies drop out
    assert speed.tokens_per_second() == 200.0


@pytest.mark.parametrize(
    "usage",
    [
        None,  # no usage at all
        read(700, 5.0, estimate=True),  # the server reported none: the counts are guesses
        read(700, None),  # a whole reply from a server without timings: no reading time
        read(1, 0.04, cached=790),  # a warm-up or a cached prompt: mostly fixed cost
        read(700, 0.0),
    ],
)
def test_what_is_no_measure_of_reading_is_left_out(usage: Usage | None) -> None:
    speed = PromptSpeed()
    speed.record("m", usage)
    assert speed.tokens_per_second() is None


def test_the_passages_are_what_the_model_reads_in_the_time_allowed_within_the_configured_bounds() -> None:
    question = "How long does the sourdough autolyse rest?"  # 14 tokens by the estimate (3 characters a token)
    budget = passage_chars(2000, first_token_seconds=7.0, tokens_per_second=72.0, question=question)
    assert budget == int((72 * 7 - 120 - 14) * 3) == 1110  # a 1.5B model on two cores
    assert passage_chars(2000, first_token_seconds=7.0, tokens_per_second=2000.0, question=question) == 2000
    assert passage_chars(2000, first_token_seconds=7.0, tokens_per_second=5.0, question=question) == MIN_PASSAGE_CHARS
    assert (
        passage_chars(500, first_token_seconds=7.0, tokens_per_second=5.0, question=question) == 500
    )  # below the floor
    assert passage_chars(2000, first_token_seconds=0.0, tokens_per_second=5.0, question=question) == 2000  # off
    assert passage_chars(2000, first_token_seconds=7.0, tokens_per_second=None, question=question) == 2000  # unmeasured


def test_the_speeds_are_kept_so_the_next_process_starts_from_them(tmp_path: Path) -> None:
    store = tmp_path / "data" / "prompt_speed.json"
    first = PromptSpeed(store)
    first.record("qwen-0.5b", read(700, 5.0))
    first.record("qwen-1.5b", read(700, 10.0))
    first.record("qwen-1.5b", read(1, 0.04, cached=790))  # no measure, but the latest reply: still the 1.5B's

    later = PromptSpeed(store)  # `librarian ask` with no server running, say
    assert later.tokens_per_second() == 70.0  # the model of the latest reply
    assert later.tokens_per_second("qwen-0.5b") == 140.0
    assert json.loads(store.read_text(encoding="utf-8")) == {"qwen-0.5b": [140.0], "qwen-1.5b": [70.0]}


@pytest.mark.parametrize("text", ["{not json", '["a list"]', '{"m": "fast"}', '{"m": [true, -3, "x"]}'])
def test_a_damaged_file_of_speeds_is_no_measurement(tmp_path: Path, text: str) -> None:
    store = tmp_path / "prompt_speed.json"
    store.write_text(text, encoding="utf-8")
    assert PromptSpeed(store).tokens_per_second() is None
