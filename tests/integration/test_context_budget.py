"""The chat agent fits its prompt into the context window the endpoint reports (llama.cpp's /props), over HTTP."""

from __future__ import annotations

import logging
import re
from typing import Any

import openai
import pytest

from app.wiring import Services
from core.settings import Settings
from tests.live_server import agent_app, serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

QUESTION = "How long does the sourdough rest in the fridge?"
ANSWER = "It rests 14 hours in the fridge [[Sourdough#Final recipe]]."


def history(exchanges: int) -> list[dict[str, str]]:
    messages = []
    for number in range(exchanges):
        messages.append({"role": "user", "content": f"Earlier question {number}: " + "tell me more " * 60})
        messages.append({"role": "assistant", "content": f"Earlier answer {number}: " + "the notes say " * 60})
    return messages


def ask_with_window(
    settings: Settings, services: Services, llm: ScriptedLLMServer, *, n_ctx: int | None, **overrides: Any
) -> list[dict[str, Any]]:
    """Ask once after a long history, with llama.cpp reporting `n_ctx` (None: no /props); return what was sent."""
    if n_ctx is not None:
        llm.routes["GET /props"] = {"default_generation_settings": {"n_ctx": n_ctx}, "total_slots": 1}
    llm.add(Turn.text(ANSWER))
    app = agent_app(settings, services, llm.base_url, **overrides)
    with serve_in_thread(app) as base_url:
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        messages = [*history(6), {"role": "user", "content": QUESTION}]
        reply = client.chat.completions.create(model="vault-librarian", messages=messages)  # type: ignore[arg-type]
    assert (reply.choices[0].message.content or "").startswith(ANSWER)
    return llm.chat_requests[-1].messages


def earlier(sent: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in sent[1:-1] if m["role"] in ("user", "assistant")]


@pytest.fixture(autouse=True)
def indexed(services: Services) -> None:
    services.reindexer.run_once()


def test_a_window_with_room_gets_the_history_as_capped_before(
    settings: Settings, services: Services, llm: ScriptedLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="agent.context_fit"):
        sent = ask_with_window(settings, services, llm, n_ctx=32_768)
    assert len(earlier(sent)) >= 6
    assert not [r for r in caplog.records if r.name == "agent.context_fit"]


def test_a_small_window_drops_the_oldest_turns_keeps_the_rules_and_question_and_says_so(
    settings: Settings, services: Services, llm: ScriptedLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    roomy = ask_with_window(settings, services, llm, n_ctx=32_768)
    with caplog.at_level(logging.WARNING, logger="agent.context_fit"):
        sent = ask_with_window(settings, services, llm, n_ctx=3_000)

    kept = earlier(sent)
    assert len(kept) < len(earlier(roomy))
    assert kept == earlier(roomy)[len(earlier(roomy)) - len(kept) :]  # the newest ones stay
    assert not kept or kept[0].startswith("Earlier question")  # the history still starts with a user message
    assert sent[0] == roomy[0] and sent[-1]["content"].endswith(QUESTION)
    warnings = [r.getMessage() for r in caplog.records if r.name == "agent.context_fit"]
    assert len(warnings) == 1 and "3000-token context" in warnings[0] and "earlier message(s) left out" in warnings[0]


def test_llm_context_tokens_stands_in_for_an_endpoint_that_does_not_say(
    settings: Settings, services: Services, llm: ScriptedLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="agent.context_fit"):
        sent = ask_with_window(settings, services, llm, n_ctx=None, llm_context_tokens=3_000)
    assert "3000-token context" in " ".join(r.getMessage() for r in caplog.records)
    assert sent[-1]["content"].endswith(QUESTION)


def words_and_marks(text: str) -> list[int]:
    """A tokenizer like a real one on English prose: a token a word or mark (about 4.5 characters a token here)."""
    return [hash(piece) % 50_000 for piece in re.findall(r"\w+|[^\w\s]", text)]


@pytest.mark.parametrize("counts", [True, False], ids=["llama.cpp counts", "no count"])
def test_a_long_pasted_message_keeps_the_passages_when_the_server_counts_it_within_the_window(
    settings: Settings, services: Services, llm: ScriptedLLMServer, counts: bool
) -> None:
    # 16,000 characters of prose: 5,334 tokens estimated at 3 characters a token, about 3,600 counted.
    pasted = "The quick brown fox jumps over the lazy dog. " * 356 + QUESTION
    llm.routes["GET /props"] = {"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1}
    llm.tokenize = words_and_marks if counts else None
    llm.add(Turn.text(ANSWER))
    with serve_in_thread(agent_app(settings, services, llm.base_url)) as base_url:
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        client.chat.completions.create(model="vault-librarian", messages=[{"role": "user", "content": pasted}])

    sent = llm.chat_requests[-1].messages[-1]["content"]
    assert sent.endswith(pasted)
    assert ("[[Sourdough#" in sent) is counts  # estimated alone, every passage went
    counted = [request.json for request in llm.requests if request.path == "/tokenize"]
    assert len(counted) == (2 if counts else 1)  # the whole prompt, then what is kept; a server without it once
