"""Record what the real service sends the model in a few chat turns, a scripted model standing in for the LLM.

`bench.prompt_tokens` counts the tokens of what is recorded here.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from app.http.main import create_app
from app.wiring import build_services
from core.settings import Settings
from tests.live_server import serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn


def record_turns(
    vault: Path, questions: Sequence[str], *, warm_up: bool = True
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Run the service on a copy of `vault`; return its warm-up requests and the first model call of each turn."""
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer(lambda _body: Turn.text("Noted.")) as llm:
        copy = Path(tmp) / "vault"
        shutil.copytree(vault, copy)
        settings = Settings(
            _env_file=None, vault_path=copy, data_dir=Path(tmp) / "data", watch=False, llm_probe_local_ports=False
        ).model_copy(update={"llm_base_url": (llm.base_url,), "llm_model": "scripted-model", "llm_warm_up": warm_up})
        services = build_services(settings)
        try:
            report = services.reindexer.run_once()
            print(f"vault: {vault.name} ({report.notes_total} notes, {report.chunks_indexed} chunks), copied to tmp")
            bodies: list[dict[str, Any]] = []
            warm_bodies: list[dict[str, Any]] = []
            with serve_in_thread(create_app(settings, services)) as base_url, httpx.Client(timeout=120) as client:
                if warm_up:
                    warm_bodies = _wait_for_warm_up(llm)
                history: list[dict[str, str]] = []
                for number, question in enumerate(questions):
                    if number != 1:  # the second question follows up on the first; the others start afresh
                        history = []
                    before = len(llm.chat_requests)
                    answer = ask(client, base_url, [*history, {"role": "user", "content": question}])
                    history += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
                    sent = llm.chat_requests[before:]
                    bodies.append(sent[0].json if sent else {})
        finally:
            services.close()
    return warm_bodies, bodies


def _wait_for_warm_up(llm: ScriptedLLMServer, seconds: float = 30.0, quiet: float = 1.0) -> list[dict[str, Any]]:
    """Return the requests the service sent at start (its warm-up: a tool probe with LLM_TOOLS=auto, the prefix)."""
    deadline = time.monotonic() + seconds
    while not llm.chat_requests:
        if time.monotonic() > deadline:
            raise SystemExit("the service sent no warm-up request; is LLM_WARM_UP on?")
        time.sleep(0.05)
    seen = 0
    while len(llm.chat_requests) != seen:  # until no request came for `quiet` seconds
        seen = len(llm.chat_requests)
        time.sleep(quiet)
    return [dict(request.json) for request in llm.chat_requests]


def ask(client: httpx.Client, base_url: str, messages: list[dict[str, str]]) -> str:
    """Return the service's answer to `messages` (one conversation per first message)."""
    headers = {"X-Conversation-Id": f"bench-{uuid.uuid5(uuid.NAMESPACE_URL, messages[0]['content']).hex}"}
    body = {"model": "vault-librarian", "messages": messages}
    response = client.post(f"{base_url}/v1/chat/completions", json=body, headers=headers)
    response.raise_for_status()
    return str(response.json()["choices"][0]["message"]["content"])
