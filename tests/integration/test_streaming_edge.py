"""Streaming over real HTTP: keep-alive bytes while tools run, and a client disconnect cancels the work."""

from __future__ import annotations

import time

import httpx
import pytest

from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from tests.fakes import ScriptedAnswerer
from tests.live_server import serve_in_thread

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

BODY = {"model": "vault-librarian", "stream": True, "messages": [{"role": "user", "content": "garden?"}]}


def test_keepalive_comments_flow_while_the_first_token_is_slow(settings: Settings, services: Services) -> None:
    slow = ScriptedAnswerer(("late", " answer"), delay_first=2.5)
    app = create_app(settings.model_copy(update={"keepalive_seconds": 1.0, "watch": False}), services, answerer=slow)
    with (
        serve_in_thread(app) as base_url,
        httpx.stream("POST", f"{base_url}/v1/chat/completions", json=BODY, timeout=30) as response,
    ):
        lines = list(response.iter_lines())

    first_content = next(i for i, line in enumerate(lines) if '"content": "late"' in line or '"content":"late"' in line)
    pings = [line for line in lines[:first_content] if line.startswith(":")]
    assert len(pings) >= 2  # about one a second during the 2.5 s wait
    assert lines[-1].strip() == "data: [DONE]" or "data: [DONE]" in lines


def test_a_client_disconnect_cancels_the_answer(settings: Settings, services: Services) -> None:
    endless = ScriptedAnswerer(tuple(f" word{i}" for i in range(1000)), delay_per_piece=0.05)
    app = create_app(settings.model_copy(update={"watch": False}), services, answerer=endless)
    with serve_in_thread(app) as base_url:
        with httpx.stream("POST", f"{base_url}/v1/chat/completions", json=BODY, timeout=30) as response:
            for line in response.iter_lines():
                if "word3" in line:
                    break
        deadline = time.monotonic() + 10
        while not endless.cancelled.is_set() and time.monotonic() < deadline:
            time.sleep(0.05)

    assert endless.cancelled.is_set()
    assert not endless.finished
