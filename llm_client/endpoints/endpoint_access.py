"""Per-endpoint access: each endpoint gets its own key and no other, and note text leaving the machine is said."""

from __future__ import annotations

import logging
from collections.abc import Generator, Mapping, Sequence
from urllib.parse import urlsplit

import httpx

from core.errors import InvalidRequest
from core.llm_endpoints import check_endpoint_keys, is_this_machine, keys_by_endpoint, normal_base
from core.settings import LlmSettings

logger = logging.getLogger(__name__)


class EndpointAuth(httpx.Auth):
    """Send each request the key of the endpoint its URL belongs to; a URL of no keyed endpoint gets none.

    Chosen by the request's URL rather than by the caller, so no code path can send one endpoint's key to another.
    A URL belongs to the configured endpoint whose base URL it lies under (the longest); a native API beside the
    base URL (llama.cpp's /props, Ollama's /api/show) belongs to the endpoint on that server when there is one.
    """

    def __init__(self, base_urls: Sequence[str], keys: Mapping[str, str]) -> None:
        self._endpoints = tuple((httpx.URL(base), keys.get(base)) for base in base_urls)

    def has_key(self, url: str) -> bool:
        """Return True when requests to `url` carry a key."""
        return self._key_for(httpx.URL(url)) is not None

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        """Add `Authorization: Bearer <key>`, or Basic auth from credentials in the URL, as httpx would."""
        url = request.url
        if url.username or url.password:
            # An auth on the client turns off httpx's own use of URL credentials: keep it.
            yield from httpx.BasicAuth(url.username, url.password).auth_flow(request)
            return
        key = self._key_for(url)
        if key is not None:
            request.headers["Authorization"] = f"Bearer {key}"
        yield request

    def _key_for(self, url: httpx.URL) -> str | None:
        same_server = [(base, key) for base, key in self._endpoints if _origin(base) == _origin(url)]
        under = [(base, key) for base, key in same_server if _is_under(url.path, base.path)]
        if under:
            return max(under, key=lambda endpoint: len(endpoint[0].path))[1]
        keys = {key for _base, key in same_server}
        return keys.pop() if len(keys) == 1 else None  # endpoints on one server with other keys: none of them


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


def _is_under(path: str, base_path: str) -> bool:
    prefix = base_path.rstrip("/")
    return path == prefix or path.startswith(f"{prefix}/")


def endpoint_auth(settings: LlmSettings) -> EndpointAuth:
    """Return the auth that gives each configured endpoint its own key (LLM_API_KEY, LLM_API_KEYS).

    Raises:
        InvalidRequest: a key is not meant for exactly one endpoint (Settings refuses that at start already).

    """
    try:
        check_endpoint_keys(settings.base_urls, settings.api_key, settings.endpoint_keys)
    except ValueError as exc:
        raise InvalidRequest(str(exc)) from exc
    keys = {base: key.get_secret_value() for base, key in keys_by_endpoint(settings).items()}
    return EndpointAuth([normal_base(url) for url in settings.base_urls], keys)


def key_hint(settings: LlmSettings, *, has_key: bool) -> str:
    """Return which setting to look at when an endpoint refuses its key (or wants one)."""
    if has_key:
        return "check LLM_API_KEYS" if settings.endpoint_keys else "check LLM_API_KEY"
    return "give it a key in LLM_API_KEYS" if len(settings.base_urls) > 1 else "set LLM_API_KEY"


class Disclosure:
    """Say once per host, at WARNING, that note text is sent to an endpoint off this machine."""

    def __init__(self) -> None:
        self._told: set[str] = set()

    def note_use(self, base: str) -> None:
        """Record that a request with note text goes to `base`; warn the first time for a host elsewhere."""
        host = urlsplit(base).hostname or ""
        if host and host not in self._told and not is_this_machine(host):
            self._told.add(host)
            logger.warning("note text is sent to %s: it leaves this machine for that LLM endpoint", host)
