"""Credentials never reach the model through what comes back: resent history, the user's message, crew material.

A chat client resends the diffs the user was shown (real note text, credentials and all) as history every turn.
Whatever the path, the request the model receives is masked where the client builds it (REDACT_SECRETS), and a
change the model writes from masked text never puts the mask into a note.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli.main import cli
from app.http.main import create_app
from app.wiring import Services, build_services
from core.chat import ChatMessage, ToolCall
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel
from rag.answer.secrets import REDACTED, redact_secrets
from tests.conftest import SETTINGS_ENV
from tests.crew_support import schema_answer
from tests.fakes import HashingEmbedder
from tests.integration.llm_client_support import llm_settings
from tests.scripted_llm import ScriptedLLMServer, Turn

KEY, PAT = "abc123", "pat-0042"  # short and plain: no entropy test tells them from words
DEPLOY = "Projects/Deploy.md"
DEPLOY_NOTE = f"# Deploy\n\nStaging is deployed with the script.\n\n## Keys\nAPI_TOKEN={KEY}\n"
DIFF_REPLY = (
    "Proposed change to [[Deploy]]:\n```diff\n ## Keys\n API_TOKEN=abc123\n+- rotate the keys monthly\n```\n"
    "Reply **yes** to apply it, or **no** to drop it."
)
HISTORY = [
    {"role": "user", "content": f"Append '- rotate the keys monthly' to {DEPLOY}"},
    {"role": "assistant", "content": DIFF_REPLY},
    {"role": "user", "content": f"Thanks. My GITHUB_PAT: {PAT}\nHow is staging deployed?"},
]


@pytest.fixture
def indexed(settings: Settings, vault: Path) -> Iterator[Services]:
    (vault / DEPLOY).write_text(DEPLOY_NOTE, encoding="utf-8")
    services = build_services(settings, embedder=HashingEmbedder())
    services.reindexer.run_once()
    yield services
    services.close()


def served(settings: Settings, llm: ScriptedLLMServer, **update: object) -> Settings:
    """Return settings whose model the app finds itself (LLM_BASE_URL), as `librarian serve` does."""
    changes = {"relevance_floor": -1.0, "watch": False, "write_backend": "files", "llm_base_url": (llm.base_url,)}
    return settings.model_copy(update={**changes, **update})


def chat(settings: Settings, services: Services, messages: list[dict[str, str]]) -> str:
    with TestClient(create_app(settings, services), base_url="http://127.0.0.1") as client:
        response = client.post("/v1/chat/completions", json={"model": "vault-librarian", "messages": messages})
    assert response.status_code == 200, response.text
    return str(response.json()["choices"][0]["message"]["content"])


def model_saw(llm: ScriptedLLMServer) -> str:
    return json.dumps([request.messages for request in llm.chat_requests], ensure_ascii=False)


def test_history_resent_by_a_chat_client_reaches_the_model_masked(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("Staging is deployed with the script [[Deploy]]."))

    chat(served(settings, llm), indexed, HISTORY)

    sent = llm.chat_requests[-1].messages
    assert f"API_TOKEN={REDACTED}" in next(m["content"] for m in sent if m["role"] == "assistant")
    assert f"GITHUB_PAT: {REDACTED}" in sent[-1]["content"]  # the user's own message goes to the model too
    assert KEY not in model_saw(llm) and PAT not in model_saw(llm)


def test_with_redaction_off_the_history_reaches_the_model_as_written(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("Staging is deployed with the script [[Deploy]]."))

    chat(served(settings, llm, redact_secrets=False), indexed, HISTORY)

    assert f"API_TOKEN={KEY}" in model_saw(llm) and f"GITHUB_PAT: {PAT}" in model_saw(llm)


def test_a_change_written_from_masked_text_is_refused_and_the_note_keeps_its_key(
    settings: Settings, vault: Path, indexed: Services, llm: ScriptedLLMServer
) -> None:
    rewrite = {"command": "replace_section", "path": DEPLOY, "heading": "Keys", "content": f"API_TOKEN={REDACTED}"}
    llm.add(
        Turn.tool_call("read_note", {"note": "Deploy"}),
        Turn.tool_call("edit_note", rewrite),
        Turn.text("I cannot rewrite the key: I only see it masked."),
    )

    asked = f"Replace the Keys section of {DEPLOY} with the new token"
    chat(served(settings, llm), indexed, [{"role": "user", "content": asked}])

    results = [m["content"] for m in llm.chat_requests[-1].messages if m["role"] == "tool"]
    assert f"API_TOKEN={REDACTED}" in results[0]  # what the model read
    assert "how credentials in notes are shown" in results[1]
    assert KEY not in model_saw(llm)
    assert (vault / DEPLOY).read_text(encoding="utf-8") == DEPLOY_NOTE


def test_a_crew_s_material_reaches_the_model_masked(settings: Settings, vault: Path) -> None:
    task = f"- [ ] Rotate the staging key API_TOKEN={KEY} 📅 2020-03-02\n"
    (vault / "Inbox" / "Rotate.md").write_text(f"# Rotate\n\n{task}", encoding="utf-8")
    runner = CliRunner()
    with ScriptedLLMServer(schema_answer) as llm:
        env: dict[str, str | None] = dict.fromkeys(SETTINGS_ENV)
        env |= {
            "VAULT_PATH": str(settings.vault_path),
            "DATA_DIR": str(settings.data_dir),
            "LLM_BASE_URL": llm.base_url,
            "LLM_RETRIES": "0",
            "WRITE_BACKEND": "files",
            "HF_HUB_OFFLINE": "1",
        }
        assert runner.invoke(cli, ["crew", "install-examples"], env=env).exit_code == 0
        ran = runner.invoke(cli, ["crew", "run", "Daily-Briefing", "--dry-run"], env=env)

    assert ran.exit_code == 0, ran.output
    assert f"API_TOKEN={REDACTED}" in model_saw(llm)
    assert KEY not in model_saw(llm)


def test_the_client_masks_tool_call_arguments_and_keeps_them_json(llm: ScriptedLLMServer) -> None:
    llm.add(Turn.text("Done."))
    arguments = json.dumps({"path": DEPLOY, "content": f"API_TOKEN={KEY}\nnext line"})
    messages = (
        ChatMessage("user", "Rotate it"),
        ChatMessage("assistant", tool_calls=(ToolCall("call_1", "edit_note", arguments),)),
        ChatMessage("tool", f"proposed: API_TOKEN={KEY}", tool_call_id="call_1"),
    )

    async def scenario() -> None:
        model = OpenAICompatibleChatModel(llm_settings(llm.base_url), mask=redact_secrets)
        try:
            await model.complete(messages)
        finally:
            await model.aclose()

    asyncio.run(scenario())

    sent: list[dict[str, Any]] = llm.chat_requests[0].messages
    call_arguments = json.loads(sent[1]["tool_calls"][0]["function"]["arguments"])
    assert call_arguments == {"path": DEPLOY, "content": f"API_TOKEN={REDACTED}\nnext line"}
    assert sent[2]["content"] == f"proposed: API_TOKEN={REDACTED}" and KEY not in model_saw(llm)
