"""The model at each endpoint: LLM_MODEL or the one it lists, the context window it runs with, its token counts."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

import httpx

from core.errors import UpstreamUnavailable
from core.settings import LlmSettings
from llm_client.completions.wire import chat_model_id, is_chat_model_id
from llm_client.endpoints.connections import LoopConnections
from llm_client.endpoints.context import (
    EndpointUnreachable,
    count_prompt_tokens,
    detect_context_window,
    small_context_hint,
)
from llm_client.endpoints.failover import EndpointHealth
from llm_client.endpoints.reachability import missing_v1_hint
from llm_client.endpoints.rotation import EndpointRotation

logger = logging.getLogger(__name__)


class ModelCatalog:
    """Find the model each endpoint serves when LLM_MODEL is unset, and ask endpoints about their model."""

    def __init__(
        self,
        settings: LlmSettings,
        endpoints: EndpointRotation,
        connections: LoopConnections,
        health: EndpointHealth,
        *,
        models: dict[str, str],
        redact: Callable[[str], str],
    ) -> None:
        """Fill `models` (the client's, shared with `health`) with the model discovered per base URL."""
        self._settings = settings
        self._endpoints = endpoints
        self._connections = connections
        self._health = health
        self._models = models
        self._redact = redact
        self._hinted: set[tuple[str, str]] = set()  # (base URL, model) warned about a small context once
        self._without_tokenizer: set[str] = set()  # base URLs that did not count tokens (not llama.cpp)

    async def model_for(self, base: str) -> str:
        """Return LLM_MODEL, else the chat model the endpoint lists (asked once per endpoint until it 404s)."""
        if self._settings.model:
            return self._settings.model
        if base in self._models:
            return self._models[base]
        response = await self._connections.client().get(f"{base}/models")
        if response.status_code == 404:
            hint = await missing_v1_hint(self._connections.client(), base, self._connections.probe_timeout())
            raise UpstreamUnavailable("llm", self._redact(hint or f"{base}/models does not exist; set LLM_MODEL"))
        await self._health.check_status(base, response, "(listing models)")
        model = chat_model_id(response.json())
        if model is None:
            raise UpstreamUnavailable("llm", self._redact(f"{base} lists no models; load one or set LLM_MODEL"))
        if not is_chat_model_id(model):
            logger.warning("LLM endpoint %s lists only embedding-like models; trying %s", self._redact(base), model)
        logger.info("LLM endpoint %s: using model %s (set LLM_MODEL to choose)", self._redact(base), model)
        self._models[base] = model
        return model

    async def context_window(self) -> int | None:
        """Return the context window (tokens) of the model at the first endpoint that answers, None if it won't say.

        Asked each time (a model can be reloaded with another context); see llm_client.endpoints.context for what each
        server reports and how.
        """
        timeout = self._connections.probe_timeout()
        for base in self._endpoints.ordered():
            try:
                model = await self.model_for(base)
                detected = await detect_context_window(self._connections.client(), base, model, timeout=timeout)
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
            counted = await count_prompt_tokens(
                self._connections.client(), base, text, timeout=self._connections.probe_timeout()
            )
        except EndpointUnreachable:
            return None
        if counted is None:
            self._without_tokenizer.add(base)
        return counted
