"""Each LLM endpoint gets its own key and no other; note text leaving the machine is said; keys stay redacted."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli.main import cli
from app.http.main import create_app
from app.process.log_redaction import install_log_redaction
from app.wiring import Services
from core.errors import UpstreamUnavailable
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel
from tests.conftest import SETTINGS_ENV
from tests.crew_support import schema_answer
from tests.fakes import ScriptedAnswerer
from tests.integration.llm_client_support import QUESTION, FakeClock, RecordingSleep
from tests.scripted_llm import RecordedRequest, ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

HOSTED = "http://api.example.test/v1"  # a name off this machine, routed to a scripted server
HOSTED_KEY = "hosted-Q7x93vLm2ZpK4t"  # no provider prefix: only the literal value can find it
OTHER_KEY = "gateway-Vn4bT8rXw2Lm"
LEAVES = "note text is sent to api.example.test"


class HostRouting(httpx.AsyncBaseTransport):
    """Reach named hosts on local ports, as DNS and a network would; the request is otherwise sent unchanged."""

    def __init__(self, routes: dict[str, int]) -> None:
        self._routes = routes
        self._network = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        port = self._routes.get(request.url.host)
        if port is not None:
            request.url = request.url.copy_with(host="127.0.0.1", port=port)
        return await self._network.handle_async_request(request)

    async def aclose(self) -> None:
        await self._network.aclose()


def configured(tmp_path: Path, **values: Any) -> Settings:
    defaults = {"vault_path": tmp_path / "vault", "data_dir": tmp_path / "data", "llm_model": "scripted-model"}
    return Settings(_env_file=None, **{**defaults, "llm_retries": 0, **values})


def chat_model(settings: Settings, routes: dict[str, int] | None = None) -> OpenAICompatibleChatModel:
    transport = HostRouting(routes or {})
    return OpenAICompatibleChatModel(settings.llm, sleep=RecordingSleep(), clock=FakeClock(), transport=transport)


def authorizations(requests: list[RecordedRequest]) -> set[str | None]:
    return {request.headers.get("authorization") for request in requests}


def test_each_endpoint_gets_its_own_key_and_an_unkeyed_one_none(tmp_path: Path) -> None:
    async def scenario(model: OpenAICompatibleChatModel) -> str:
        try:
            return (await model.complete(QUESTION)).content
        finally:
            await model.aclose()

    with (
        ScriptedLLMServer([Turn.error(500)], api_key=OTHER_KEY) as keyed,
        ScriptedLLMServer([Turn.error(503)]) as unkeyed,
        ScriptedLLMServer([Turn.text("From the hosted model.")], api_key=HOSTED_KEY) as hosted,
    ):
        settings = configured(
            tmp_path,
            llm_base_url=f"{keyed.base_url},{unkeyed.base_url},{HOSTED}",
            llm_api_keys=f"{HOSTED}={HOSTED_KEY},{keyed.base_url}={OTHER_KEY}",
        )
        answer = asyncio.run(scenario(chat_model(settings, {"api.example.test": hosted.port})))

    assert answer == "From the hosted model."
    assert authorizations(keyed.requests) == {f"Bearer {OTHER_KEY}"}
    assert authorizations(unkeyed.requests) == {None}  # a local server never sees the hosted key
    assert authorizations(hosted.requests) == {f"Bearer {HOSTED_KEY}"}


def test_note_text_leaving_the_machine_is_logged_once_per_host(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario(model: OpenAICompatibleChatModel) -> list[str]:
        try:
            return [(await model.complete(QUESTION)).content for _ in range(3)]
        finally:
            await model.aclose()

    replies = [Turn.text("Local answer."), Turn.error(503)]
    with ScriptedLLMServer(replies) as local, ScriptedLLMServer(lambda _body: Turn.text("Hosted answer.")) as hosted:
        settings = configured(
            tmp_path, llm_base_url=f"{local.base_url},{HOSTED}", llm_api_keys=f"{HOSTED}={HOSTED_KEY}"
        )
        with caplog.at_level(logging.INFO):
            answers = asyncio.run(scenario(chat_model(settings, {"api.example.test": hosted.port})))

    assert answers == ["Local answer.", "Hosted answer.", "Hosted answer."]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "note text" in r.message]
    assert len(warnings) == 1 and warnings[0].startswith(LEAVES)
    assert "127.0.0.1" not in " ".join(warnings)  # the local endpoint is no disclosure
    assert authorizations(local.requests) == {None}


def test_a_key_echoed_in_a_401_by_any_endpoint_is_redacted(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario(model: OpenAICompatibleChatModel) -> UpstreamUnavailable:
        try:
            with pytest.raises(UpstreamUnavailable) as raised:
                await model.complete(QUESTION)
            return raised.value
        finally:
            await model.aclose()

    # Gateways repeat what they got: the first its request headers, the second the bare key it refuses.
    refused = Turn.error(401, {"error": {"message": f"invalid API key {HOSTED_KEY}", "code": "invalid_api_key"}})
    with (
        ScriptedLLMServer([Turn.error(502, echo_headers=True)], api_key=OTHER_KEY) as first,
        ScriptedLLMServer([refused]) as second,
    ):
        settings = configured(
            tmp_path,
            llm_base_url=f"{first.base_url},{second.base_url}",
            llm_api_keys=f"{first.base_url}={OTHER_KEY},{second.base_url}={HOSTED_KEY}",
        )
        with caplog.at_level(logging.DEBUG):
            error = asyncio.run(scenario(chat_model(settings)))

    assert authorizations(first.requests) == {f"Bearer {OTHER_KEY}"}  # each key really was sent, and echoed
    assert authorizations(second.requests) == {f"Bearer {HOSTED_KEY}"}
    assert "LLM endpoint failed" in caplog.text
    assert "the endpoint refused the API key (HTTP 401" in error.message and "LLM_API_KEYS" in error.message
    for key in (HOSTED_KEY, OTHER_KEY):
        assert key not in error.message and key not in str(error) and key not in caplog.text


def test_log_lines_never_show_any_endpoint_key(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = configured(
        tmp_path,
        llm_base_url=f"http://127.0.0.1:1234/v1,{HOSTED}",
        llm_api_keys=f"{HOSTED}={HOSTED_KEY},http://127.0.0.1:1234/v1={OTHER_KEY}",
    )
    install_log_redaction(settings)  # caplog's handler is on the root logger, where the filter goes
    logging.getLogger("llm_client").warning("calling with %s and %s", HOSTED_KEY, OTHER_KEY)

    assert "calling with" in caplog.text
    assert HOSTED_KEY not in caplog.text and OTHER_KEY not in caplog.text


def test_ready_names_the_hosts_note_text_goes_to_and_redacts_their_keys(
    settings: Settings, services: Services, tmp_path: Path
) -> None:
    with ScriptedLLMServer() as hosted:
        app_settings = configured(
            tmp_path,
            vault_path=settings.vault_path,
            data_dir=settings.data_dir,
            watch=False,
            llm_base_url=f"http://localhost:{hosted.port}/v1,{HOSTED}",
            llm_api_keys=f"{HOSTED}={HOSTED_KEY}",
        )
        model = chat_model(app_settings, {"api.example.test": hosted.port})
        app = create_app(app_settings, services, answerer=ScriptedAnswerer(), chat_model=model)
        with TestClient(app, base_url="http://127.0.0.1") as client:
            body = client.get("/ready").json()

    assert body["llm"]["leaves_machine"] == ["api.example.test"]
    assert HOSTED_KEY not in json.dumps(body)


def test_status_names_the_hosts_note_text_goes_to(tmp_path: Path) -> None:
    env: dict[str, str | None] = dict.fromkeys(SETTINGS_ENV)
    env |= {
        "VAULT_PATH": str(tmp_path / "vault"),
        "DATA_DIR": str(tmp_path / "data"),
        "LLM_BASE_URL": "http://localhost:11434/v1,https://api.openai.com/v1",
        "LLM_API_KEYS": f"https://api.openai.com/v1={HOSTED_KEY}",
        "HF_HUB_OFFLINE": "1",
        "COLUMNS": "250",
    }
    (tmp_path / "vault").mkdir()
    shown = CliRunner().invoke(cli, ["status", "--json"], env=env)
    printed = CliRunner().invoke(cli, ["status"], env=env)

    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["llm"] == {"leaves_machine": ["api.openai.com"]}
    assert printed.exit_code == 0, printed.output
    assert "note text is sent to api.openai.com" in printed.stdout
    assert HOSTED_KEY not in shown.stdout + printed.stdout


def test_a_crew_run_log_never_shows_an_endpoint_key(settings: Settings, vault: Path) -> None:
    runner = CliRunner()
    # The gateway wants another key and repeats the one it got in its 401 body.
    with ScriptedLLMServer(schema_answer, api_key="the-right-one-1234") as gateway:
        env: dict[str, str | None] = dict.fromkeys(SETTINGS_ENV)
        env |= {
            "VAULT_PATH": str(vault),
            "DATA_DIR": str(settings.data_dir),
            "LLM_BASE_URL": f"{gateway.base_url},http://localhost:11434/v1",
            "LLM_API_KEYS": f"{gateway.base_url}={HOSTED_KEY}",
            "LLM_RETRIES": "0",
            "WRITE_BACKEND": "files",
            "HF_HUB_OFFLINE": "1",
        }
        assert runner.invoke(cli, ["crew", "install-examples"], env=env).exit_code == 0
        ran = runner.invoke(cli, ["crew", "run", "Daily-Briefing", "--json"], env=env)

    assert f"Bearer {HOSTED_KEY}" in authorizations(gateway.requests)  # sent, and echoed back
    state = json.loads(ran.stdout)
    assert state["status"] == "failed"
    run_files = [path for path in (vault / "_crews" / "runs" / state["id"]).rglob("*") if path.is_file()]
    logs = [path.read_text(encoding="utf-8") for path in run_files]
    assert logs and "HTTP 401" in "".join(logs)
    assert all(HOSTED_KEY not in text for text in logs)
    assert HOSTED_KEY not in ran.output
