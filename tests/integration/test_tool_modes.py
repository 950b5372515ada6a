"""Models that do not call tools, over real HTTP: an unusable reply is never shown, the turn is answered without
tools, unless LLM_TOOLS says otherwise. Until the model makes a structured call (the warm-up probe asks for one),
questions are answered in one completion and change requests go through a change contract (LLM_TOOLS=auto).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import openai
import pytest

from app.wiring import Services
from core.settings import Settings
from tests.live_server import agent_app, serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

QUESTION = "Add the tag baking to the Sourdough note."  # a change: a contract, or tools for a structured caller
PLAIN = "How long does the sourdough rest in the fridge?"  # a question: tools once the model makes structured calls
ANSWER = "It rests 14 hours in the fridge [[Sourdough#Final recipe]]."
# What a small model writes when it cannot form the call: a call cut off by its token limit.
BROKEN_CALL = Turn.text(
    ['{"name": "search_notes", "arguments": {"query": "sour', "dough fridge"], finish_reason="length"
)


class Served:
    """A librarian over HTTP: ask questions, read /ready."""

    def __init__(self, base_url: str) -> None:
        self.client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        self.http = httpx.Client(base_url=base_url, timeout=30)

    def ask(self, question: str = QUESTION) -> str:
        pieces = self.client.chat.completions.create(
            model="vault-librarian", messages=[{"role": "user", "content": question}], stream=True
        )
        return "".join(chunk.choices[0].delta.content or "" for chunk in pieces if chunk.choices)

    def model_info(self) -> dict[str, Any]:
        info: dict[str, Any] = self.http.get("/ready").json()["model"]
        return info


@pytest.fixture
def serve(settings: Settings, services: Services, llm: ScriptedLLMServer) -> Iterator[Callable[..., Served]]:
    services.reindexer.run_once()
    with ExitStack() as stack:

        def start(**overrides: Any) -> Served:
            # The plain one-completion answer to questions without tools; quoting first is tested apart
            # (tests/integration/test_quoted_answers.py).
            app = agent_app(
                settings, services, llm.base_url, **{"llm_tools": "auto", "answer_quotes": False} | overrides
            )
            return Served(stack.enter_context(serve_in_thread(app)))

        yield start


def offered_tools(request: Any) -> list[str]:
    return [tool["function"]["name"] for tool in request.json.get("tools", [])]


def test_an_unusable_reply_is_never_shown_and_the_turn_is_answered_without_tools(
    serve: Callable[..., Served], llm: ScriptedLLMServer
) -> None:
    librarian = serve(llm_tools="on")
    llm.add(BROKEN_CALL, Turn.text(ANSWER))

    answer = librarian.ask()

    assert answer.startswith(ANSWER) and "search_notes" not in answer and "{" not in answer
    first, second = llm.chat_requests
    assert "search_notes" in offered_tools(first) and offered_tools(second) == []
    assert "Notes for this message" in second.messages[-1]["content"]  # the same passages, retrieved once


def wait_for_warm_up(librarian: Served) -> None:
    deadline = time.monotonic() + 10  # the warm-up records the probe's call once its reply has ended
    while librarian.model_info()["warm_up"] != "done":
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_model_that_calls_tools_keeps_them_after_one_unusable_reply(
    serve: Callable[..., Served], llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.tool_call("search_notes", {"query": "zebra"}))  # the warm-up probe: a structured call
    llm.add(Turn.text("Hello"))  # the warm-up's prefix, which times the model's reading
    librarian = serve(llm_warm_up=True)
    wait_for_warm_up(librarian)
    llm.add(Turn.tool_call("read_note", {"note": "Sourdough"}), Turn.text(ANSWER))
    llm.add(BROKEN_CALL, Turn.text(ANSWER))
    llm.add(Turn.text(ANSWER))

    answers = [librarian.ask() for _ in range(3)]

    assert all(answer.startswith(ANSWER) for answer in answers)
    assert [offered_tools(r) == [] for r in llm.chat_requests[2:]] == [False, False, False, True, False]
    assert librarian.model_info()["tools"] == "on (the model has made tool calls)"


@pytest.mark.parametrize(("setting", "offered"), [("off", [True, True]), ("on", [False, True, False])])
def test_llm_tools_forces_the_mode(
    serve: Callable[..., Served], llm: ScriptedLLMServer, setting: str, offered: list[bool]
) -> None:
    librarian = serve(llm_tools=setting)
    if setting == "off":
        llm.add(Turn.text(ANSWER), Turn.text(ANSWER))
    else:  # an unusable reply is still answered again without tools, but tools stay on for the next turn
        llm.add(BROKEN_CALL, Turn.text(ANSWER), Turn.text(ANSWER))

    assert librarian.ask(PLAIN).startswith(ANSWER) and librarian.ask(PLAIN).startswith(ANSWER)

    assert [offered_tools(r) == [] for r in llm.chat_requests] == offered
    assert librarian.model_info()["tools"].startswith(f"{setting} (LLM_TOOLS={setting})")


def test_without_a_structured_call_questions_get_one_completion_and_changes_a_contract(
    serve: Callable[..., Served], llm: ScriptedLLMServer
) -> None:
    librarian = serve()
    llm.add(Turn.text(ANSWER))  # a question: no tools
    llm.add(Turn.text('{"operation": "add_tag", "target": "Areas/Cooking/Sourdough.md", "tag": "crumb"}'))

    answer, change = librarian.ask(PLAIN), librarian.ask("Add the tag crumb to the Sourdough note.")

    assert answer.startswith(ANSWER) and "add the tag “crumb” to `Areas/Cooking/Sourdough.md`" in change
    assert "+  - crumb" in change  # the gate's diff, shown under the reply
    question, contract = llm.chat_requests
    assert offered_tools(question) == [] and offered_tools(contract) == []
    assert "search_notes" not in question.messages[0]["content"]  # the no-tools instructions
    assert contract.json["response_format"]["json_schema"]["schema"]["properties"]["target"]["enum"] == [
        "Areas/Cooking/Sourdough.md"
    ]
    assert librarian.model_info()["tools"].startswith("changes by contract (no structured tool call")


def test_a_question_answered_with_a_call_written_as_text_gets_the_passages_never_the_json(
    serve: Callable[..., Served], llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text('{"name": "search_notes", "arguments": {"query": "sourdough fridge"}}'))

    answer = serve().ask(PLAIN)

    assert "search_notes" not in answer and "{" not in answer
    assert "[[Sourdough" in answer  # the retrieval-only reply: the passages found for the question
    assert len(llm.chat_requests) == 1 and offered_tools(llm.chat_requests[0]) == []
