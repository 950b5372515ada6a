"""Endpoint failover bookkeeping: which failures are worth another try, the health marks they leave, their report."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx

from core.errors import UpstreamUnavailable
from core.settings import LlmSettings
from llm_client.completions.wire import MalformedReply, ProviderError, error_text_from_bytes
from llm_client.endpoints.connections import LoopConnections
from llm_client.endpoints.endpoint_access import EndpointAuth, key_hint
from llm_client.endpoints.reachability import missing_v1_hint
from llm_client.endpoints.rotation import EndpointRotation

logger = logging.getLogger(__name__)

# Status codes of a proxy or a loading server: worth another try, or another endpoint.
_RETRYABLE_STATUS = frozenset({502, 503, 504})
_RETRYABLE_ERRORS = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
    httpx.WriteError,
)


class EndpointDown(Exception):
    """One endpoint could not be reached or is overloaded; another try (or another endpoint) may work."""

    def __init__(self, reason: str, *, is_retryable: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.is_retryable = is_retryable  # False: try the other endpoints, but not this one again in this call


class EndpointHealth:
    """Turn each endpoint's replies and errors into EndpointDown or UpstreamUnavailable, marking it up or down."""

    def __init__(
        self,
        settings: LlmSettings,
        endpoints: EndpointRotation,
        connections: LoopConnections,
        *,
        auth: EndpointAuth,
        models: dict[str, str],
        redact: Callable[[str], str],
    ) -> None:
        """Watch `endpoints`; `models` is the client's discovered model per base URL, forgotten on a 404."""
        self._settings = settings
        self._endpoints = endpoints
        self._connections = connections
        self._auth = auth
        self._models = models
        self._redact = redact

    async def check_status(self, base: str, response: httpx.Response, model: str) -> None:
        """Mark the endpoint up on success; else raise EndpointDown (5xx) or UpstreamUnavailable saying what to fix."""
        if response.is_success:
            self._endpoints.mark_up(base)
            return
        status = response.status_code
        detail = error_text_from_bytes(await response.aread())
        if status in _RETRYABLE_STATUS:
            raise EndpointDown(f"HTTP {status}: {detail}")
        if status >= 500:
            # A 500 ("CUDA out of memory", a crashed worker) fails over but is not retried on the same endpoint:
            # the same request rarely fares better a moment later.
            raise EndpointDown(f"HTTP {status}: {detail}", is_retryable=False)
        if status in (401, 403):
            hint = key_hint(self._settings, has_key=self._auth.has_key(base))
            message = f"the endpoint refused the API key (HTTP {status} from {base}); {hint}: {detail}"
        elif status == 404:
            self._models.pop(base, None)  # a discovered model may have been unloaded: list again next time
            wrong_base = await missing_v1_hint(self._connections.client(), base, self._connections.probe_timeout())
            message = f"HTTP 404 from {base}: " + (
                wrong_base
                or f"model {model!r} not found, or the base URL is wrong (it usually ends in /v1); "
                f"check LLM_MODEL and LLM_BASE_URL: {detail}"
            )
        else:
            message = f"HTTP {status} from {base}: {detail}"
        raise UpstreamUnavailable("llm", self._redact(message), was_reached=True)

    @asynccontextmanager
    async def translated(self, base: str) -> AsyncIterator[None]:
        """Turn httpx and wire-format failures into EndpointDown (retryable) or UpstreamUnavailable."""
        try:
            yield
        except _RETRYABLE_ERRORS as exc:
            raise EndpointDown(f"{type(exc).__name__}: {exc}") from exc
        except httpx.TimeoutException as exc:
            # A hung endpoint fails over, but one retry round more would cost another whole read timeout.
            detail = f"sent nothing for {self._settings.read_timeout_seconds:g} s (LLM_READ_TIMEOUT_SECONDS)"
            raise EndpointDown(detail, is_retryable=False) from exc
        except httpx.HTTPError as exc:
            raise UpstreamUnavailable("llm", self._redact(f"{base}: {type(exc).__name__}: {exc}")) from exc
        except ProviderError as exc:
            detail = f"{base} reported an error: {exc}"
            raise UpstreamUnavailable("llm", self._redact(detail), was_reached=True) from exc
        except (MalformedReply, json.JSONDecodeError) as exc:
            detail = f"{base} did not answer in the OpenAI format: {exc}"
            raise UpstreamUnavailable("llm", self._redact(detail), was_reached=True) from exc

    def mark_down(self, base: str, reason: str) -> str:
        """Put the endpoint in cool-down, log why, and return the reason (redacted) for the caller's report."""
        self._endpoints.mark_down(base)
        failure = self._redact(f"{base}: {reason}")
        logger.warning("LLM endpoint failed: %s", failure)
        return failure

    def record_failure(self, base: str, exc: EndpointDown, failures: list[tuple[str, str]], given_up: set[str]) -> None:
        """Mark the endpoint down, add the reason to `failures`, and give it up for this call if not retryable."""
        failures.append((base, self.mark_down(base, exc.reason)))
        if not exc.is_retryable:
            given_up.add(base)

    def all_failed(self, failures: list[tuple[str, str]]) -> UpstreamUnavailable:
        """Return the error of a call that no endpoint answered, with each endpoint's latest reason."""
        tries = "1 try" if len(failures) == 1 else f"{len(failures)} tries"
        reasons = "; ".join(dict(failures).values())  # the latest reason of each endpoint, in first-failed order
        return UpstreamUnavailable("llm", self._redact(f"no endpoint answered after {tries}: {reasons}"))
