"""Security at the edge: bearer auth on /v1, request size limit, loopback-only binding without a key."""

from __future__ import annotations

import hmac
import ipaddress
import json

from fastapi import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.openai_schemas import error_json
from core.errors import InvalidRequest, Unauthorized
from core.settings import ServerSettings

LOCALHOST_ORIGINS = r"^(app://obsidian\.md|https?://(localhost|127\.0\.0\.1|\[::1\])(:\d+)?)$"


def is_loopback(host: str) -> bool:
    """Return True for addresses only this machine can reach."""
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind_address(settings: ServerSettings) -> None:
    """Refuse to listen beyond loopback without an API key: the vault would be open to the network."""
    if not is_loopback(settings.host) and settings.api_key is None:
        raise InvalidRequest(
            f"refusing to listen on {settings.host} without API_KEY: anyone on the network could read your notes; "
            "set API_KEY or bind 127.0.0.1"
        )


def require_api_key(request: Request) -> None:
    """Check `Authorization: Bearer <API_KEY>` when a key is configured (constant-time comparison)."""
    settings: ServerSettings = request.app.state.server_settings
    if settings.api_key is None:
        return
    expected = f"Bearer {settings.api_key.get_secret_value()}"
    given = request.headers.get("authorization", "")
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise Unauthorized("missing or wrong API key: send 'Authorization: Bearer <API_KEY>'")


class BodySizeLimit:
    """Reject request bodies above a limit with 413, by Content-Length and while streaming (chunked bodies)."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self._app = app
        self._max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the request, counting body bytes."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self._max_bytes:
            await self._reject(send)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self._max_bytes:
                    raise _TooLarge
            return message

        try:
            await self._app(scope, counting_receive, send)
        except _TooLarge:
            await self._reject(send)

    async def _reject(self, send: Send) -> None:
        body = json.dumps(
            error_json(
                f"the request body is larger than {self._max_bytes} bytes (MAX_BODY_BYTES)",
                error_type="invalid_request_error",
                code="request_too_large",
            )
        ).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    """Raised inside the body reader when the limit is crossed."""
