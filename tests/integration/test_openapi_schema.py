"""The OpenAPI schema says what the API does: 400 error bodies, 409 on undo, required messages, bearer auth."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel, SecretStr

from app.http.main import create_app
from app.http.openai_responses import ChatCompletion, ChatCompletionChunk, ErrorBody, ModelList
from app.wiring import Services
from core.settings import Settings
from tests.fakes import ScriptedAnswerer

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

API_KEY = "schema-key-0123456789"
AUTH = {"Authorization": f"Bearer {API_KEY}"}
QUESTION = {"messages": [{"role": "user", "content": "What is in my notes?"}]}
ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}


def openapi(settings: Settings, services: Services, **overrides: Any) -> dict[str, Any]:
    app = create_app(settings.model_copy(update=overrides), services, answerer=ScriptedAnswerer())
    with TestClient(app, base_url="http://127.0.0.1") as client:
        schema: dict[str, Any] = client.get("/openapi.json").json()
    return schema


def operations(schema: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield method, path, operation


def error_schema(operation: dict[str, Any], status: str) -> object:
    return operation["responses"][status]["content"]["application/json"]["schema"]


def test_validation_errors_are_documented_as_400_with_the_openai_error_body(
    settings: Settings, services: Services
) -> None:
    schema = openapi(settings, services)

    assert '"422"' not in json.dumps(schema) and "HTTPValidationError" not in json.dumps(schema)
    for _method, _path, operation in operations(schema):
        assert error_schema(operation, "400") == ERROR_REF
        if "requestBody" in operation:
            assert error_schema(operation, "413") == ERROR_REF
    assert schema["components"]["schemas"]["ErrorBody"]["required"] == ["error"]


def test_undo_documents_409_and_the_chat_request_requires_messages(settings: Settings, services: Services) -> None:
    schema = openapi(settings, services)

    undo = schema["paths"]["/v1/undo"]["post"]
    assert (
        error_schema(undo, "409") == ERROR_REF and "no longer the last one" in undo["responses"]["409"]["description"]
    )
    request = schema["components"]["schemas"]["ChatCompletionRequest"]
    assert "messages" in request["required"] and request["properties"]["messages"]["minItems"] == 1
    role = schema["components"]["schemas"]["WireMessage"]["properties"]["role"]
    assert set(role["enum"]) == {"system", "developer", "user", "assistant", "tool"}
    chat = schema["paths"]["/v1/chat/completions"]["post"]["responses"]["200"]["content"]
    assert chat["application/json"]["schema"] == {"$ref": "#/components/schemas/ChatCompletion"}
    assert "text/event-stream" in chat


def test_the_bearer_scheme_is_declared_on_every_v1_route(settings: Settings, services: Services) -> None:
    keyed = openapi(settings, services, api_key=SecretStr(API_KEY))
    open_on_loopback = openapi(settings, services)

    assert keyed["components"]["securitySchemes"]["bearerAuth"] | {"description": ""} == {
        "type": "http",
        "scheme": "bearer",
        "description": "",
    }
    for method, path, operation in operations(keyed):
        is_v1 = path.startswith("/v1/")
        assert (operation.get("security") == [{"bearerAuth": []}]) == is_v1, (method, path)
        assert ("401" in operation["responses"]) == is_v1, (method, path)
    for _method, path, operation in operations(open_on_loopback):
        if path.startswith("/v1/"):
            assert operation["security"] == [{"bearerAuth": []}, {}]  # without API_KEY: anonymous too
            assert "401" not in operation["responses"]


@pytest.fixture(scope="module")
def client(shared_services: Services) -> Iterator[TestClient]:
    """One app for the module's response cases: none changes the vault or the index (the undo one is refused)."""
    update = {"api_key": SecretStr(API_KEY), "max_body_bytes": 2_000, "watch": False}
    configured = shared_services.settings.model_copy(update=update)
    app = create_app(configured, shared_services, answerer=ScriptedAnswerer())
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c


RESPONSES: list[tuple[str, str, dict[str, Any] | None, dict[str, str], int, type[BaseModel]]] = [
    ("post", "/v1/chat/completions", QUESTION, AUTH, 200, ChatCompletion),
    ("get", "/v1/models", None, AUTH, 200, ModelList),
    ("post", "/v1/chat/completions", {"messages": []}, AUTH, 400, ErrorBody),
    ("post", "/v1/chat/completions", {"messages": [{"role": "wizard"}]}, AUTH, 400, ErrorBody),
    ("post", "/v1/chat/completions", {"messages": [{"content": "x" * 3_000}]}, AUTH, 413, ErrorBody),
    ("get", "/v1/models", None, {"Authorization": "Basic abc"}, 401, ErrorBody),
    ("post", "/v1/undo", {"change_set_id": "not-the-last"}, AUTH, 409, ErrorBody),
    ("get", "/v1/nothing-here", None, AUTH, 404, ErrorBody),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "headers", "status", "model"),
    RESPONSES,
    ids=["completion", "models", "no-messages", "bad-role", "too-large", "bad-auth", "undo-conflict", "no-route"],
)
def test_real_responses_match_the_documented_bodies(
    client: TestClient,
    method: str,
    path: str,
    body: dict[str, Any] | None,
    headers: dict[str, str],
    status: int,
    model: type[BaseModel],
) -> None:
    response = client.request(method, path, json=body, headers=headers)

    assert response.status_code == status
    model.model_validate(response.json(), strict=True)  # extra="forbid": no undocumented field either


def test_every_streamed_chunk_matches_the_documented_chunk(client: TestClient) -> None:
    request = {**QUESTION, "stream": True, "stream_options": {"include_usage": True}}
    with client.stream("POST", "/v1/chat/completions", json=request, headers=AUTH) as response:
        payloads = [line[6:] for line in response.read().decode().splitlines() if line.startswith("data: ")]

    assert payloads[-1] == "[DONE]"
    chunks = [ChatCompletionChunk.model_validate(json.loads(payload), strict=True) for payload in payloads[:-1]]
    assert chunks[-1].usage is not None and chunks[-1].choices == []
