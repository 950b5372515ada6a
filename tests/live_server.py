"""Serving an app with real uvicorn on 127.0.0.1 in a background thread, for tests that use real HTTP clients."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import uvicorn
from fastapi import FastAPI

if TYPE_CHECKING:
    from app.wiring import Services
    from core.settings import Settings


@contextmanager
def serve_in_thread(app: FastAPI, *, startup_timeout: float = 30.0, port: int | None = None) -> Iterator[str]:
    """Run `app` on `port` (a free one when None); yield its base URL (http://127.0.0.1:PORT), stop it afterwards.

    Pass the port of the app's settings when CLI commands must find the server through the DATA_DIR owner file.
    """
    # A port found free and bound later may be taken in between (another test worker's server or client): with no
    # port asked for, the socket is bound here and handed to uvicorn, so the port is ours from the start.
    listening = None
    if port is None:
        listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listening.bind(("127.0.0.1", 0))
        port = listening.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    sockets = [listening] if listening is not None else None
    thread = threading.Thread(target=lambda: server.run(sockets=sockets), name="uvicorn-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        if listening is not None:
            listening.close()


def agent_app(settings: Settings, services: Services, llm_base_url: str, **update: Any) -> FastAPI:
    """Return the app answering with the chat agent through the real LLM client, against the model at `llm_base_url`.

    Every question reaches the model (relevance floor -1) and nothing watches the vault; `update` sets more.
    """
    from app.http.main import create_app
    from llm_client import OpenAICompatibleChatModel

    defaults: dict[str, Any] = {"llm_base_url": (llm_base_url,), "relevance_floor": -1.0, "watch": False}
    configured = settings.model_copy(update=defaults | update)
    return create_app(configured, services, chat_model=OpenAICompatibleChatModel(configured.llm))


def streamed_reply(question: str, settings: Settings, services: Services, llm_base_url: str) -> str:
    """Ask `question` over chat with the openai SDK, streamed as chat apps ask, and return the reply the user saw."""
    import openai

    with serve_in_thread(agent_app(settings, services, llm_base_url)) as base_url:
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        stream = client.chat.completions.create(
            model="vault-librarian", messages=[{"role": "user", "content": question}], stream=True
        )
        return "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
