"""A librarian served over real HTTP for the safe-edit tests: scripted LLM, either writer, a clock the test moves."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import httpx
import openai
import pytest

from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel
from tests.live_server import serve_in_thread
from tests.obsidian_standin import StandinVault
from tests.scripted_llm import ScriptedLLMServer

STANDIN_KEY = "5e11ab1e" * 8  # the plugin's keys are 64 hex characters
LLM_KEY = "sk-llmsecret-0123456789abcdef"
SERVICE_KEY = "service-secret-key-42"
PROPOSAL_ID = r"`([0-9a-f]{4,32})` · "  # how the gate's proposals block starts each proposal


class MovableClock:
    """The service's local clock, moved forward by the test instead of waiting."""

    def __init__(self) -> None:
        self.now = datetime.now().astimezone()

    def __call__(self) -> datetime:
        """Return the current test time."""
        return self.now

    def advance(self, **delta: float) -> None:
        """Move the clock forward (keywords as for timedelta)."""
        self.now += timedelta(**delta)


@dataclass
class Chat:
    """One conversation with the librarian, resending the whole history each turn as chat clients do."""

    client: openai.OpenAI
    stream: bool = False
    messages: list[dict[str, Any]] = field(default_factory=list)
    conversation: str = field(default_factory=lambda: uuid.uuid4().hex)

    def say(self, text: str, *, stream: bool | None = None) -> str:
        """Send `text` after the history so far; return (and remember) the librarian's reply."""
        self.messages.append({"role": "user", "content": text})
        headers = {"X-Conversation-Id": self.conversation}
        if not (self.stream if stream is None else stream):
            completion = self.client.chat.completions.create(
                model="vault-librarian",
                messages=self.messages,  # type: ignore[arg-type]
                extra_headers=headers,
            )
            reply = completion.choices[0].message.content or ""
        else:
            pieces = self.client.chat.completions.create(
                model="vault-librarian",
                messages=self.messages,  # type: ignore[arg-type]
                stream=True,
                extra_headers=headers,
            )
            reply = "".join(chunk.choices[0].delta.content or "" for chunk in pieces if chunk.choices)
        self.messages.append({"role": "assistant", "content": reply})
        return reply


@dataclass
class Librarian:
    """A running librarian: its OpenAI client, a plain HTTP client for /v1/changes and /v1/undo, the stand-in."""

    settings: Settings
    client: openai.OpenAI
    http: httpx.Client
    standin: StandinVault | None

    def chat(self, *, stream: bool = False) -> Chat:
        """Start a new conversation."""
        return Chat(self.client, stream=stream)


@dataclass
class LibrarianFactory:
    """Start librarians over the test's vault with the chosen writer ("files" or "rest" on the stand-in)."""

    settings: Settings
    services: Services
    llm: ScriptedLLMServer
    writer: str
    stack: ExitStack

    def start(self, **overrides: Any) -> Librarian:
        """Serve a librarian with these settings overrides; it stops when the test ends."""
        update: dict[str, Any] = {
            "llm_base_url": (self.llm.base_url,),
            "llm_api_key": LLM_KEY,  # a keyless scripted LLM ignores it; a keyed one (api_key=LLM_KEY) checks it
            "relevance_floor": -1.0,
            "watch": False,
            "sync_interval_minutes": 10_000,
        }
        standin = None
        if self.writer == "rest":
            standin = self.stack.enter_context(StandinVault(self.settings.vault_path, api_key=STANDIN_KEY))
            update |= {"write_backend": "rest", "obsidian_api_url": standin.base_url}
            update["obsidian_api_key"] = STANDIN_KEY
        else:
            update["write_backend"] = "files"
        update |= overrides
        configured = Settings.model_validate({**self.settings.model_dump(), **update})
        app = create_app(configured, self.services, chat_model=OpenAICompatibleChatModel(configured.llm))
        base_url = self.stack.enter_context(serve_in_thread(app))
        key = configured.api_key.get_secret_value() if configured.api_key else "unused"
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key=key, max_retries=0)
        http = self.stack.enter_context(
            httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}, timeout=30)
        )
        return Librarian(configured, client, http, standin)


@contextmanager
def librarian_factory(
    settings: Settings, services: Services, llm: ScriptedLLMServer, writer: str
) -> Iterator[LibrarianFactory]:
    """Yield a factory whose librarians (and stand-ins) stop on exit."""
    services.reindexer.run_once()
    with ExitStack() as stack:
        yield LibrarianFactory(settings, services, llm, writer, stack)


def install_clock(monkeypatch: pytest.MonkeyPatch) -> MovableClock:
    """Make the service's local clock (proposals, approvals, the prompt's date) one the test moves."""
    clock = MovableClock()
    monkeypatch.setattr("app.services.answering.local_now", clock)
    return clock


def tool_names(request_json: dict[str, Any]) -> set[str]:
    """Return the names of the tools offered in one recorded LLM request."""
    return {tool["function"]["name"] for tool in request_json.get("tools", [])}


def nothing_applied(reply: str) -> bool:
    """Return True for the reply to an approval with nothing waiting (it may say what became of the last one)."""
    return reply.startswith(("Nothing is waiting for your approval", "The last change proposed in this chat")) and (
        "nothing else is waiting" in reply or "nothing was changed" in reply
    )
