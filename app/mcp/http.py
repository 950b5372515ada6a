"""Streamable HTTP at `/mcp`, inside the same app as `/v1`: the same bearer auth, Host check and Origin allowlist.

The Host check is the app's `TrustedHosts` middleware, which already sees every request. The bearer is checked
by the very function that guards `/v1` (`app.http.security.require_api_key`). Browsers are told by CORS which origins
may read `/v1`; an MCP server must refuse a foreign Origin itself (the spec asks it to, against DNS rebinding), so
`/mcp` answers 403 to any Origin that CORS would not allow.
"""

from __future__ import annotations

import json
import re
from contextlib import AsyncExitStack

from fastapi import FastAPI
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from app.http.deps import server_settings_of
from app.http.openai_schemas import error_json
from app.http.runtime import Runtime
from app.http.security import BEARER_AUTH, LOCALHOST_ORIGINS, require_api_key
from app.mcp.backend import backend_of
from app.mcp.server import build_server
from core.errors import Unauthorized
from core.settings import ServerSettings

MCP_PATH = "/mcp"


def is_allowed_origin(origin: str, settings: ServerSettings) -> bool:
    """Return True for an Origin the CORS policy allows: CORS_ORIGINS and localhost on any port."""
    return origin in settings.cors_origins or re.fullmatch(LOCALHOST_ORIGINS, origin) is not None


async def _refuse(send: Send, status: int, message: str, *, error_type: str, code: str) -> None:
    body = json.dumps(error_json(message, error_type=error_type, code=code)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class McpEndpoint:
    """The `/mcp` route: refuse a foreign Origin (403) or a missing or wrong key (401), then serve MCP."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the request as `/v1` is checked, then hand it to the session manager the lifespan started."""
        request = Request(scope, receive)
        settings = server_settings_of(request)
        origin = request.headers.get("origin")
        if origin is not None and not is_allowed_origin(origin, settings):
            message = f"the Origin {origin[:100]!r} may not use this server (CORS_ORIGINS lists the allowed ones)"
            await _refuse(send, 403, message, error_type="invalid_request_error", code="invalid_origin")
            return
        try:
            require_api_key(request, await BEARER_AUTH(request))
        except Unauthorized as exc:
            await _refuse(send, 401, exc.message, error_type="authentication_error", code="invalid_api_key")
            return
        handler: ASGIApp | None = getattr(request.app.state, "mcp_http", None)
        if handler is None:  # the lifespan has not started (or has stopped) the session manager
            await _refuse(send, 503, "the MCP server is not running", error_type="server_error", code="unavailable")
            return
        await handler(scope, receive, send)


def mount_mcp(app: FastAPI) -> None:
    """Add the `/mcp` route (any method: POST messages, GET the server's stream, DELETE the session)."""
    app.router.routes.append(Route(MCP_PATH, endpoint=McpEndpoint(), include_in_schema=False))


async def start_mcp(app: FastAPI, stack: AsyncExitStack, runtime: Runtime) -> None:
    """Build the MCP server over what the lifespan started, run its session manager until `stack` closes."""
    server = build_server(backend_of(runtime))
    manager = StreamableHTTPSessionManager(
        app=server,
        # Host and Origin are checked above, against the same lists as /v1; the SDK's own lists would differ.
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    await stack.enter_async_context(manager.run())
    app.state.mcp_http = StreamableHTTPASGIApp(manager)
    stack.callback(setattr, app.state, "mcp_http", None)
