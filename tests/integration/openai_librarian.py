"""The librarian served in a thread over the session's index, asked through the real `openai` client."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import openai

from app.wiring import Services
from core.settings import Settings
from tests.live_server import agent_app, serve_in_thread


@contextmanager
def openai_librarian(settings: Settings, services: Services, llm_base_url: str) -> Iterator[openai.OpenAI]:
    """Yield an `openai` client of the librarian answering with the model at `llm_base_url`, its index up to date."""
    services.reindexer.run_once()
    app = agent_app(settings, services, llm_base_url)
    with serve_in_thread(app) as base_url:
        yield openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)


def ask(client: openai.OpenAI, messages: list[dict[str, Any]], *, stream: bool) -> str:
    """Return the reply to `messages`, as one body or streamed and joined as a chat app shows it."""
    if not stream:
        completion = client.chat.completions.create(model="vault-librarian", messages=messages)  # type: ignore[arg-type]
        return completion.choices[0].message.content or ""
    pieces = client.chat.completions.create(model="vault-librarian", messages=messages, stream=True)  # type: ignore[arg-type]
    return "".join(chunk.choices[0].delta.content or "" for chunk in pieces if chunk.choices)
