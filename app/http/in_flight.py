"""Requests in flight at shutdown: answered with a 503 when cut short, and waited for before the stores close.

On SIGTERM or Ctrl+C uvicorn lets running requests finish for SHUTDOWN_GRACE_SECONDS, then cancels them and at
once runs the lifespan's shutdown, without waiting for the cancelled requests to unwind. A chat turn unwinding
still writes its checkpoint, so the lifespan first waits for them here (`settled`), then closes the stores.
"""

from __future__ import annotations

import asyncio
import json
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http.openai_schemas import error_json

logger = logging.getLogger(__name__)
UNWIND_SECONDS = 5.0  # a cancelled request only runs its cleanup (a checkpoint write): this is ample


class InFlight:
    """How many HTTP requests are running (shared by the middleware and the lifespan)."""

    def __init__(self) -> None:
        self.running = 0

    async def settled(self, timeout: float = UNWIND_SECONDS) -> None:
        """Wait until no request runs (at most `timeout` seconds; then say how many still do)."""
        # Polled, not an asyncio.Event: an app object may be served by more than one event loop (tests).
        deadline = asyncio.get_running_loop().time() + timeout
        while self.running and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)
        if self.running:
            logger.warning("closing the stores with %d request(s) still running", self.running)


class TrackRequests:
    """Count the HTTP requests in `in_flight`; answer one cancelled before its response started with a 503."""

    def __init__(self, app: ASGIApp, in_flight: InFlight) -> None:
        self._app = app
        self._in_flight = in_flight

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the request, counted while it runs."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        started = False

        async def send_tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        self._in_flight.running += 1
        try:
            await self._app(scope, receive, send_tracked)
        except asyncio.CancelledError:
            # uvicorn cancels what outlives the grace and stops without awaiting it: ending the request is what the
            # cancel asks for. A client still waiting is told why. A response under way is left unfinished (uvicorn
            # closes the connection): ended cleanly, a cut stream or body would read as whole.
            if not started:
                await _send_shutting_down(send)
        finally:
            self._in_flight.running -= 1


async def _send_shutting_down(send: Send) -> None:
    body = json.dumps(
        error_json(
            "the service is shutting down; ask again when it is back",
            error_type="service_unavailable_error",
            code="shutting_down",
        )
    ).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    try:
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})
    except OSError:  # the client is gone as well
        logger.debug("could not tell a client the service is shutting down", exc_info=True)
