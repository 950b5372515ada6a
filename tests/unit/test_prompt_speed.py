"""The model's prompt-reading speed over its latest replies, and the passages a question gets from it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agent.passage_budget import MIN_PASSAGE_CHARS, passage_chars
from core.chat import Usage
from core.llm_endpoints import is_nearby_host
from core.settings import Settings
from llm_client.client import OpenAICompatibleChatModel
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
    budget = passage_chars(2000, first_token_seconds=7.0, tokens_per_second=72.0, read_with=question)
    assert budget == int((72 * 7 - 120 - 14) * 3) == 1110  # a 1.5B model on two cores
    assert passage_chars(2000, first_token_seconds=7.0, tokens_per_second=2000.0, read_with=question) == 2000
    assert passage_chars(2000, first_token_seconds=7.0, tokens_per_second=5.0, read_with=question) == MIN_PASSAGE_CHARS
    # ANSWER_PASSAGE_CHARS below the floor stays as set; the limit off, or no speed measured yet: never cut.
    assert passage_chars(500, first_token_seconds=7.0, tokens_per_second=5.0, read_with=question) == 500
    assert passage_chars(2000, first_token_seconds=0.0, tokens_per_second=5.0, read_with=question) == 2000
    assert passage_chars(2000, first_token_seconds=7.0, tokens_per_second=None, read_with=question) == 2000
    # A follow-up: the earlier exchange the conversation sends again is read afresh too.
    exchange = f"{question}\nThe autolyse rests 45 minutes. " + "It is the first step of the recipe. " * 3
    followed = passage_chars(2000, first_token_seconds=7.0, tokens_per_second=72.0, read_with=exchange)
    assert followed == int((72 * 7 - 120 - math.ceil(len(exchange) / 3)) * 3) < budget


def test_passages_in_a_script_of_about_a_token_a_character_get_a_third_of_the_characters() -> None:
    question = "How long does the sourdough autolyse rest?"
    latin = "The dough rests for 45 minutes before the salt goes in. " * 4
    cjk = "面团在加盐之前静置四十五分钟。" * 10  # Qwen2.5's tokenizer: about a token a character
    by_latin = passage_chars(2000, first_token_seconds=7.0, tokens_per_second=100.0, read_with=question, sample=latin)
    by_cjk = passage_chars(2000, first_token_seconds=7.0, tokens_per_second=150.0, read_with=question, sample=cjk)
    unknown = passage_chars(2000, first_token_seconds=7.0, tokens_per_second=100.0, read_with=question)
    assert unknown == (100 * 7 - 120 - 14) * 3  # CHARS_PER_TOKEN characters a token: what ASCII text gets too
    assert by_latin == pytest.approx(unknown, rel=0.01)  # (less a token rounded up)
    assert by_cjk == 150 * 7 - 120 - 14  # one character a token: 916 characters, where Latin text gets 2,000


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


def test_the_client_asks_for_the_speed_of_the_model_it_answers_with_not_another_kept_one(tmp_path: Path) -> None:
    store = tmp_path / "prompt_speed.json"
    kept = PromptSpeed(store)
    kept.record("qwen2.5-coder-1.5b", read(400, 10.0))  # a CPU model another process timed at 40 a second
    settings = Settings(_env_file=None, llm_base_url=("http://127.0.0.1:9/v1",), llm_model="gpt-4o-mini").llm

    assert OpenAICompatibleChatModel(settings, prompt_speed=PromptSpeed(store)).prompt_tokens_per_second() is None
    unnamed = settings.model_copy(update={"model": None})  # no model configured, none asked yet: the kept one
    assert OpenAICompatibleChatModel(unnamed, prompt_speed=PromptSpeed(store)).prompt_tokens_per_second() == 40.0


def test_figures_that_are_no_speed_are_never_taken(tmp_path: Path) -> None:
    speed = PromptSpeed()
    speed.record("m", Usage(700, 5, prompt_seconds=1e-320))  # a speed that overflows to infinity
    assert speed.tokens_per_second() is None
    store = tmp_path / "prompt_speed.json"
    store.write_text('{"m": [1e308, 1e308, Infinity, NaN]}', encoding="utf-8")  # the median of two 1e308 is inf
    assert PromptSpeed(store).tokens_per_second() is None
    assert passage_chars(2000, first_token_seconds=7.0, tokens_per_second=math.inf, read_with="q") == 2000


def test_a_speed_that_cannot_be_kept_leaves_no_file_behind(tmp_path: Path) -> None:
    store = tmp_path / "prompt_speed.json"
    store.mkdir()  # a directory where the file goes: the replace fails
    speed = PromptSpeed(store)
    speed.record("m", read(700, 5.0))

    assert speed.tokens_per_second() == 140.0  # measured all the same
    assert [path.name for path in tmp_path.iterdir()] == ["prompt_speed.json"]


@pytest.mark.parametrize(
    ("host", "is_nearby"),
    [
        ("127.0.0.1", True), ("localhost", True), ("host.docker.internal", True), ("ollama", True),
        ("192.168.1.20", True), ("10.0.0.5", True), ("gpu-box.lan", True), ("studio.local", True),
        ("api.openai.com", False), ("8.8.8.8", False), ("openrouter.ai", False),
    ],
)  # fmt: skip
def test_only_a_server_nearby_is_timed_by_its_first_output(host: str, is_nearby: bool) -> None:
    assert is_nearby_host(host) is is_nearby
