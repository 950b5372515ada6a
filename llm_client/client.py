"""The OpenAI-compatible chat client (Ollama, LM Studio, llama.cpp, vLLM, OpenAI): failover, retries, redaction."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence

import httpx

from core.chat import ChatDelta, ChatMessage, ChatResult, ToolSpec
from core.errors import InvalidRequest, UpstreamUnavailable
from core.llm_endpoints import key_values
from core.settings import LlmSettings
from llm_client.call_tracing import ModelCall, start_model_call
from llm_client.completions.completion_requests import CompletionRequests
from llm_client.completions.refusals import OptionalFields
from llm_client.endpoints.connections import LoopConnections
from llm_client.endpoints.endpoint_access import Disclosure, endpoint_auth
from llm_client.endpoints.failover import EndpointDown, EndpointHealth
from llm_client.endpoints.model_catalog import ModelCatalog
from llm_client.endpoints.reachability import probe_models
from llm_client.endpoints.rotation import EndpointRotation
from llm_client.prompt_speed import PromptSpeed
from llm_client.secrets.masking import Mask
from llm_client.secrets.redaction import MIN_SECRET_LENGTH, redact

Sleep = Callable[[float], Awaitable[None]]


class OpenAICompatibleChatModel:
    """Chat with the first reachable of several OpenAI-compatible endpoints (implements core.ports.ChatModel)."""

    def __init__(
        self,
        settings: LlmSettings,
        *,
        backoff_seconds: float = 0.2,
        cooldown_seconds: float = 5.0,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.AsyncBaseTransport | None = None,
        mask: Mask | None = None,
        prompt_speed: PromptSpeed | None = None,
    ) -> None:
        """Build a client; nothing is contacted until the first call.

        Args:
            settings: endpoints, key, model, timeouts and the number of retry rounds.
            backoff_seconds: wait before the first retry round; doubled each further round.
            cooldown_seconds: how long an endpoint that failed is tried after the others (then re-checked first).
            sleep: the backoff wait (tests inject one that records the delays).
            clock: monotonic seconds, for the cool-down.
            transport: an httpx transport to use instead of the network.
            mask: applied to every text sent to the model (llm_client.secrets.masking); None sends them as they are.
            prompt_speed: where the model's prompt-reading speed is measured (and kept); None: a new one, not kept.

        """
        if not settings.base_urls:
            raise InvalidRequest("the LLM client needs at least one base URL (LLM_BASE_URL)")
        self._settings = settings
        self._endpoints = EndpointRotation(
            settings.base_urls,
            retries=settings.retries,
            backoff_seconds=backoff_seconds,
            cooldown_seconds=cooldown_seconds,
            clock=clock,
        )
        auth = endpoint_auth(settings)  # each endpoint its own key, none to an endpoint without one
        self._disclosure = Disclosure()
        self._secrets = key_values(settings)  # every endpoint's: any reply or error may echo any of them
        # Only the configured key is removed from replies: the generic credential patterns would mangle prose.
        reply_secrets = tuple(s for s in self._secrets if len(s) >= MIN_SECRET_LENGTH)
        self._sleep = sleep
        self._connections = LoopConnections(settings, auth, transport=transport)
        # Discovered per base URL when LLM_MODEL is unset; shared because a 404 from any call forgets one.
        self._models: dict[str, str] = {}
        self._health = EndpointHealth(
            settings, self._endpoints, self._connections, auth=auth, models=self._models, redact=self._redact
        )
        self._prompt_speed = prompt_speed or PromptSpeed()
        self._catalog = ModelCatalog(
            settings, self._endpoints, self._connections, self._health, models=self._models, redact=self._redact
        )
        self._requests = CompletionRequests(
            settings, self._connections, self._health, reply_secrets=reply_secrets, mask=mask, redact=self._redact
        )

    @property
    def model_name(self) -> str:
        """Return the configured model, else the one discovered at the endpoint last used, else "auto"."""
        if self._settings.model:
            return self._settings.model
        return self._models.get(self._endpoints.last_good or "", "") or next(iter(self._models.values()), "auto")

    @property
    def base_urls(self) -> tuple[str, ...]:
        """Return the endpoints in configured order."""
        return self._endpoints.base_urls

    async def aclose(self) -> None:
        """Close pooled connections."""
        await self._connections.aclose()

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        response_format: Mapping[str, object] | None = None,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Return the whole reply; retry on connection errors and 502/503/504, fail over on 5xx and timeouts.

        `response_format` (OpenAI's json_schema shape) is sent where the endpoint takes it; an endpoint that
        refuses it is asked again without it, so the caller must validate the reply either way. `max_tokens`
        caps the reply (finish_reason "length" when it is reached).
        """
        wanted = self._requests.wanted(response_format, max_tokens)
        with start_model_call(messages, tools, model=self.model_name, is_streamed=False) as call:
            result = await self._complete(messages, tools, wanted, call)
            call.finish(result)
            return result

    async def _complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        wanted: OptionalFields,
        call: ModelCall,
    ) -> ChatResult:
        failures: list[tuple[str, str]] = []  # (base URL, reason) per failed try
        given_up: set[str] = set()
        for delay, base in self._endpoints.attempts(skip=given_up):
            if delay:
                await self._sleep(delay)
            try:
                async with self._health.translated(base):
                    model = await self._catalog.model_for(base)
                    call.at_endpoint(base, model)
                    self._disclosure.note_use(base)
                    result = await self._requests.complete_at(base, model, messages, tools, wanted)
                    self._prompt_speed.record(model, result.usage)
                    return result
            except EndpointDown as exc:
                self._health.record_failure(base, exc, failures, given_up)
        raise self._health.all_failed(failures)

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        response_format: Mapping[str, object] | None = None,
        max_tokens: int | None = None,
    ) -> AsyncIterator[ChatDelta]:
        """Yield text deltas as they arrive, then one delta with tool calls, usage and finish reason.

        Connection errors, 5xx and read timeouts are retried or failed over only before the first text delta;
        a failure after it raises UpstreamUnavailable, since the caller has already shown part of the reply.
        The configured API key never appears in the text, even when the model echoes it in pieces.
        `response_format` and `max_tokens` are asked for as in `complete`; the format is never relied on.
        """
        wanted = self._requests.wanted(response_format, max_tokens)
        call = start_model_call(messages, tools, model=self.model_name, is_streamed=True)
        return call.watch(self._stream(messages, tools, wanted, call))

    async def _stream(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        wanted: OptionalFields,
        call: ModelCall,
    ) -> AsyncIterator[ChatDelta]:
        failures: list[tuple[str, str]] = []  # (base URL, reason) per failed try
        given_up: set[str] = set()
        has_text = False
        for delay, base in self._endpoints.attempts(skip=given_up):
            if delay:
                await self._sleep(delay)
            try:
                async with self._health.translated(base):
                    model = await self._catalog.model_for(base)
                    call.at_endpoint(base, model)
                    self._disclosure.note_use(base)
                    async for delta in self._requests.stream_at(base, model, messages, tools, wanted):
                        has_text = has_text or bool(delta.text)
                        self._prompt_speed.record(model, delta.usage)
                        yield delta
                    return
            except EndpointDown as exc:
                if has_text:
                    detail = f"the reply from {base} broke off after it started: {exc.reason}"
                    raise UpstreamUnavailable("llm", self._redact(detail), was_reached=True) from exc
                self._health.record_failure(base, exc, failures, given_up)
        raise self._health.all_failed(failures)

    def prompt_tokens_per_second(self) -> float | None:
        """Return how fast the model reads prompts (tokens a second), measured on its latest replies; None: unknown.

        Of the model the client answers with (after a failover, another endpoint's may be another speed).
        """
        # The model the client answers with (configured or discovered); before either, the one the last process
        # measured (DATA_DIR), most likely the same local server's.
        model = self.model_name
        return self._prompt_speed.tokens_per_second(None if model == "auto" else model)

    async def is_available(self) -> bool:
        """Return True when one endpoint answers GET /models now (short timeout, never cached)."""
        return await self.unavailable_reason() is None

    async def unavailable_reason(self) -> str | None:
        """Return why no endpoint answers GET /models now (each one's reason, redacted), None when one does."""
        reasons: list[str] = []
        for base in self._endpoints.ordered():
            probe = await probe_models(self._connections.client(), base, self._connections.probe_timeout())
            if probe.reason is None:
                self._endpoints.mark_up(base)
                return None
            reasons.append(self._health.mark_down(base, probe.reason) if probe.is_down else self._redact(probe.reason))
        return "; ".join(reasons)

    async def context_window(self) -> int | None:
        """Return the context window (tokens) of the model at the first endpoint that answers, None if it won't say.

        Asked each time (a model can be reloaded with another context); see llm_client.endpoints.context for what each
        server reports and how.
        """
        return await self._catalog.context_window()

    async def count_tokens(self, text: str) -> int | None:
        """Return the tokens of `text` in the model's tokenizer where the endpoint counts them (llama.cpp), else None.

        Asked of the endpoint completions go to first; one that cannot count is not asked again.
        """
        return await self._catalog.count_tokens(text)

    def _redact(self, text: str) -> str:
        return redact(text, self._secrets)
