"""The HTTP edge over create_app with a scripted answerer: OpenAI shapes, errors, auth, CORS, limits, streaming."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from typer.testing import CliRunner

from app.cli.main import cli
from app.http.main import create_app
from app.http.security import MIN_API_KEY_LENGTH
from app.wiring import Services
from core.errors import InvalidRequest
from core.settings import Settings
from tests.fakes import ScriptedAnswerer

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

QUESTION = {"model": "vault-librarian", "messages": [{"role": "user", "content": "What is in my notes?"}]}
API_KEY = "s3cret-key-for-tests"  # 20 characters: long enough to listen beyond loopback
LOOPBACK_URL = "http://127.0.0.1"  # TestClient's default host, "testserver", is refused like any foreign name


def make_client(settings: Settings, services: Services, answerer: ScriptedAnswerer, **overrides: Any) -> TestClient:
    app = create_app(settings.model_copy(update=overrides), services, answerer=answerer)
    return TestClient(app, base_url=LOOPBACK_URL)


@pytest.fixture
def answerer() -> ScriptedAnswerer:
    return ScriptedAnswerer()


@pytest.fixture
def client(settings: Settings, services: Services, answerer: ScriptedAnswerer) -> Iterator[TestClient]:
    with make_client(settings, services, answerer) as test_client:
        yield test_client


def sse_payloads(text: str) -> list[str]:
    return [line[len("data: ") :] for line in text.splitlines() if line.startswith("data: ")]


def test_non_streamed_completion_has_the_openai_shape(client: TestClient) -> None:
    response = client.post("/v1/chat/completions", json=QUESTION)

    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion" and body["model"] == "vault-librarian"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "Hello from the notes."}
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"] == {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}


def test_streamed_completion_sends_chunks_usage_and_done(client: TestClient) -> None:
    request = {**QUESTION, "stream": True, "stream_options": {"include_usage": True}}
    with client.stream("POST", "/v1/chat/completions", json=request) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        payloads = sse_payloads(response.read().decode())

    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(p) for p in payloads[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == "Hello from the notes."
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 8


def test_a_failure_mid_stream_ends_with_an_error_chunk_and_done(settings: Settings, services: Services) -> None:
    failing = ScriptedAnswerer(("partial", " answer", " never"), fail_after=2)
    with (
        make_client(settings, services, failing) as client,
        client.stream("POST", "/v1/chat/completions", json={**QUESTION, "stream": True}) as response,
    ):
        payloads = sse_payloads(response.read().decode())

    assert payloads[-1] == "[DONE]"
    error = json.loads(payloads[-2])["error"]
    assert error["type"] == "service_unavailable_error" and "scripted failure" in error["message"]
    assert "Traceback" not in "".join(payloads)


def test_content_parts_are_read_as_text_and_other_parts_ignored(client: TestClient, answerer: ScriptedAnswerer) -> None:
    parts = [
        {"type": "text", "text": "Summarise"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        {"type": "text", "text": "my garden notes"},
    ]
    request = {"messages": [{"role": "user", "content": parts}], "temperature": 0.2, "top_p": 1, "seed": 7}

    response = client.post("/v1/chat/completions", json=request)

    assert response.status_code == 200
    assert answerer.turns[-1].messages[-1].content == "Summarise\nmy garden notes"


@pytest.mark.parametrize(
    ("body", "status", "error_type", "fragment"),
    [
        (b"{not json", 400, "invalid_request_error", "not valid JSON"),
        (json.dumps({"messages": []}).encode(), 400, "invalid_request_error", "at least one message"),
        (
            json.dumps({"messages": [{"role": "system", "content": "x"}]}).encode(),
            400,
            "invalid_request_error",
            "no user message",
        ),
        (
            json.dumps({"messages": [{"role": "wizard", "content": "x"}]}).encode(),
            400,
            "invalid_request_error",
            "messages.0.role: Input should be 'system', 'developer', 'user', 'assistant' or 'tool', got 'wizard'",
        ),
        (json.dumps({"messages": "hello"}).encode(), 400, "invalid_request_error", "messages"),
    ],
    ids=["malformed-json", "no-messages", "no-user-message", "unknown-role", "wrong-type"],
)
def test_bad_requests_get_openai_shaped_errors(
    client: TestClient, body: bytes, status: int, error_type: str, fragment: str
) -> None:
    response = client.post("/v1/chat/completions", content=body, headers={"Content-Type": "application/json"})

    assert response.status_code == status
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == error_type and fragment in error["message"]
    assert error["param"] in (None, "messages", "messages.0.role")


def test_oversized_bodies_are_refused_with_413(settings: Settings, services: Services) -> None:
    with make_client(settings, services, ScriptedAnswerer(), max_body_bytes=2_000) as client:
        big = {"messages": [{"role": "user", "content": "x" * 5_000}]}
        response = client.post("/v1/chat/completions", json=big)

    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"


def test_api_key_is_required_on_v1_when_configured(settings: Settings, services: Services) -> None:
    with make_client(settings, services, ScriptedAnswerer(), api_key=SecretStr(API_KEY)) as client:
        missing = client.post("/v1/chat/completions", json=QUESTION)
        wrong = client.get("/v1/models", headers={"Authorization": "Bearer nope"})
        right = client.get("/v1/models", headers={"Authorization": f"Bearer {API_KEY}"})
        health = client.get("/health")

    assert missing.status_code == 401 and missing.json()["error"]["type"] == "authentication_error"
    assert API_KEY not in missing.text
    assert wrong.status_code == 401
    assert right.status_code == 200
    assert health.status_code == 200


@pytest.mark.parametrize(
    ("authorization", "status"),
    [
        (f"Bearer {API_KEY}", 200),
        (f"bearer {API_KEY}", 200),
        (f"BEARER {API_KEY}", 200),
        (f"Bearer   {API_KEY}", 200),
        (f"Basic {API_KEY}", 401),
        (API_KEY, 401),
        (f"Bearer {API_KEY}x", 401),
        ("Bearer", 401),
        (f"Bearer {API_KEY[:-1]}", 401),
    ],
    ids=["canonical", "lower", "upper", "spaces", "basic", "bare-key", "longer", "no-key", "shorter"],
)
def test_the_bearer_scheme_is_case_insensitive_and_the_key_exact(
    settings: Settings, services: Services, authorization: str, status: int
) -> None:
    with make_client(settings, services, ScriptedAnswerer(), api_key=SecretStr(API_KEY)) as client:
        response = client.get("/v1/models", headers={"Authorization": authorization})

    assert response.status_code == status


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::"])
def test_a_short_api_key_is_refused_beyond_loopback(settings: Settings, services: Services, host: str) -> None:
    short = settings.model_copy(update={"host": host, "api_key": SecretStr("x" * (MIN_API_KEY_LENGTH - 1))})
    long_enough = settings.model_copy(update={"host": host, "api_key": SecretStr("x" * MIN_API_KEY_LENGTH)})

    with pytest.raises(InvalidRequest) as refused:
        create_app(short, services, answerer=ScriptedAnswerer())
    create_app(long_enough, services, answerer=ScriptedAnswerer())

    assert refused.value.message.startswith(f"refusing to listen on {host} with an API_KEY of 15 characters")
    assert "at least 16" in refused.value.message and "x" * 15 not in refused.value.message


def test_any_api_key_length_is_accepted_on_loopback(settings: Settings, services: Services) -> None:
    with make_client(settings, services, ScriptedAnswerer(), api_key=SecretStr("abc")) as client:
        response = client.get("/v1/models", headers={"Authorization": "Bearer abc"})

    assert response.status_code == 200


def test_serve_refuses_a_short_api_key_beyond_loopback(vault: Path, tmp_path: Path) -> None:
    env = {"VAULT_PATH": str(vault), "DATA_DIR": str(tmp_path / "data"), "API_KEY": "short-key"}

    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0"], env=env)

    assert result.exit_code == 2, result.output
    assert "with an API_KEY of 9 characters" in " ".join(result.stderr.split())
    assert "short-key" not in result.output


def test_models_lists_the_one_model(client: TestClient) -> None:
    body = client.get("/v1/models").json()

    assert [model["id"] for model in body["data"]] == ["vault-librarian"]


def test_cors_preflight_from_obsidian_is_allowed_and_others_are_not(client: TestClient) -> None:
    def preflight(origin: str) -> Any:
        return client.options(
            "/v1/chat/completions",
            headers={
                "Origin": origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type",
            },
        )

    obsidian = preflight("app://obsidian.md")
    local = preflight("http://localhost:3000")
    evil = preflight("https://evil.example")

    assert obsidian.status_code == 200 and obsidian.headers["access-control-allow-origin"] == "app://obsidian.md"
    assert local.headers["access-control-allow-origin"] == "http://localhost:3000"
    assert "access-control-allow-origin" not in evil.headers


def test_unknown_paths_get_openai_shaped_404(client: TestClient) -> None:
    response = client.get("/v1/nothing-here")

    assert response.status_code == 404 and "error" in response.json()


def test_ready_reports_checks_and_mode(client: TestClient) -> None:
    response = client.get("/ready")

    assert response.status_code == 200
    body = response.json()
    assert body["checks"]["vector_store"] == "ok" and body["checks"]["docstore"] == "ok"
    assert body["mode"] == "scripted"


def test_the_conversation_id_comes_from_headers_user_or_history(client: TestClient, answerer: ScriptedAnswerer) -> None:
    client.post("/v1/chat/completions", json=QUESTION, headers={"X-Conversation-Id": "abc"})
    client.post("/v1/chat/completions", json=QUESTION, headers={"X-OpenWebUI-Chat-Id": "owui-1"})
    client.post("/v1/chat/completions", json={**QUESTION, "user": "alice"})
    client.post("/v1/chat/completions", json=QUESTION)
    follow_up = [{"role": "assistant", "content": "x"}, {"role": "user", "content": "more"}]
    longer = {"messages": [*QUESTION["messages"], *follow_up]}
    client.post("/v1/chat/completions", json=longer)

    ids = [turn.conversation_id for turn in answerer.turns]
    assert ids[:3] == ["h:abc", "h:owui-1", "u:alice"]
    assert ids[3] == ids[4] and ids[3].startswith("d:")


STAINLESS_HEADERS = (
    "x-stainless-os,x-stainless-lang,x-stainless-package-version,x-stainless-runtime,"
    "x-stainless-runtime-version,x-stainless-arch,x-stainless-retry-count,x-stainless-timeout"
)


def test_cors_preflight_allows_the_openai_js_sdk_headers_obsidian_copilot_sends(client: TestClient) -> None:
    response = client.options(
        "/v1/chat/completions",
        headers={
            "Origin": "app://obsidian.md",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": f"authorization,content-type,{STAINLESS_HEADERS}",
        },
    )

    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "app://obsidian.md"
    allowed = {h.strip() for h in response.headers["access-control-allow-headers"].lower().split(",")}
    assert set(STAINLESS_HEADERS.split(",")) <= allowed


def chunked(data: bytes, size: int = 1_000) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def test_a_chunked_body_over_the_limit_gets_413(settings: Settings, services: Services) -> None:
    big = json.dumps({"messages": [{"role": "user", "content": "x" * 5_000}]}).encode()
    with make_client(settings, services, ScriptedAnswerer(), max_body_bytes=2_000) as client:
        response = client.post(
            "/v1/chat/completions", content=chunked(big), headers={"Content-Type": "application/json"}
        )
        small = client.post(
            "/v1/chat/completions",
            content=chunked(json.dumps(QUESTION).encode(), 10),
            headers={"Content-Type": "application/json"},
        )

    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert response.status_code == 413 and response.json()["error"]["code"] == "request_too_large"
    assert small.status_code == 200 and small.json()["choices"][0]["message"]["content"] == "Hello from the notes."


def test_413_and_401_carry_cors_headers_so_browser_clients_see_them(settings: Settings, services: Services) -> None:
    origin = {"Origin": "app://obsidian.md"}
    big = {"messages": [{"role": "user", "content": "x" * 5_000}]}
    overrides = {"max_body_bytes": 2_000, "api_key": SecretStr(API_KEY)}
    with make_client(settings, services, ScriptedAnswerer(), **overrides) as client:
        too_large = client.post("/v1/chat/completions", json=big, headers=origin)
        unauthorized = client.post("/v1/chat/completions", json=QUESTION, headers=origin)

    assert too_large.status_code == 413 and too_large.headers["access-control-allow-origin"] == "app://obsidian.md"
    assert (
        unauthorized.status_code == 401 and unauthorized.headers["access-control-allow-origin"] == "app://obsidian.md"
    )


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1", "[::1]:8000", "LOCALHOST"])
def test_loopback_host_headers_are_served(client: TestClient, host: str) -> None:
    assert client.get("/v1/models", headers={"Host": host}).status_code == 200


def test_the_test_clients_default_host_is_not_trusted(settings: Settings, services: Services) -> None:
    # A LAN DNS may resolve "testserver" to this machine; only tests used it, and they now name 127.0.0.1.
    with TestClient(create_app(settings, services, answerer=ScriptedAnswerer())) as client:
        response = client.get("/v1/models")

    assert response.status_code == 400 and "'testserver'" in response.json()["error"]["message"]


def test_a_foreign_host_header_is_refused_against_dns_rebinding(client: TestClient) -> None:
    response = client.get("/v1/models", headers={"Host": "evil.example"})

    assert response.status_code == 400
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error" and "evil.example" in error["message"]


def test_any_host_is_served_when_listening_on_all_interfaces(settings: Settings, services: Services) -> None:
    overrides = {"host": "0.0.0.0", "api_key": SecretStr(API_KEY)}
    with make_client(settings, services, ScriptedAnswerer(), **overrides) as client:
        response = client.get(
            "/v1/models", headers={"Host": "librarian.lan:8000", "Authorization": f"Bearer {API_KEY}"}
        )

    assert response.status_code == 200


def test_a_configured_host_name_is_served(settings: Settings, services: Services) -> None:
    overrides = {"host": "192.168.1.20", "api_key": SecretStr(API_KEY)}
    with make_client(settings, services, ScriptedAnswerer(), **overrides) as client:
        lan = client.get("/health", headers={"Host": "192.168.1.20:8000"})
        other = client.get("/health", headers={"Host": "evil.example"})

    assert lan.status_code == 200 and other.status_code == 400


def test_stream_lines_end_with_a_bare_newline_like_openai(client: TestClient) -> None:
    with client.stream("POST", "/v1/chat/completions", json={**QUESTION, "stream": True}) as response:
        raw = response.read()

    assert b"\r" not in raw
    assert raw.endswith(b"data: [DONE]\n\n")


def test_stream_null_means_a_whole_completion(client: TestClient) -> None:
    response = client.post("/v1/chat/completions", json={**QUESTION, "stream": None})
    null_usage = client.post(
        "/v1/chat/completions", json={**QUESTION, "stream": True, "stream_options": {"include_usage": None}}
    )

    assert response.status_code == 200 and response.json()["object"] == "chat.completion"
    assert null_usage.status_code == 200 and null_usage.text.endswith("data: [DONE]\n\n")


def test_a_user_object_is_accepted_and_only_a_string_user_names_the_conversation(
    client: TestClient, answerer: ScriptedAnswerer
) -> None:
    pipeline_user = {"id": "u-1", "name": "Ada", "email": "ada@example.org", "role": "admin"}
    as_object = client.post("/v1/chat/completions", json={**QUESTION, "user": pipeline_user})
    as_string = client.post("/v1/chat/completions", json={**QUESTION, "user": "alice"})
    without = client.post("/v1/chat/completions", json=QUESTION)

    assert as_object.status_code == as_string.status_code == without.status_code == 200
    object_id, string_id, plain_id = (turn.conversation_id for turn in answerer.turns)
    assert string_id == "u:alice"
    assert object_id == plain_id and object_id.startswith("d:")


@pytest.mark.parametrize("n", [2, 0])
def test_more_than_one_choice_is_refused(client: TestClient, n: int) -> None:
    response = client.post("/v1/chat/completions", json={**QUESTION, "n": n})

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and "n must be 1" in error["message"] and error["param"] == "n"


def test_unused_openai_parameters_are_accepted_and_ignored(client: TestClient) -> None:
    request = {
        **QUESTION,
        "n": 1,
        "max_tokens": 64,
        "max_completion_tokens": 64,
        "metadata": {"chat_id": "c-1"},
        "response_format": {"type": "json_object"},
        "tool_choice": "auto",
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
    }

    response = client.post("/v1/chat/completions", json=request)

    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == "Hello from the notes."
