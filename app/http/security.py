"""Security at the edge: bearer auth on /v1, trusted Host names, request size limit, loopback-only binding."""

from __future__ import annotations

import hmac
import json
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http.deps import runtime_or_none, server_settings_of
from app.http.openai_schemas import error_json
from app.process.bind_address import MIN_API_KEY_LENGTH as MIN_API_KEY_LENGTH  # moved there; still importable from here
from app.process.bind_address import check_bind_address as check_bind_address
from app.process.bind_address import is_all_interfaces, is_loopback
from core.errors import Unauthorized
from core.settings import ServerSettings

LOCALHOST_ORIGINS = r"^(app://obsidian\.md|https?://(localhost|127\.0\.0\.1|\[::1\])(:\d+)?)$"
# Only names no DNS record can point elsewhere. Tests reach the app under one of them (TestClient's base_url),
# never under Starlette's default "testserver", which a LAN DNS could resolve to this machine.
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
# auto_error=False: without API_KEY no key is asked for, and a missing key is our 401, in OpenAI's error shape.
BEARER_AUTH = HTTPBearer(
    auto_error=False,
    scheme_name="bearerAuth",
    description="API_KEY; required on /v1/* when the service has one (always when it listens beyond loopback)",
)


def trusted_hosts(settings: ServerSettings) -> frozenset[str] | None:
    """Return the Host names served (any port): loopback names plus HOST; None when listening on all interfaces.

    Bound to all interfaces (Docker), clients reach the service under names we cannot know, and API_KEY is
    required there anyway; bound to loopback, a foreign Host header means a DNS-rebinding page is calling.
    """
    if is_all_interfaces(settings.host):
        return None
    return LOOPBACK_HOSTS | {settings.host.strip("[]").lower()}


def require_api_key(
    request: Request, bearer: Annotated[HTTPAuthorizationCredentials | None, Security(BEARER_AUTH)]
) -> None:
    """Check `Authorization: Bearer <API_KEY>` when a key is configured (constant-time comparison).

    The scheme is case-insensitive (RFC 9110, section 11.1); declared through `Security`, so the OpenAPI schema
    names the scheme on exactly the routes that check it.
    """
    settings = server_settings_of(request)
    if settings.api_key is None:
        return
    # Header values arrive as latin-1 text: compare the bytes the client sent with the key's UTF-8 bytes.
    given = bearer.credentials.encode("latin-1") if bearer is not None else b""
    # The local token in DATA_DIR/owner.lock (readable by this user only) lets the CLI in without API_KEY.
    ownership = runtime.ownership if (runtime := runtime_or_none(request)) else None
    local_token = ownership.owner.token if ownership is not None else None
    accepted = [settings.api_key.get_secret_value(), *([local_token] if local_token else [])]
    # Every key is compared, so the time taken does not tell which one came close.
    matches = [hmac.compare_digest(given, key.encode()) for key in accepted]
    if not any(matches):
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
