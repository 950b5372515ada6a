"""A chat app's background chores (Open WebUI's title, tags, follow-ups) reach the model as sent, over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from agent.chat_app_tasks import NO_MODEL_FOR_TASKS
from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from rag.answer.quoted_evidence import EVIDENCE_HEADING
from tests.live_server import agent_app, serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

QUESTION = "How long does the sourdough autolyse rest?"
ANSWER = "The autolyse rests 45 minutes [[Sourdough#Final recipe]]."
CHAT_ID = "7c1e7d0a-owui-chat"
# Open WebUI's default title prompt (its DEFAULT_TITLE_GENERATION_PROMPT_TEMPLATE, shortened), the chat filled in.
TITLE_TASK = f"""### Task:
Generate a concise, 3-5 word title with an emoji summarizing the chat history.
### Guidelines:
- The title should clearly represent the main theme or subject of the conversation.
### Output:
JSON format: {{ "title": "your concise title here" }}
### Chat History:
<chat_history>
USER: {QUESTION}
ASSISTANT: {ANSWER}
</chat_history>"""
TITLE = '{ "title": "🍞 Sourdough Autolyse Timing" }'
FOLLOW_UPS_TASK = (
    "### Task:\nSuggest 3-5 relevant follow-up questions the user might ask.\n"
    + TITLE_TASK.split("### Chat History:")[1]
)
FOLLOW_UPS = '{ "follow_ups": ["How long is the bulk fermentation?", "How much water goes into the dough?"] }'


@pytest.fixture
def url(settings: Settings, services: Services, llm: ScriptedLLMServer) -> Iterator[str]:
    services.reindexer.run_once()
    with serve_in_thread(agent_app(settings, services, llm.base_url)) as base_url:
        yield base_url


def complete(url: str, messages: list[dict[str, Any]], *, stream: bool) -> str:
    body = {"model": "vault-librarian", "messages": messages, "stream": stream}
    headers = {"X-OpenWebUI-Chat-Id": CHAT_ID}  # Open WebUI sends the chat's id with its chores too
    if not stream:
        response = httpx.post(f"{url}/v1/chat/completions", json=body, headers=headers, timeout=60)
        assert response.status_code == 200, response.text
        return str(response.json()["choices"][0]["message"]["content"])
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, headers=headers, timeout=60) as response:
        assert response.status_code == 200
        payloads = [line[6:] for line in response.iter_lines() if line.startswith("data: ")]
    chunks = [json.loads(payload) for payload in payloads if payload != "[DONE]"]
    return "".join(chunk["choices"][0]["delta"].get("content") or "" for chunk in chunks if chunk["choices"])


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_a_title_chore_gets_the_models_own_reply_to_the_messages_sent(
    url: str, llm: ScriptedLLMServer, stream: bool
) -> None:
    llm.add(Turn.text(ANSWER))
    answer = complete(url, [{"role": "user", "content": QUESTION}], stream=stream)
    assert answer.startswith(ANSWER) and "Sources:" in answer  # the question is answered from the notes
    llm.add(Turn.text(TITLE))

    title = complete(url, [{"role": "user", "content": TITLE_TASK}], stream=stream)

    assert title == TITLE  # JSON the app can read: nothing quoted or listed after it
    sent = llm.chat_requests[-1].messages
    assert sent == [{"role": "user", "content": TITLE_TASK}]  # no grounding rules, no passages, no tools
    assert "tools" not in (llm.chat_requests[-1].json or {})


def test_chores_are_not_turns_of_the_conversation(url: str, llm: ScriptedLLMServer) -> None:
    llm.add(Turn.text(ANSWER), Turn.text(TITLE), Turn.text(FOLLOW_UPS), Turn.text("About 5 hours at 24 °C."))
    history = [{"role": "user", "content": QUESTION}]
    history.append({"role": "assistant", "content": complete(url, history, stream=True)})

    assert complete(url, [{"role": "user", "content": TITLE_TASK}], stream=False) == TITLE
    assert complete(url, [{"role": "user", "content": FOLLOW_UPS_TASK}], stream=False) == FOLLOW_UPS
    history.append({"role": "user", "content": "And the bulk fermentation?"})
    follow_up = complete(url, history, stream=True)

    assert follow_up.startswith("About 5 hours at 24 °C.")
    prompt = json.dumps(llm.chat_requests[-1].messages)
    assert "### Task" not in prompt and "follow_ups" not in prompt and "Sourdough Autolyse Timing" not in prompt
    assert "<note source=" in prompt  # the user's question is answered from the notes, as the first was


def test_without_a_model_a_chore_is_told_so_without_passages(settings: Settings, services: Services) -> None:
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"relevance_floor": -1.0, "watch": False}), services)
    body = {"model": "vault-librarian", "messages": [{"role": "user", "content": TITLE_TASK}]}
    with TestClient(app, base_url="http://127.0.0.1") as client:
        response = client.post("/v1/chat/completions", json=body)
        question = client.post(
            "/v1/chat/completions", json={**body, "messages": [{"role": "user", "content": QUESTION}]}
        )

    assert response.status_code == 200, response.text
    assert response.json()["choices"][0]["message"]["content"] == NO_MODEL_FOR_TASKS  # no JSON: the app's fallback
    assert "[[Sourdough#" in question.json()["choices"][0]["message"]["content"]  # questions still get passages
    assert EVIDENCE_HEADING not in response.text


def test_a_pasted_note_with_a_task_heading_is_a_question_like_any_other(url: str, llm: ScriptedLLMServer) -> None:
    llm.add(Turn.text(ANSWER))
    pasted = "### Task: bake\nHow long does the sourdough autolyse rest?"

    answer = complete(url, [{"role": "user", "content": pasted}], stream=False)

    assert answer.startswith(ANSWER) and "Sources:" in answer
    assert "<note source=" in json.dumps(llm.chat_requests[-1].messages)  # searched and grounded
