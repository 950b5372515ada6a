"""Security at the edge: bearer auth on /v1, trusted Host names, request size limit, loopback-only binding."""

from __future__ import annotations

import hmac
import ipaddress
import json
from urllib.parse import urlsplit

from fastapi import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.openai_schemas import error_json
from core.errors import InvalidRequest, Unauthorized
from core.settings import ServerSettings

LOCALHOST_ORIGINS = r"^(app://obsidian\.md|https?://(localhost|127\.0\.0\.1|\[::1\])(:\d+)?)$"
# "testserver" is the Host header of Starlette's TestClient; like the loopback names it cannot be rebound by a
# web page, because a browser only sends it for a URL whose host is literally "testserver".
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "testserver"})


def is_loopback(host: str) -> bool:
    """Return True for addresses only this machine can reach."""
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_all_interfaces(host: str) -> bool:
    """Return True for a bind address that listens on every interface (0.0.0.0, ::)."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def check_bind_address(settings: ServerSettings) -> None:
    """Refuse to listen beyond loopback without an API key: the vault would be open to the network."""
    if not is_loopback(settings.host) and settings.api_key is None:
        raise InvalidRequest(
            f"refusing to listen on {settings.host} without API_KEY: anyone on the network could read your notes; "
            "set API_KEY or bind 127.0.0.1"
        )


def trusted_hosts(settings: ServerSettings) -> frozenset[str] | None:
    """Return the Host names served (any port): loopback names plus HOST; None when listening on all interfaces.

    Bound to all interfaces (Docker), clients reach the service under names we cannot know, and API_KEY is
    required there anyway; bound to loopback, a foreign Host header means a DNS-rebinding page is calling.
    """
    if is_all_interfaces(settings.host):
        return None
    return LOOPBACK_HOSTS | {settings.host.strip("[]").lower()}


def require_api_key(request: Request) -> None:
    """Check `Authorization: Bearer <API_KEY>` when a key is configured (constant-time comparison)."""
    settings: ServerSettings = request.app.state.server_settings
    if settings.api_key is None:
        return
    expected = f"Bearer {settings.api_key.get_secret_value()}"
    given = request.headers.get("authorization", "")
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise Unauthorized("missing or wrong API key: send 'Authorization: Bearer <API_KEY>'")


class TrustedHosts:
    """Answer 400 to requests whose Host header names another host (DNS rebinding against a loopback service)."""

    def __init__(self, app: ASGIApp, *, hosts: frozenset[str] | None) -> None:
        self._app = app
        self._hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on when its Host is trusted (a request without Host cannot come from a browser)."""
        if self._hosts is None or scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        header = dict(scope.get("headers", [])).get(b"host")
        name = _host_name(header.decode("latin-1")) if header is not None else None
        if name is None or name in self._hosts or is_loopback(name):
            await self._app(scope, receive, send)
            return
        shown = header.decode("latin-1")[:100] if header is not None else ""
        message = (
            f"the Host header {shown!r} is not served here (a guard against DNS rebinding); "
            f"use one of: {', '.join(sorted(self._hosts))}"
        )
        await _send_error(send, 400, error_json(message, error_type="invalid_request_error", code="invalid_host"))


def _host_name(header: str) -> str:
    """Return the lower-case host of a Host header without port or IPv6 brackets ('' when unparseable)."""
    try:
        return urlsplit(f"//{header.strip()}").hostname or ""
    except ValueError:
        return ""


class BodySizeLimit:
    """Read the whole request body first and answer 413 as soon as it passes the limit, chunked or not.

    Counting inside the app's own `receive` does not work: FastAPI turns any error raised while it reads the
    body into a 400 "error parsing the body". So the body is buffered here (at most the limit) and replayed.
    """

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self._app = app
        self._max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Buffer the body within the limit, then run the app on it; 413 when it is larger."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self._max_bytes:
            await self._reject(send)
            return
        parts: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before sending the whole body: nobody to answer
            part = message.get("body", b"")
            size += len(part)
            if size > self._max_bytes:
                await self._reject(send)
                return
            parts.append(part)
            if not message.get("more_body", False):
                break
        body: bytes | None = b"".join(parts)

        async def replay() -> Message:
            # The body once, then the server's own events (http.disconnect), which streaming responses watch.
            nonlocal body
            if body is None:
                return await receive()
            message: Message = {"type": "http.request", "body": body, "more_body": False}
            body = None
            return message

        await self._app(scope, replay, send)

    async def _reject(self, send: Send) -> None:
        message = f"the request body is larger than {self._max_bytes} bytes (MAX_BODY_BYTES)"
        await _send_error(send, 413, error_json(message, error_type="invalid_request_error", code="request_too_large"))


async def _send_error(send: Send, status: int, error: dict[str, object]) -> None:
    body = json.dumps(error).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
