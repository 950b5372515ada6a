"""The pooled HTTP connections to the LLM endpoints: one httpx client per event loop, and the probe timeout."""

from __future__ import annotations

import asyncio

import httpx

from core.settings import LlmSettings
from llm_client.endpoints.endpoint_access import EndpointAuth

AVAILABILITY_TIMEOUT_SECONDS = 2.0


class LoopConnections:
    """Hold the pooled httpx client of the running event loop, with each endpoint's auth and the LLM timeouts."""

    def __init__(
        self, settings: LlmSettings, auth: EndpointAuth, *, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self._settings = settings
        self._auth = auth
        self._transport = transport
        self._http: httpx.AsyncClient | None = None
        self._http_loop: asyncio.AbstractEventLoop | None = None

    async def aclose(self) -> None:
        """Close pooled connections."""
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    def client(self) -> httpx.AsyncClient:
        """Return the pooled client of the running event loop (pooled connections belong to one loop)."""
        loop = asyncio.get_running_loop()
        if self._http is None or self._http_loop is not loop:
            timeout = httpx.Timeout(self._settings.read_timeout_seconds, connect=self._settings.connect_timeout_seconds)
            self._http = httpx.AsyncClient(auth=self._auth, timeout=timeout, transport=self._transport)
            self._http_loop = loop
        return self._http

    def probe_timeout(self) -> httpx.Timeout:
        """Return the short timeout of availability, model-listing and context probes."""
        return httpx.Timeout(min(AVAILABILITY_TIMEOUT_SECONDS, self._settings.connect_timeout_seconds))
