"""One chat-completions request to one endpoint: its masked body, and asking again without a field it refused."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import replace
from urllib.parse import urlsplit

import httpx

from core.chat import ChatDelta, ChatMessage, ChatResult, ToolSpec
from core.llm_endpoints import is_nearby_host
from core.settings import LlmSettings
from llm_client.completions.refusals import REFUSAL_STATUS, FieldRefusals, OptionalFields, refused_field
from llm_client.completions.wire import StreamAssembler, build_payload, error_text_from_bytes, result_from_wire
from llm_client.endpoints.connections import LoopConnections
from llm_client.endpoints.failover import EndpointDown, EndpointHealth
from llm_client.replies.thinking import ThinkingFilter, without_thinking
from llm_client.secrets.masking import Mask, masked_messages
from llm_client.secrets.redaction import REDACTED
from llm_client.secrets.secret_scrubber import SecretScrubber

logger = logging.getLogger(__name__)


class CompletionRequests:
    """Send POST /chat/completions to one endpoint, leaving out what it refused, and scrub keys from the reply."""

    def __init__(
        self,
        settings: LlmSettings,
        connections: LoopConnections,
        health: EndpointHealth,
        *,
        reply_secrets: Sequence[str],
        mask: Mask | None,
        redact: Callable[[str], str],
    ) -> None:
        """Send through `connections`; `reply_secrets` are replaced in replies, `mask` applied to every text sent."""
        self._settings = settings
        self._connections = connections
        self._health = health
        self._reply_secrets = tuple(reply_secrets)
        self._mask = mask
        self._redact = redact
        self._refusals = FieldRefusals()

    def wanted(self, response_format: Mapping[str, object] | None, max_tokens: int | None) -> OptionalFields:
        """Return the optional fields a call asks for (with LLM_TEMPERATURE), before any endpoint refused one."""
        return OptionalFields(
            response_format=response_format, max_tokens=max_tokens, temperature=self._settings.temperature
        )

    async def complete_at(
        self,
        base: str,
        model: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        wanted: OptionalFields,
    ) -> ChatResult:
        """Return the endpoint's whole reply, keys scrubbed from its text."""
        response = await self._post_completion(base, model, messages, tools, wanted)
        result = result_from_wire(response.json(), messages, tools)
        return replace(result, content=self._scrubber().scrub(without_thinking(result.content)))

    async def stream_at(
        self,
        base: str,
        model: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        wanted: OptionalFields,
    ) -> AsyncIterator[ChatDelta]:
        """Yield the endpoint's text deltas, keys scrubbed, then the closing delta; raise EndpointDown if cut short."""
        fields = self._refusals.fields_for(base, stream=True, wanted=wanted)
        # Timed by its first output only on this machine or the local network: a hosted API's first output also
        # waits on its hidden reasoning (OpenAI's o-series, Gemini's thinking) and the network, which no budget
        # of passages should be cut for (llm_client/prompt_speed.py).
        is_nearby = is_nearby_host(urlsplit(base).hostname or "")
        while True:
            payload = self._payload(model, messages, tools, fields, stream=True)
            started = time.monotonic()
            async with self._connections.client().stream("POST", f"{base}/chat/completions", json=payload) as response:
                retry = await self._refused(base, fields, response)
                if retry is not None:
                    fields = retry
                    continue
                await self._health.check_status(base, response, model)
                self._refusals.went_through(base, fields, stream=True)
                assembler = StreamAssembler()
                thinking = ThinkingFilter()
                scrubber = self._scrubber()
                # Read to the end even after [DONE], so the connection goes back to the pool.
                async for line in response.aiter_lines():
                    text = thinking.feed(assembler.feed_line(line))
                    if is_nearby and assembler.has_output and assembler.first_output_seconds is None:
                        assembler.first_output_seconds = time.monotonic() - started
                    if text and (shown := scrubber.feed(text)):
                        yield ChatDelta(text=shown)
                if not assembler.is_complete:
                    raise EndpointDown("the stream ended before the reply was complete")
                if rest := scrubber.feed(thinking.flush()) + scrubber.flush():
                    yield ChatDelta(text=rest)
                yield assembler.final_delta(messages, tools)
                return

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
            response = await self._connections.client().post(f"{base}/chat/completions", json=payload)
            retry = await self._refused(base, fields, response)
            if retry is None:
                await self._health.check_status(base, response, model)
                return response
            fields = retry

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

    def _scrubber(self) -> SecretScrubber:
        return SecretScrubber(self._reply_secrets, replacement=REDACTED)
