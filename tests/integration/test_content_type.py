"""A JSON body sent without `Content-Type: application/json` gets a 400 that says so, in the OpenAI error shape."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.http.main import create_app
from app.wiring import Services
from tests.fakes import ScriptedAnswerer

QUESTION = json.dumps({"model": "vault-librarian", "messages": [{"role": "user", "content": "What is in my notes?"}]})


@pytest.fixture(scope="module")
def client(shared_services: Services) -> Iterator[TestClient]:
    """One app for the module: every case only sends a request (the answered one goes to a scripted answerer)."""
    settings = shared_services.settings.model_copy(update={"watch": False})
    app = create_app(settings, shared_services, answerer=ScriptedAnswerer())
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        yield test_client


@pytest.mark.parametrize(
    ("path", "headers", "sent"),
    [
        ("/v1/chat/completions", {}, "no Content-Type"),
        ("/v1/chat/completions", {"Content-Type": "application/x-www-form-urlencoded"}, "Content-Type 'application/"),
        ("/v1/chat/completions", {"Content-Type": "text/plain"}, "Content-Type 'text/plain'"),
        ("/v1/search", {}, "no Content-Type"),
    ],
)
def test_a_body_without_a_json_content_type_gets_a_400_naming_the_header(
    client: TestClient, path: str, headers: dict[str, str], sent: str
) -> None:
    body = QUESTION if path.endswith("completions") else json.dumps({"query": "sourdough"})
    response = client.post(path, content=body, headers=headers)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and error["code"] == "invalid_request"
    assert error["message"].startswith("send the body as JSON with the header Content-Type: application/json")
    assert f"(got {sent}" in error["message"]


def test_a_json_content_type_with_a_charset_is_answered(client: TestClient) -> None:
    response = client.post(
        "/v1/chat/completions", content=QUESTION, headers={"Content-Type": "application/json; charset=utf-8"}
    )

    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == "Hello from the notes."
