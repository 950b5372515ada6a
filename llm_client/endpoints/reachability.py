"""Whether an endpoint answers now, and why not: a base URL missing its `/v1` is named as such.

OpenAI-compatible servers serve the API under `/v1` (Ollama, LM Studio, vLLM); `http://localhost:11434` instead of
`http://localhost:11434/v1` gets 404 for every call, which reads like a missing model. When `URL/models` is not
found and `URL/v1/models` answers, the reason given is the fix.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx


@dataclass(frozen=True, slots=True)
class Probe:
    """One endpoint's answer to GET /models: None reason when it answered; `is_down` when it could not be reached."""

    reason: str | None
    is_down: bool = False


async def probe_models(client: httpx.AsyncClient, base: str, timeout: httpx.Timeout) -> Probe:
    """Ask `base`/models once; say why it failed, with the /v1 fix when that is the cause."""
    try:
        response = await client.get(f"{base}/models", timeout=timeout)
    except httpx.HTTPError as exc:
        return Probe(f"{type(exc).__name__}: {exc}", is_down=True)
    if response.is_success:
        return Probe(None)
    if response.status_code == 404 and (hint := await missing_v1_hint(client, base, timeout)):
        return Probe(hint)
    return Probe(f"HTTP {response.status_code} from {base}/models")


async def missing_v1_hint(client: httpx.AsyncClient, base: str, timeout: httpx.Timeout) -> str | None:
    """Return "LLM_BASE_URL should end in /v1 ..." when `base` lacks it and `base`/v1/models answers, else None."""
    if base.rstrip("/").endswith("/v1"):
        return None
    try:
        response = await client.get(f"{base}/v1/models", timeout=timeout)
    except httpx.HTTPError:
        return None
    if not response.is_success:
        return None
    return (
        f"LLM_BASE_URL should end in /v1: {base}/models does not exist but {base}/v1/models answers; "
        f"try LLM_BASE_URL={base}/v1"
    )
