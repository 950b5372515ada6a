"""The stdio transport as a bridge: JSON-RPC lines from stdin go to a service's `/mcp`, its messages to stdout.

`librarian mcp` always talks to a `librarian serve` (one already holding the DATA_DIR, or one it starts itself on
a loopback port), so the embedded index is opened by one process only and every MCP session meets the same server,
tools and confirmations. Messages pass through unchanged, in both directions: requests, the client's answers to the
server's elicitations (handshake-era sessions), notifications. The SDK's transports do the framing on each side;
the bridge only sets the HTTP headers a message's own session would have stamped (the protocol version, and on
2026-07-28 the method and name), which a raw message from stdin does not carry.

When the service stops answering (someone stopped `librarian serve`), every request still waiting gets a JSON-RPC
error and the process ends, so the client says the server went away instead of waiting forever.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any, Protocol

import anyio
import httpx2
import mcp_types as types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    NAME_BEARING_METHODS,
    encode_header_value,
)
from mcp.shared.message import ClientMessageMetadata, SessionMessage

from core.errors import UpstreamUnavailable

logger = logging.getLogger(__name__)
# A tool call may wait for the user to answer a confirmation for as long as they take.
UPSTREAM_TIMEOUT = httpx2.Timeout(30.0, read=None)
MAX_LINE_BYTES = 64 * 1024 * 1024


class MessageSink(Protocol):
    """Where messages go (the SDK's memory streams)."""

    async def send(self, item: SessionMessage, /) -> None:
        """Send one message."""
        ...

    async def aclose(self) -> None:
        """Close the stream (stdio's writer then ends, and the transport can exit)."""
        ...


class PipeLines:
    """Stdin's lines, read without a thread, so that the bridge can end while the client still holds stdin open.

    The SDK reads stdin in a worker thread, which nothing can interrupt: a bridge whose service went away would
    wait for the client's next line before it could end.
    """

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    @classmethod
    async def open(cls, fd: int = 0) -> PipeLines | None:
        """Return the lines of `fd` (a pipe, a socket or a terminal); None for a regular file, read as usual."""
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
        pipe = os.fdopen(os.dup(fd), "rb", buffering=0)
        await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
        return cls(reader)

    def __aiter__(self) -> AsyncIterator[str]:
        """Iterate over the lines as text (bytes that are not UTF-8 replaced, as the SDK's reader does)."""
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while line := await self._reader.readline():
            yield line.decode("utf-8", errors="replace")

    def stop(self) -> None:
        """End the lines now, as if stdin had ended."""
        self._reader.feed_eof()


class HeaderStamp:
    """The headers each message from stdin gets, as the client's own session would have set them."""

    def __init__(self) -> None:
        self._initialize_id: types.RequestId | None = None
        self._handshake_version: str | None = None

    def headers(self, message: types.JSONRPCMessage) -> dict[str, str] | None:
        """Return the routing headers for a message going upstream (None: the transport's own suffice)."""
        if isinstance(message, types.JSONRPCRequest) and message.method == "initialize":
            self._initialize_id = message.id
            return None
        if not isinstance(message, types.JSONRPCRequest | types.JSONRPCNotification):
            return None  # answers to the server's requests: the transport adds the negotiated version itself
        params: dict[str, Any] = message.params or {}
        meta = params.get("_meta")
        version = meta.get(types.PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None
        if not isinstance(version, str):  # a handshake-era message: the version the handshake agreed on
            return {MCP_PROTOCOL_VERSION_HEADER: self._handshake_version} if self._handshake_version else None
        headers = {MCP_PROTOCOL_VERSION_HEADER: version, MCP_METHOD_HEADER: message.method}
        name_key = NAME_BEARING_METHODS.get(message.method)
        name = params.get(name_key) if name_key is not None else None
        if isinstance(name, str):
            headers[MCP_NAME_HEADER] = encode_header_value(name)
        return headers

    def observe(self, message: types.JSONRPCMessage) -> None:
        """Note the protocol version the server agreed to in its answer to `initialize`."""
        if isinstance(message, types.JSONRPCResponse) and message.id == self._initialize_id:
            version = message.result.get("protocolVersion")
            self._handshake_version = version if isinstance(version, str) else None


class Relay:
    """One client's session relayed to one service: the headers to stamp and the requests still unanswered."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.stamp = HeaderStamp()
        self.waiting: set[types.RequestId] = set()

    async def up(self, source: AsyncIterable[SessionMessage | Exception], sink: MessageSink) -> None:
        """Forward the client's messages until stdin ends."""
        async for item in source:
            if isinstance(item, Exception):  # a line that is not JSON-RPC: nothing to forward
                logger.warning("ignored a line on stdin that is not a JSON-RPC message: %s", item)
                continue
            if isinstance(item.message, types.JSONRPCRequest):
                self.waiting.add(item.message.id)
            metadata = ClientMessageMetadata(headers=self.stamp.headers(item.message))
            await sink.send(SessionMessage(item.message, metadata=metadata))

    async def down(self, source: AsyncIterable[SessionMessage | Exception], sink: MessageSink) -> None:
        """Forward the service's messages until its stream closes."""
        async for item in source:
            if isinstance(item, Exception):
                logger.warning("the service sent something that is not an MCP message: %s", item)
                continue
            if isinstance(item.message, types.JSONRPCResponse | types.JSONRPCError):
                self.waiting.discard(item.message.id)
            self.stamp.observe(item.message)
            await sink.send(SessionMessage(item.message))

    async def fail_waiting(self, sink: MessageSink) -> None:
        """Answer every request still waiting with an error saying the service went away."""
        message = f"the Vault Librarian service at {self.url} stopped answering; restart this MCP server"
        for request_id in sorted(self.waiting, key=str):
            error = types.ErrorData(code=types.INTERNAL_ERROR, message=message)
            await sink.send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)))
        self.waiting.clear()


async def relay(
    stdin: AsyncIterable[SessionMessage | Exception], stdout: MessageSink, url: str, token: str | None
) -> None:
    """Relay stdin's messages to the MCP endpoint at `url`, and its messages to stdout, until stdin ends.

    Raises:
        UpstreamUnavailable: the service stopped answering (it was stopped, or it failed); requests still waiting
            were answered with an error first.

    """
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    session = Relay(url)
    upstream_gone = False
    try:
        async with (
            httpx2.AsyncClient(headers=headers, timeout=UPSTREAM_TIMEOUT) as http,
            streamable_http_client(url, http_client=http) as (upstream_in, upstream_out),
            anyio.create_task_group() as tasks,
        ):

            async def downstream() -> None:
                nonlocal upstream_gone
                await session.down(upstream_in, stdout)
                upstream_gone = True  # the transport closes its stream once it cannot reach the service
                tasks.cancel_scope.cancel()

            tasks.start_soon(downstream)
            await session.up(stdin, upstream_out)
            tasks.cancel_scope.cancel()
    except* (httpx2.HTTPError, anyio.BrokenResourceError, anyio.ClosedResourceError) as failed:
        logger.error("the service at %s stopped answering: %s", url, failed.exceptions[0])
        upstream_gone = True
    if upstream_gone:
        await session.fail_waiting(stdout)
    await stdout.aclose()
    if upstream_gone:
        raise UpstreamUnavailable("the service", f"{url} stopped answering; the MCP client must start the server again")
