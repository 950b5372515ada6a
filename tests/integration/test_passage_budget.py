"""A question's passages fit what the model reads in ANSWER_FIRST_TOKEN_SECONDS, measured on its replies."""

from __future__ import annotations

import json
import re
from pathlib import Path

import openai
import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from app.wiring import Services
from core.settings import Settings
from rag.answer.context import PASSAGE_CHARS
from tests.live_server import agent_app, serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn

QUESTION = "How long does the sourdough autolyse rest?"
ANSWER = "The autolyse rests 45 minutes [[Sourdough#Final recipe]]."


def passages_sent(llm: ScriptedLLMServer, settings: Settings, services: Services, first: Turn) -> tuple[int, int]:
    """Ask the question twice of one librarian, the first reply scripted as `first`; return each prompt's passages."""
    services.reindexer.run_once()
    llm.add(first, Turn.text(ANSWER))
    sent = []
    with serve_in_thread(agent_app(settings, services, llm.base_url)) as base_url:
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        for _ in range(2):
            client.chat.completions.create(model="vault-librarian", messages=[{"role": "user", "content": QUESTION}])
            prompt = llm.chat_requests[-1].messages[-1]["content"]
            sent.append(sum(len(text.strip()) for text in re.findall(r"<note [^>]*>(.*?)</note>", prompt, re.DOTALL)))
    return sent[0], sent[1]


def test_a_model_llama_cpp_times_as_a_slow_reader_gets_fewer_passages_from_then_on(
    llm: ScriptedLLMServer, settings: Settings, services: Services
) -> None:
    # 600 tokens read in 12 s: 50 tokens a second, as a 1.5B model on a slow CPU. In 7 s it reads 350 tokens, less
    # the question's and the prompt's own: the floor of 800 characters.
    slow = Turn.text(ANSWER, usage=(790, 12), timings={"prompt_n": 600, "prompt_ms": 12_000.0, "cache_n": 190})
    first, second = passages_sent(llm, settings, services, slow)

    assert 800 < first <= PASSAGE_CHARS  # nothing was measured before the first question
    assert 0 < second <= 800


def test_without_the_servers_timings_the_time_to_the_first_chunk_measures_the_reading(
    llm: ScriptedLLMServer, settings: Settings, services: Services
) -> None:
    # Ollama and others give no timings: 150 tokens (none said to be cached) before the first chunk came, 0.5 s or
    # more later, is at most 300 tokens a second; allowed 1 s, the model reads the question and the floor.
    delayed = Turn.text(ANSWER, delay=0.5, usage=(150, 12))
    first, second = passages_sent(
        llm, settings.model_copy(update={"answer_first_token_seconds": 1.0}), services, delayed
    )

    assert first > 800 and 0 < second <= 800


@pytest.mark.parametrize(
    ("seconds", "timings"),
    [
        (7.0, {"prompt_n": 600, "prompt_ms": 300.0}),  # 2,000 tokens a second (a GPU): the whole budget fits
        (0.0, {"prompt_n": 600, "prompt_ms": 12_000.0}),  # ANSWER_FIRST_TOKEN_SECONDS=0: never cut
    ],
    ids=["fast-model", "turned-off"],
)
def test_a_fast_model_or_the_limit_turned_off_keeps_answer_passage_chars(
    llm: ScriptedLLMServer, settings: Settings, services: Services, seconds: float, timings: dict[str, float]
) -> None:
    measured = Turn.text(ANSWER, usage=(790, 12), timings=timings)
    first, second = passages_sent(
        llm, settings.model_copy(update={"answer_first_token_seconds": seconds}), services, measured
    )

    assert second == first > 800


def test_a_new_process_starts_from_the_speed_the_last_one_measured(tmp_path: Path) -> None:
    # `librarian ask` with no server running is a process of one question: it has timed nothing yet when its
    # passages are chosen, so it reads the speed kept in DATA_DIR.
    vault = tmp_path / "vault"
    (vault / "Kitchen").mkdir(parents=True)
    steps = [f"Step {n}: fold the sourdough, rest it {n * 5} minutes, and note how the dough feels." for n in range(40)]
    (vault / "Kitchen" / "Bread.md").write_text("# Bread\n\n## Method\n\n" + "\n".join(steps) + "\n", encoding="utf-8")
    env = {"VAULT_PATH": str(vault), "DATA_DIR": str(tmp_path / "data"), "LLM_PROBE_LOCAL_PORTS": "false"}
    assert CliRunner().invoke(cli, ["index"], env=env).exit_code == 0
    slow = Turn.text("Fold it [[Bread#Method]].", usage=(790, 5), timings={"prompt_n": 600, "prompt_ms": 12_000.0})
    sent = []
    with ScriptedLLMServer([slow, Turn.text("Fold it [[Bread#Method]].")]) as llm:
        for _ in range(2):
            result = CliRunner().invoke(
                cli, ["ask", "How do I fold the sourdough?"], env={**env, "LLM_BASE_URL": llm.base_url}
            )
            assert result.exit_code == 0, result.output
            prompt = llm.chat_requests[-1].messages[-1]["content"]
            sent.append(sum(len(text.strip()) for text in re.findall(r"<note [^>]*>(.*?)</note>", prompt, re.DOTALL)))

    assert sent[0] > 800 >= sent[1] > 0
    kept = json.loads((tmp_path / "data" / "prompt_speed.json").read_text(encoding="utf-8"))
    assert list(kept) == [llm.models[0]] and kept[llm.models[0]][0] == 50.0  # then the second reply's
