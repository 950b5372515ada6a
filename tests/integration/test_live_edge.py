"""The HTTP edge through a live uvicorn server, driven by the official `openai` SDK and httpx like real clients."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from pydantic import SecretStr

from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from tests.fakes import ScriptedAnswerer
from tests.live_server import serve_in_thread

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

ANSWER = "Hello from the notes."
STAINLESS = {
    "x-stainless-os": "MacOS",
    "x-stainless-lang": "js",
    "x-stainless-package-version": "4.73.1",
    "x-stainless-runtime": "browser:chrome",
    "x-stainless-runtime-version": "130.0.0",
    "x-stainless-arch": "unknown",
    "x-stainless-retry-count": "0",
    "x-stainless-timeout": "600",
}


def serve(settings: Settings, services: Services, answerer: ScriptedAnswerer, **overrides: Any) -> Any:
    app = create_app(settings.model_copy(update={"watch": False, **overrides}), services, answerer=answerer)
    return serve_in_thread(app)


@pytest.fixture
def answerer() -> ScriptedAnswerer:
    return ScriptedAnswerer()


@pytest.fixture
def base_url(settings: Settings, services: Services, answerer: ScriptedAnswerer) -> Iterator[str]:
    with serve(settings, services, answerer, max_body_bytes=4_000) as url:
        yield url


def sdk(base_url: str, api_key: str = "unused", **kwargs: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{base_url}/v1", api_key=api_key, max_retries=0, timeout=30, **kwargs)


def test_an_open_webui_style_streamed_request_gets_the_answer_and_usage(
    base_url: str, answerer: ScriptedAnswerer
) -> None:
    parts: Any = [
        {"type": "text", "text": "What did I plant"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        {"type": "text", "text": "in spring?"},
    ]
    stream = sdk(base_url).chat.completions.create(
        model="vault-librarian",
        messages=[{"role": "system", "content": "You are helpful."}, {"role": "user", "content": parts}],
        stream=True,
        stream_options={"include_usage": True},
        metadata={"chat_id": "owui-42", "message_id": "m-1"},
        extra_headers={"X-OpenWebUI-Chat-Id": "owui-42"},
        extra_body={"user": {"id": "u-1", "name": "Ada", "role": "user"}},
    )
    chunks = list(stream)

    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == ANSWER
    assert chunks[-1].choices == [] and chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
    turn = answerer.turns[-1]
    assert turn.conversation_id == "h:owui-42"
    assert turn.messages[-1].content == "What did I plant\nin spring?"


def test_an_obsidian_copilot_style_request_streams_with_cors_headers(base_url: str) -> None:
    preflight = httpx.options(
        f"{base_url}/v1/chat/completions",
        headers={
            "Origin": "app://obsidian.md",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": ",".join(["authorization", "content-type", *STAINLESS]),
        },
    )
    client = sdk(base_url, default_headers={"Origin": "app://obsidian.md", **STAINLESS})
    raw = client.chat.completions.with_raw_response.create(
        model="vault-librarian",
        messages=[{"role": "user", "content": "What did I plant in spring?"}],
        stream=True,
        max_tokens=1000,
        temperature=0.1,
    )
    text = "".join(c.choices[0].delta.content or "" for c in raw.parse() if c.choices)

    assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == "app://obsidian.md"
    assert raw.headers["access-control-allow-origin"] == "app://obsidian.md"
    assert text == ANSWER


def test_a_non_streamed_sdk_request_gets_the_whole_completion(base_url: str) -> None:
    completion = sdk(base_url).chat.completions.create(
        model="vault-librarian", messages=[{"role": "user", "content": "What is in my notes?"}]
    )

    assert completion.choices[0].message.content == ANSWER
    assert completion.usage is not None and completion.usage.total_tokens > 0


@pytest.mark.parametrize(
    ("messages", "fragment"),
    [
        ([{"role": "system", "content": "Be brief."}], "no user message"),
        ([{"role": "wizard", "content": "hello"}], "messages.0.role: Input should be 'system', 'developer'"),
    ],
    ids=["no-user-message", "unknown-role"],
)
def test_bad_conversations_raise_bad_request_in_the_sdk(base_url: str, messages: Any, fragment: str) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        sdk(base_url).chat.completions.create(model="vault-librarian", messages=messages)

    assert caught.value.status_code == 400
    assert fragment in caught.value.message


def test_malformed_json_gets_an_openai_shaped_400(base_url: str) -> None:
    response = httpx.post(
        f"{base_url}/v1/chat/completions", content=b'{"messages": [', headers={"Content-Type": "application/json"}
    )

    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"


def test_an_oversized_body_raises_413_in_the_sdk(base_url: str) -> None:
    with pytest.raises(openai.APIStatusError) as caught:
        sdk(base_url).chat.completions.create(
            model="vault-librarian", messages=[{"role": "user", "content": "x" * 20_000}]
        )

    assert caught.value.status_code == 413
    assert caught.value.code == "request_too_large"


def test_an_oversized_chunked_body_gets_413(base_url: str) -> None:
    body = json.dumps({"messages": [{"role": "user", "content": "x" * 20_000}]}).encode()

    def pieces() -> Iterator[bytes]:
        for start in range(0, len(body), 1_000):
            yield body[start : start + 1_000]

    response = httpx.post(
        f"{base_url}/v1/chat/completions", content=pieces(), headers={"Content-Type": "application/json"}, timeout=30
    )

    assert response.request.headers["transfer-encoding"] == "chunked"
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"


def test_a_wrong_api_key_raises_authentication_error_without_echoing_keys(
    settings: Settings, services: Services
) -> None:
    with serve(settings, services, ScriptedAnswerer(), api_key=SecretStr("the-right-key-123")) as url:
        with pytest.raises(openai.AuthenticationError) as caught:
            sdk(url, api_key="a-wrong-key-456").chat.completions.create(
                model="vault-librarian", messages=[{"role": "user", "content": "hi"}]
            )
        allowed = sdk(url, api_key="the-right-key-123").models.list()

    assert caught.value.status_code == 401
    body = caught.value.response.text
    assert "a-wrong-key-456" not in body and "the-right-key-123" not in body
    assert [model.id for model in allowed.data] == ["vault-librarian"]


def test_a_foreign_host_header_is_refused(base_url: str) -> None:
    response = httpx.get(f"{base_url}/v1/models", headers={"Host": "evil.example"})

    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"


def test_stream_lines_end_with_a_bare_newline(base_url: str) -> None:
    body = {"model": "vault-librarian", "stream": True, "messages": [{"role": "user", "content": "garden?"}]}
    with httpx.stream("POST", f"{base_url}/v1/chat/completions", json=body, timeout=30) as response:
        raw = response.read()

    assert b"\r" not in raw
    assert raw.endswith(b"data: [DONE]\n\n")


def test_keepalive_takes_fractions_of_a_second(settings: Settings, services: Services) -> None:
    slow = ScriptedAnswerer(("late",), delay_first=0.8)
    body = {"model": "vault-librarian", "stream": True, "messages": [{"role": "user", "content": "garden?"}]}
    with (
        serve(settings, services, slow, keepalive_seconds=0.2) as url,
        httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=30) as response,
    ):
        lines = list(response.iter_lines())

    first_text = next(i for i, line in enumerate(lines) if "late" in line)
    assert sum(1 for line in lines[:first_text] if line.startswith(":")) >= 2  # about one per 0.2 s, not per 1 s
