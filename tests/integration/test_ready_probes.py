"""/ready against a hung or failing backend: one probe of each kind in flight, redacted error text."""

from __future__ import annotations

import dataclasses
import threading
import time
import traceback
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.http import probes
from app.http.main import create_app
from app.http.routes import health
from app.wiring import Services
from core.errors import UpstreamUnavailable
from core.settings import Settings
from tests.fakes import ScriptedAnswerer

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed


class HungStore:
    """The real store, except that `count()` blocks until released, like a store that stopped answering."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.release = threading.Event()
        self.probes_while_hung = 0  # /ready's own probes (the index run at start counts the store too)

    def count(self) -> int:
        is_probe = any(frame.filename.endswith("routes/health.py") for frame in traceback.extract_stack())
        if is_probe and not self.release.is_set():
            self.probes_while_hung += 1
        self.release.wait(timeout=60)
        return int(self._store.count())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


class FailingDocStore:
    """The real docstore, except that `get()` fails with a message that echoes credentials."""

    def __init__(self, docstore: Any, message: str) -> None:
        self._docstore = docstore
        self._message = message

    def get(self, _key: str) -> Any:
        raise UpstreamUnavailable("redis", self._message)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._docstore, name)


def test_a_hung_store_keeps_one_probe_in_flight(
    settings: Settings, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(probes, "PROBE_TIMEOUT_SECONDS", 0.3)
    monkeypatch.setattr(health, "PROBE_TIMEOUT_SECONDS", 0.3)
    hung = HungStore(services.store)
    app = create_app(
        settings.model_copy(update={"watch": False}),
        dataclasses.replace(services, store=hung),
        answerer=ScriptedAnswerer(),
    )
    try:
        with TestClient(app, base_url="http://127.0.0.1") as client:
            first = client.get("/ready")
            repeated = [client.get("/ready") for _ in range(5)]
            hung.release.set()
            deadline = time.monotonic() + 10
            recovered = client.get("/ready")
            while recovered.json()["checks"]["vector_store"] != "ok" and time.monotonic() < deadline:
                time.sleep(0.02)
                recovered = client.get("/ready")
    finally:
        hung.release.set()

    assert first.status_code == 503 and first.json()["checks"]["vector_store"] == "timeout"
    assert all(r.status_code == 503 for r in repeated)
    assert {r.json()["checks"]["vector_store"] for r in repeated} == {"probe still running"}
    assert recovered.status_code == 200
    assert hung.probes_while_hung == 1  # the hung probe alone: none piled up behind it


def test_ready_redacts_credentials_in_probe_errors(settings: Settings, services: Services) -> None:
    message = (
        "connect to redis://:hunter2-secret@cache:6379 failed; qdrant key qk-private-123456 rejected; "
        "retried with https://admin:pa55word-x@backup.example; Authorization: Bearer tok-abcdefgh"
    )
    failing = dataclasses.replace(services, docstore=FailingDocStore(services.docstore, message))
    secrets = {
        "qdrant_api_key": SecretStr("qk-private-123456"),
        "redis_url": SecretStr("redis://:hunter2-secret@cache/0"),
    }
    app_settings = settings.model_copy(update={"watch": False, **secrets})
    app = create_app(app_settings, failing, answerer=ScriptedAnswerer())
    with TestClient(app, base_url="http://127.0.0.1") as client:
        response = client.get("/ready")

    assert response.status_code == 503
    check = response.json()["checks"]["docstore"]
    assert check.startswith("error: redis is unavailable")
    for secret in ("hunter2-secret", "qk-private-123456", "pa55word-x", "tok-abcdefgh"):
        assert secret not in response.text
