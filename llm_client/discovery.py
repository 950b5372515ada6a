"""Finding the chat model to use: the configured endpoints, else a local LM Studio or Ollama found by probing."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

import httpx

from core.settings import LlmSettings
from llm_client.client import OpenAICompatibleChatModel
from llm_client.completions.wire import is_chat_model_id, model_ids
from llm_client.prompt_speed import PromptSpeed
from llm_client.secrets.masking import Mask

logger = logging.getLogger(__name__)

LOCAL_PROBE_URLS = ("http://127.0.0.1:1234/v1", "http://127.0.0.1:11434/v1")  # LM Studio, Ollama
PROBE_TIMEOUT_SECONDS = 0.5


async def build_chat_model(
    settings: LlmSettings,
    *,
    probe_urls: Sequence[str] = LOCAL_PROBE_URLS,
    probe_timeout_seconds: float = PROBE_TIMEOUT_SECONDS,
    mask: Mask | None = None,
    prompt_speed: PromptSpeed | None = None,
) -> OpenAICompatibleChatModel | None:
    """Return a client for the configured endpoints, else for a local server found by probing, else None.

    Async because probing is network I/O: call it once at start-up (lifespan, or `asyncio.run` in the CLI).
    A probed server counts only if it lists a chat model (or LLM_MODEL is set); None means retrieval-only mode.
    `mask` is applied to every text the client sends (credentials, REDACT_SECRETS); `prompt_speed` keeps how fast
    the model reads prompts.
    """
    if settings.base_urls:
        return OpenAICompatibleChatModel(settings, mask=mask, prompt_speed=prompt_speed)
    if not settings.probe_local_ports:
        return None
    headers = {"Authorization": f"Bearer {settings.api_key.get_secret_value()}"} if settings.api_key else {}
    async with httpx.AsyncClient(headers=headers, timeout=probe_timeout_seconds) as client:
        for url in probe_urls:
            base = url.rstrip("/")
            try:
                response = await client.get(f"{base}/models")
                # A server with only embedding models (Ollama with just nomic-embed-text) cannot chat.
                has_model = response.is_success and bool(
                    settings.model or any(is_chat_model_id(i) for i in model_ids(response.json()))
                )
            except (httpx.HTTPError, json.JSONDecodeError):
                continue
            if has_model:
                logger.info("found a local LLM endpoint at %s", base)
                found = settings.model_copy(update={"base_urls": (base,)})
                return OpenAICompatibleChatModel(found, mask=mask, prompt_speed=prompt_speed)
    return None  # the caller says, once, that it answers without a model
