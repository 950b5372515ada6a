"""Answers that quote before they claim, over the chat endpoint, with replies recorded from the real 0.5B model.

The fixtures in tests/fixtures/quoted_answers/ are Qwen2.5-Coder-0.5B-Instruct (Q4_K_M, llama.cpp llama-server) replies
to the quote call, recorded with `python -m bench.recording_proxy --upstream http://127.0.0.1:8081 --port 18092
--out DIR` in front of llama.cpp while a service built as these tests build it (a copy of sample_vault, the
HashingEmbedder, RELEVANCE_FLOOR=-1, LLM_TOOLS=auto, no warm-up) answered the question over /v1/chat/completions;
Each test checks the service still sends the passages the model was recorded reading, so a replayed quote is
checked against the same text. The chili oil and race result replies were recorded again when the passages' shares
changed (stop 36): the race result's reply is its first, as before a quote of its own; the chili oil's is its third
at temperature 0.2 (its first two quoted the right sentences but answered "At 120 °C the flakes burned …" and "At
150 °C the flakes burned …"). (Asked without `response_format`, the 0.5B still wrote valid JSON for the bake
question, so the repair round replays its recorded prose answer to the plain prompt as the unreadable reply.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import openai
import pytest

from app.wiring import Services
from core.settings import Settings
from rag.answer.context import REFUSAL
from tests.live_server import agent_app, serve_in_thread
from tests.recorded_replies import RecordedReply, load_recording, recorded
from tests.scripted_llm import RecordedRequest, ScriptedLLMServer

FIXTURES = Path(__file__).parent.parent / "fixtures" / "quoted_answers"
_TODAY = re.compile(r"^Today is [^\n]*\n\n")


def quoted(name: str) -> RecordedReply:
    return load_recording(FIXTURES / f"{name}.json")


Ask = Callable[[str], str]


@pytest.fixture
def serve(settings: Settings, services: Services) -> Iterator[Callable[[ScriptedLLMServer], Ask]]:
    """Return a function starting the service against a scripted model; it returns how to ask one question."""
    services.reindexer.run_once()
    with ExitStack() as stack:

        def start(llm: ScriptedLLMServer) -> Ask:
            app = agent_app(settings, services, llm.base_url, llm_tools="auto", answer_quotes=True)
            base = stack.enter_context(serve_in_thread(app))
            client = openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0)

            def ask(question: str) -> str:
                pieces = client.chat.completions.create(
                    model="vault-librarian", messages=[{"role": "user", "content": question}], stream=True
                )
                return "".join(chunk.choices[0].delta.content or "" for chunk in pieces if chunk.choices)

            return ask

        yield start


@pytest.fixture
def ask(serve: Callable[[ScriptedLLMServer], Ask], llm: ScriptedLLMServer) -> Ask:
    return serve(llm)


def notes_read(messages: list[dict[str, Any]]) -> str:
    """Return the passages and question of a quote call's last message, without its date."""
    return _TODAY.sub("", messages[-1]["content"])


def assert_same_passages(sent: RecordedRequest, reply: RecordedReply) -> None:
    assert notes_read(sent.messages) == notes_read(reply.request["messages"])
    assert sent.messages[0] == reply.request["messages"][0]  # the same system message


def test_an_answer_is_shown_from_verified_quotes_with_checked_citations(ask: Ask, llm: ScriptedLLMServer) -> None:
    reply = quoted("chili-oil")
    llm.add(reply.turn())

    answer = ask(reply.question.rsplit("Question: ", 1)[1])

    (sent,) = llm.chat_requests
    assert_same_passages(sent, reply)
    assert sent.response_format is not None
    schema = sent.response_format["json_schema"]["schema"]
    ids = re.findall(r'<note id="(N\d+)"', sent.messages[-1]["content"])
    assert schema["properties"]["quotes"]["items"]["properties"]["passage"]["enum"] == ids
    assert answer.startswith("At 120 °C they sizzle and turn deep red.\n\nYour notes say:\n")
    assert '- "At 150 °C the flakes burned' in answer and 'turn deep red" [[Chili Oil#Recipe]]' in answer
    assert answer.endswith("\n\nSources:\n- [[Chili Oil#Recipe]]")


def test_a_quote_the_passages_do_not_hold_is_rejected_and_the_question_refused(
    ask: Ask, llm: ScriptedLLMServer
) -> None:
    # The 0.5B restated the question as its quote ("The sourdough loaf was baked with the lid on and off."): its
    # passages held the recipe up to the cold retard, not the bake. Since embedded text is sent once (the weekly
    # review's copy of the recipe no longer takes its room) they hold the bake step too, so this recorded reply is
    # replayed against passages it was not written from; what is tested holds either way: no passage holds the quote.
    reply = quoted("fabricated-bake")
    llm.add(reply.turn())

    answer = ask("How is the sourdough loaf baked, with the lid on and off?")

    sent = llm.chat_requests[0]
    assert sent.messages[0] == reply.request["messages"][0]  # the same system message
    assert "**Bake** straight from the fridge" in notes_read(sent.messages)
    assert "was baked with the lid on and off" in reply.text
    assert "was baked with the lid on and off" not in notes_read(sent.messages)
    assert answer.startswith(f"{REFUSAL} The closest notes I read don't say it:")
    assert "was baked" not in answer and "Sources:" not in answer


def test_a_near_miss_is_refused_listing_the_closest_notes(ask: Ask, llm: ScriptedLLMServer) -> None:
    reply = quoted("near-miss-race-result")
    llm.add(reply.turn())

    answer = ask("What was my finish time at the Leipzig Half Marathon 2027?")

    assert_same_passages(llm.chat_requests[0], reply)
    # The 0.5B quoted the race goal as a finish time ("My finish time ... is 1:49:00."): no note says that.
    assert "My finish time" in reply.text
    lines = answer.splitlines()
    assert lines[0] == f"{REFUSAL} The closest notes I read don't say it:"
    assert lines[1:] == ["- [[2026-11-02#Notes]]", "- [[Half Marathon Plan#Goal]]", "- [[Half Marathon Plan#Gear]]"]


def test_an_endpoint_without_constrained_decoding_gets_one_repair_round(
    serve: Callable[[ScriptedLLMServer], Ask],
) -> None:
    # The endpoint refuses `response_format` (llama.cpp before json_schema support); the 0.5B then answers in
    # prose (its real reply to this question under the plain prompt, tests/fixtures/small_model_replies), and is
    # asked once more, saying what was wrong.
    prose = recorded("p1-question-sourdough.1")
    reply = quoted("chili-oil")
    with ScriptedLLMServer(reject_response_format=True) as strict:
        strict.add(prose.turn(), reply.turn())

        answer = serve(strict)(reply.question.rsplit("Question: ", 1)[1])

        refused, first, repair = strict.chat_requests
    assert refused.response_format is not None and first.response_format is None
    assert repair.messages[:-2] == first.messages and repair.messages[-2]["content"] == prose.text
    assert repair.messages[-1]["content"].startswith("Your reply could not be read: the reply must be one JSON")
    assert answer.startswith("At 120 °C they sizzle and turn deep red.")
