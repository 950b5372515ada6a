"""Shared setup for the LLM client tests: settings, a recording backoff, a fake clock, stream collection."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from pydantic import SecretStr

from core.chat import ChatDelta, ChatMessage, ToolSpec
from core.settings import LlmSettings, Settings
from llm_client import OpenAICompatibleChatModel

QUESTION = (ChatMessage("system", "Answer from the notes."), ChatMessage("user", "How long does the dough proof?"))


def llm_settings(
    *base_urls: str,
    api_key: str | None = None,
    model: str | None = "scripted-model",
    retries: int = 2,
    read_timeout: float = 10.0,
    probe: bool = False,
) -> LlmSettings:
    settings = Settings(
        _env_file=None,
        llm_base_url=base_urls,
        llm_api_key=SecretStr(api_key) if api_key else None,
        llm_model=model,
        llm_connect_timeout_seconds=2.0,
        llm_read_timeout_seconds=read_timeout,
        llm_retries=retries,
        llm_probe_local_ports=probe,
        llm_denied_ports=(),  # a scripted server's random port may be any
        llm_temperature=None,  # the request bodies tests compare carry only what they set
    )
    return settings.llm


@dataclass
class RecordingSleep:
    """A backoff that does not wait: it records each delay and may run an action (start a server) on a call."""

    delays: list[float] = field(default_factory=list)
    on_call: dict[int, Callable[[], object]] = field(default_factory=dict)  # 1-based call number -> action

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        action = self.on_call.get(len(self.delays))
        if action is not None:
            action()


@dataclass
class FakeClock:
    """Monotonic seconds that move only when the test says so."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@asynccontextmanager
async def chat_model(
    settings: LlmSettings, *, sleep: RecordingSleep | None = None, clock: FakeClock | None = None
) -> AsyncIterator[OpenAICompatibleChatModel]:
    model = OpenAICompatibleChatModel(settings, sleep=sleep or RecordingSleep(), clock=clock or FakeClock())
    try:
        yield model
    finally:
        await model.aclose()


async def collect(
    model: OpenAICompatibleChatModel, messages: Sequence[ChatMessage] = QUESTION, tools: Sequence[ToolSpec] = ()
) -> list[ChatDelta]:
    return [delta async for delta in model.stream(messages, tools=tools)]


async def collect_until_failure(
    model: OpenAICompatibleChatModel, received: list[ChatDelta], messages: Sequence[ChatMessage] = QUESTION
) -> None:
    """Stream into `received`, so a test can see what arrived before an exception."""
    async for delta in model.stream(messages):
        received.append(delta)
