"""An LLM_BASE_URL without its /v1 is named as such (not "set LLM_MODEL"), and /ready says the LLM is unreachable."""

from __future__ import annotations

import asyncio

import pytest
from fastapi.testclient import TestClient

from app.http.main import create_app
from app.wiring import Services
from core.errors import UpstreamUnavailable
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel
from tests.fakes import ScriptedAnswerer
from tests.integration.llm_client_support import QUESTION, llm_settings
from tests.scripted_llm import ScriptedLLMServer, Turn, free_port

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

# Ollama, LM Studio and vLLM serve the API under /v1 only: the root paths are not found.
NOT_FOUND = (404, {"error": "404 page not found"})
ONLY_UNDER_V1 = {"GET /models": NOT_FOUND, "POST /chat/completions": NOT_FOUND}


def root_of(llm: ScriptedLLMServer) -> str:
    return llm.base_url.removesuffix("/v1")


def failure_of(client: OpenAICompatibleChatModel) -> UpstreamUnavailable:
    """Ask `client` one question that must fail; return the error the user would read."""

    async def ask() -> None:
        try:
            await client.complete(list(QUESTION))
        finally:
            await client.aclose()

    with pytest.raises(UpstreamUnavailable) as failed:
        asyncio.run(ask())
    return failed.value


@pytest.mark.parametrize("model", [None, "scripted-model"], ids=["model discovered", "LLM_MODEL set"])
def test_a_base_url_without_v1_is_named_with_the_fix(model: str | None) -> None:
    with ScriptedLLMServer([Turn.text("never sent")], routes=ONLY_UNDER_V1) as llm:
        root = root_of(llm)
        client = OpenAICompatibleChatModel(llm_settings(root, model=model, retries=0))
        failure = failure_of(client)

    message = failure.message
    assert "LLM_BASE_URL should end in /v1" in message
    assert f"try LLM_BASE_URL={root}/v1" in message
    assert "set LLM_MODEL" not in message


def test_a_base_url_with_v1_and_a_wrong_model_keeps_the_model_advice() -> None:
    with ScriptedLLMServer([Turn.text("never sent")]) as llm:
        client = OpenAICompatibleChatModel(llm_settings(llm.base_url, model="no-such-model", retries=0))
        failure = failure_of(client)

    assert "model 'no-such-model' not found" in failure.message
    assert "should end in /v1" not in failure.message


def ready_body(settings: Settings, services: Services, base_url: str) -> dict[str, object]:
    configured = settings.model_copy(update={"llm_base_url": (base_url,), "watch": False})
    model = OpenAICompatibleChatModel(configured.llm)
    app = create_app(configured, services, answerer=ScriptedAnswerer(), chat_model=model)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        response = client.get("/ready")
    body: dict[str, object] = response.json()
    return body


def test_ready_reports_an_llm_base_url_without_v1_as_unreachable_with_the_fix(
    settings: Settings, services: Services
) -> None:
    with ScriptedLLMServer(routes=ONLY_UNDER_V1) as llm:
        root = root_of(llm)
        body = ready_body(settings, services, root)

    llm_field = body["llm"]
    assert isinstance(llm_field, dict) and body["checks"]["llm"] == "unreachable"  # type: ignore[index]
    assert llm_field["reachable"] is False
    assert f"try LLM_BASE_URL={root}/v1" in llm_field["error"]


def test_ready_reports_an_llm_nobody_listens_for_as_unreachable(settings: Settings, services: Services) -> None:
    body = ready_body(settings, services, f"http://127.0.0.1:{free_port()}/v1")

    llm_field = body["llm"]
    assert isinstance(llm_field, dict)
    assert llm_field["reachable"] is False and "ConnectError" in llm_field["error"]


def test_ready_reports_a_reachable_llm(settings: Settings, services: Services) -> None:
    with ScriptedLLMServer() as llm:
        body = ready_body(settings, services, llm.base_url)

    assert body["llm"] == {"reachable": True, "error": None, "leaves_machine": []}
