"""The OpenAI-compatible chat client (Ollama, LM Studio, llama.cpp, vLLM, OpenAI): failover, retries, redaction."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace

import httpx

from core.chat import ChatDelta, ChatMessage, ChatResult, ToolSpec
from core.errors import InvalidRequest, UpstreamUnavailable
from core.llm_endpoints import key_values
from core.settings import LlmSettings
from llm_client.call_tracing import ModelCall, start_model_call
from llm_client.context import EndpointUnreachable, count_prompt_tokens, detect_context_window, small_context_hint
from llm_client.endpoint_access import Disclosure, endpoint_auth, key_hint
from llm_client.endpoints import EndpointRotation
from llm_client.masking import Mask, masked_messages
from llm_client.reachability import missing_v1_hint, probe_models
from llm_client.redaction import MIN_SECRET_LENGTH, REDACTED, redact
from llm_client.refusals import REFUSAL_STATUS, FieldRefusals, OptionalFields, refused_field
from llm_client.wire import (
    MalformedReply,
    ProviderError,
    SecretScrubber,
    StreamAssembler,
    build_payload,
    chat_model_id,
    error_text_from_bytes,
    is_chat_model_id,
    result_from_wire,
)

logger = logging.getLogger(__name__)

AVAILABILITY_TIMEOUT_SECONDS = 2.0
# Status codes of a proxy or a loading server: worth another try, or another endpoint.
_RETRYABLE_STATUS = frozenset({502, 503, 504})
_RETRYABLE_ERRORS = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
    httpx.WriteError,
)

Sleep = Callable[[float], Awaitable[None]]


class _EndpointDown(Exception):
    """One endpoint could not be reached or is overloaded; another try (or another endpoint) may work."""

    def __init__(self, reason: str, *, is_retryable: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.is_retryable = is_retryable  # False: try the other endpoints, but not this one again in this call


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
    ) -> None:
        """Build a client; nothing is contacted until the first call.

        Args:
            settings: endpoints, key, model, timeouts and the number of retry rounds.
            backoff_seconds: wait before the first retry round; doubled each further round.
            cooldown_seconds: how long an endpoint that failed is tried after the others (then re-checked first).
            sleep: the backoff wait (tests inject one that records the delays).
            clock: monotonic seconds, for the cool-down.
            transport: an httpx transport to use instead of the network.
            mask: applied to every text sent to the model (llm_client.masking); None sends them as they are.

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
        self._auth = endpoint_auth(settings)  # each endpoint its own key, none to an endpoint without one
        self._disclosure = Disclosure()
        self._secrets = key_values(settings)  # every endpoint's: any reply or error may echo any of them
        # Only the configured key is removed from replies: the generic credential patterns would mangle prose.
        self._reply_secrets = tuple(s for s in self._secrets if len(s) >= MIN_SECRET_LENGTH)
        self._sleep = sleep
        self._transport = transport
        self._mask = mask
        self._models: dict[str, str] = {}  # discovered per base URL when LLM_MODEL is unset
        self._refusals = FieldRefusals()
        self._hinted: set[tuple[str, str]] = set()  # (base URL, model) warned about a small context once
        self._without_tokenizer: set[str] = set()  # base URLs that did not count tokens (not llama.cpp)
        self._http: httpx.AsyncClient | None = None
        self._http_loop: asyncio.AbstractEventLoop | None = None

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
        if self._http is not None:
            await self._http.aclose()
            self._http = None

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
        wanted = self._wanted(response_format, max_tokens)
        with start_model_call(messages, tools, model=self.model_name, is_streamed=False) as call:
            result = await self._complete(messages, tools, wanted, call)
            call.finish(result)
            return result

    def _wanted(self, response_format: Mapping[str, object] | None, max_tokens: int | None) -> OptionalFields:
        return OptionalFields(
            response_format=response_format, max_tokens=max_tokens, temperature=self._settings.temperature
        )

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
                async with self._translated(base):
                    model = await self._model_for(base)
                    call.at_endpoint(base, model)
                    self._disclosure.note_use(base)
                    response = await self._post_completion(base, model, messages, tools, wanted)
                    result = result_from_wire(response.json(), messages, tools)
                    return replace(result, content=self._scrubber().scrub(result.content))
            except _EndpointDown as exc:
                self._record_failure(base, exc, failures, given_up)
        raise self._all_failed(failures)

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
        wanted = self._wanted(response_format, max_tokens)
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
                async with self._translated(base):
                    model = await self._model_for(base)
                    call.at_endpoint(base, model)
                    self._disclosure.note_use(base)
                    async for delta in self._stream_at(base, model, messages, tools, wanted):
                        has_text = has_text or bool(delta.text)
                        yield delta
                    return
            except _EndpointDown as exc:
                if has_text:
                    detail = f"the reply from {base} broke off after it started: {exc.reason}"
                    raise UpstreamUnavailable("llm", self._redact(detail)) from exc
                self._record_failure(base, exc, failures, given_up)
        raise self._all_failed(failures)

    async def is_available(self) -> bool:
        """Return True when one endpoint answers GET /models now (short timeout, never cached)."""
        return await self.unavailable_reason() is None

    async def unavailable_reason(self) -> str | None:
        """Return why no endpoint answers GET /models now (each one's reason, redacted), None when one does."""
        reasons: list[str] = []
        for base in self._endpoints.ordered():
            probe = await probe_models(self._client(), base, self._probe_timeout())
            if probe.reason is None:
                self._endpoints.mark_up(base)
                return None
            reasons.append(self._mark_down(base, probe.reason) if probe.is_down else self._redact(probe.reason))
        return "; ".join(reasons)

    async def context_window(self) -> int | None:
        """Return the context window (tokens) of the model at the first endpoint that answers, None if it won't say.

        Asked each time (a model can be reloaded with another context); see llm_client.context for what each
        server reports and how.
        """
        timeout = self._probe_timeout()
        for base in self._endpoints.ordered():
            try:
                model = await self._model_for(base)
                detected = await detect_context_window(self._client(), base, model, timeout=timeout)
            except (EndpointUnreachable, UpstreamUnavailable, httpx.HTTPError, json.JSONDecodeError) as exc:
                logger.info("no context window from %s: %s", self._redact(base), self._redact(str(exc)))
                continue
            if detected is not None and (base, model) not in self._hinted:
                self._hinted.add((base, model))
                if hint := small_context_hint(detected, model):
                    logger.warning(hint)
            return detected.tokens if detected is not None else None
        return None

    async def count_tokens(self, text: str) -> int | None:
        """Return the tokens of `text` in the model's tokenizer where the endpoint counts them (llama.cpp), else None.

        Asked of the endpoint completions go to first; one that cannot count is not asked again.
        """
        base = next(iter(self._endpoints.ordered()), None)
        if base is None or base in self._without_tokenizer:
            return None
        try:
            counted = await count_prompt_tokens(self._client(), base, text, timeout=self._probe_timeout())
        except EndpointUnreachable:
            return None
        if counted is None:
            self._without_tokenizer.add(base)
        return counted

    async def _post_completion(
        self,
        base: str,
        model: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        wanted: OptionalFields,
    ) -> httpx.Response:
        fields = self._refusals.fields_for(base, stream=False, wanted=wanted)
        while True:
            payload = self._payload(model, messages, tools, fields, stream=False)
            response = await self._client().post(f"{base}/chat/completions", json=payload)
            retry = await self._refused(base, fields, response)
            if retry is None:
                await self._check_status(base, response, model)
                return response
            fields = retry

    async def _stream_at(
        self,
        base: str,
        model: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        wanted: OptionalFields,
    ) -> AsyncIterator[ChatDelta]:
        fields = self._refusals.fields_for(base, stream=True, wanted=wanted)
        while True:
            payload = self._payload(model, messages, tools, fields, stream=True)
            async with self._client().stream("POST", f"{base}/chat/completions", json=payload) as response:
                retry = await self._refused(base, fields, response)
                if retry is not None:
                    fields = retry
                    continue
                await self._check_status(base, response, model)
                self._refusals.went_through(base, fields, stream=True)
                assembler = StreamAssembler()
                scrubber = self._scrubber()
                # Read to the end even after [DONE], so the connection goes back to the pool.
                async for line in response.aiter_lines():
                    if (text := assembler.feed_line(line)) and (shown := scrubber.feed(text)):
                        yield ChatDelta(text=shown)
                if not assembler.is_complete:
                    raise _EndpointDown("the stream ended before the reply was complete")
                if rest := scrubber.flush():
                    yield ChatDelta(text=rest)
                yield assembler.final_delta(messages, tools)
                return

    def _payload(
        self,
        model: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        fields: OptionalFields,
        *,
        stream: bool,
    ) -> dict[str, object]:
        return build_payload(
            model,
            masked_messages(messages, self._mask) if self._mask else messages,  # history too: where text leaves
            tools,
            stream=stream,
            stream_usage=fields.stream_usage,
            response_format=fields.response_format,
            max_tokens=fields.max_tokens,
            max_tokens_field=fields.max_tokens_field,
            temperature=fields.temperature,
        )

    async def _refused(self, base: str, fields: OptionalFields, response: httpx.Response) -> OptionalFields | None:
        """Return the fields to try again with when the endpoint refused an optional one, else None."""
        if response.status_code not in REFUSAL_STATUS or fields == OptionalFields():
            return None
        detail = error_text_from_bytes(await response.aread())
        retry = self._refusals.refused(base, fields, response.status_code, detail)
        if retry is not None:
            field, how = refused_field(fields, retry)
            logger.info("%s refused %s (%s); asking again %s", self._redact(base), field, self._redact(detail), how)
        return retry

    async def _model_for(self, base: str) -> str:
        if self._settings.model:
            return self._settings.model
        if base in self._models:
            return self._models[base]
        response = await self._client().get(f"{base}/models")
        if response.status_code == 404:
            hint = await missing_v1_hint(self._client(), base, self._probe_timeout())
            raise UpstreamUnavailable("llm", self._redact(hint or f"{base}/models does not exist; set LLM_MODEL"))
        await self._check_status(base, response, "(listing models)")
        model = chat_model_id(response.json())
        if model is None:
            raise UpstreamUnavailable("llm", self._redact(f"{base} lists no models; load one or set LLM_MODEL"))
        if not is_chat_model_id(model):
            logger.warning("LLM endpoint %s lists only embedding-like models; trying %s", self._redact(base), model)
        logger.info("LLM endpoint %s: using model %s (set LLM_MODEL to choose)", self._redact(base), model)
        self._models[base] = model
        return model

    async def _check_status(self, base: str, response: httpx.Response, model: str) -> None:
        if response.is_success:
            self._endpoints.mark_up(base)
            return
        status = response.status_code
        detail = error_text_from_bytes(await response.aread())
        if status in _RETRYABLE_STATUS:
            raise _EndpointDown(f"HTTP {status}: {detail}")
        if status >= 500:
            # A 500 ("CUDA out of memory", a crashed worker) fails over but is not retried on the same endpoint:
            # the same request rarely fares better a moment later.
            raise _EndpointDown(f"HTTP {status}: {detail}", is_retryable=False)
        if status in (401, 403):
            hint = key_hint(self._settings, has_key=self._auth.has_key(base))
            message = f"the endpoint refused the API key (HTTP {status} from {base}); {hint}: {detail}"
        elif status == 404:
            self._models.pop(base, None)  # a discovered model may have been unloaded: list again next time
            wrong_base = await missing_v1_hint(self._client(), base, self._probe_timeout())
            message = f"HTTP 404 from {base}: " + (
                wrong_base
                or f"model {model!r} not found, or the base URL is wrong (it usually ends in /v1); "
                f"check LLM_MODEL and LLM_BASE_URL: {detail}"
            )
        else:
            message = f"HTTP {status} from {base}: {detail}"
        raise UpstreamUnavailable("llm", self._redact(message))

    @asynccontextmanager
    async def _translated(self, base: str) -> AsyncIterator[None]:
        """Turn httpx and wire-format failures into _EndpointDown (retryable) or UpstreamUnavailable."""
        try:
            yield
        except _RETRYABLE_ERRORS as exc:
            raise _EndpointDown(f"{type(exc).__name__}: {exc}") from exc
        except httpx.TimeoutException as exc:
            # A hung endpoint fails over, but one retry round more would cost another whole read timeout.
            detail = f"sent nothing for {self._settings.read_timeout_seconds:g} s (LLM_READ_TIMEOUT_SECONDS)"
            raise _EndpointDown(detail, is_retryable=False) from exc
        except httpx.HTTPError as exc:
            raise UpstreamUnavailable("llm", self._redact(f"{base}: {type(exc).__name__}: {exc}")) from exc
        except ProviderError as exc:
            raise UpstreamUnavailable("llm", self._redact(f"{base} reported an error: {exc}")) from exc
        except (MalformedReply, json.JSONDecodeError) as exc:
            detail = f"{base} did not answer in the OpenAI format: {exc}"
            raise UpstreamUnavailable("llm", self._redact(detail)) from exc

    def _mark_down(self, base: str, reason: str) -> str:
        self._endpoints.mark_down(base)
        failure = self._redact(f"{base}: {reason}")
        logger.warning("LLM endpoint failed: %s", failure)
        return failure

    def _record_failure(
        self, base: str, exc: _EndpointDown, failures: list[tuple[str, str]], given_up: set[str]
    ) -> None:
        failures.append((base, self._mark_down(base, exc.reason)))
        if not exc.is_retryable:
            given_up.add(base)

    def _all_failed(self, failures: list[tuple[str, str]]) -> UpstreamUnavailable:
        tries = "1 try" if len(failures) == 1 else f"{len(failures)} tries"
        reasons = "; ".join(dict(failures).values())  # the latest reason of each endpoint, in first-failed order
        return UpstreamUnavailable("llm", self._redact(f"no endpoint answered after {tries}: {reasons}"))

    def _probe_timeout(self) -> httpx.Timeout:
        return httpx.Timeout(min(AVAILABILITY_TIMEOUT_SECONDS, self._settings.connect_timeout_seconds))

    def _scrubber(self) -> SecretScrubber:
        return SecretScrubber(self._reply_secrets, replacement=REDACTED)

    def _redact(self, text: str) -> str:
        return redact(text, self._secrets)

    def _client(self) -> httpx.AsyncClient:
        """Return the pooled client of the running event loop (pooled connections belong to one loop)."""
        loop = asyncio.get_running_loop()
        if self._http is None or self._http_loop is not loop:
            timeout = httpx.Timeout(self._settings.read_timeout_seconds, connect=self._settings.connect_timeout_seconds)
            self._http = httpx.AsyncClient(auth=self._auth, timeout=timeout, transport=self._transport)
            self._http_loop = loop
        return self._http
