"""`librarian mcp`: MCP over stdin and stdout, for clients that start the server themselves (Claude Desktop & co).

One owner per DATA_DIR: when a `librarian serve` holds it, this process relays to that server's `/mcp` with the
server's local token, and opens nothing on disk. Otherwise it becomes the owner: it runs the service itself on a
loopback port only it and this user's processes know (the URL and a token in `DATA_DIR/owner.lock`), indexes in the
background like `serve`, and relays to it; `librarian search`, `status`, a second `librarian mcp` from another
client then all go through it. Stdout carries nothing but MCP messages: the SDK's stdio transport points fd 1 at
stderr while it serves, so logs, warnings and stray prints from any library land on stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import sys
import time
from collections.abc import AsyncIterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from pydantic import SecretStr
from rich.console import Console
from rich.markup import escape

from app.cli.serving import bind_socket
from app.process.data_dir_vault import describe_data_dir
from app.process.ownership import DataDirOwnership, DataDirTaken, Owner, service_url
from core.errors import AppError
from core.settings import Settings
from rag.notes.vault import check_vault_path

if TYPE_CHECKING:  # the MCP SDK loads only when the command runs, so `librarian --help` stays fast
    from mcp.shared.message import SessionMessage

    from app.mcp.bridge import MessageSink

logger = logging.getLogger(__name__)
err = Console(stderr=True, soft_wrap=True)
# Another CLI command (a long `librarian index`) may hold the DATA_DIR: wait this long for it to finish.
BUSY_WAIT_SECONDS = 60.0
_POLL_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class OwnService:
    """The service this process runs itself, holding the DATA_DIR, on a port bound already."""

    settings: Settings
    ownership: DataDirOwnership
    sock: socket.socket


def mcp_command(
    vault: Annotated[
        str | None,
        typer.Option("--vault", metavar="VAULT", help="Vault folder (default: VAULT_PATH, else ./sample_vault)."),
    ] = None,
) -> None:
    """Serve MCP over stdin/stdout for Claude Desktop, Claude Code, Cursor or VS Code (logs go to stderr)."""
    from app.cli.settings_loading import load_settings

    settings = load_settings(vault)
    try:
        check_vault_path(settings.vault_path)
        asyncio.run(serve_stdio(settings))
    except AppError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(1) from exc


async def serve_stdio(settings: Settings) -> None:
    """Relay MCP on stdio to the service holding the DATA_DIR, starting that service here when none runs."""
    from mcp.server.stdio import stdio_server

    from app.mcp.bridge import PipeLines, relay

    logger.info("librarian mcp: %s", describe_data_dir(settings))
    lines = await PipeLines.open()
    failure: AppError | None = None
    async with stdio_server(stdin=cast(Any, lines)) as (stdin, stdout):
        # stdio_server points fd 1 at stderr while it serves; redirecting sys.stdout as well means nothing a
        # library prints is buffered in Python for the real stdout, to be flushed there when fd 1 is given back.
        with _stray_output_to_stderr():
            try:
                target = await asyncio.to_thread(find_service, settings)
                if isinstance(target, Owner):
                    logger.info("relaying MCP to %s", target.describe())
                    await relay(stdin, stdout, f"{target.url}/mcp", target.token or _api_key(settings))
                else:
                    await _serve_and_relay(target, stdin, stdout)
            except AppError as exc:  # the transport ends normally, after writing its last message
                failure = exc
                await stdout.aclose()
                if lines is not None:
                    lines.stop()
    if failure is not None:
        raise failure


@contextlib.contextmanager
def _stray_output_to_stderr() -> Iterator[None]:
    sys.stdout.flush()
    with contextlib.redirect_stdout(sys.stderr):
        yield


def _api_key(settings: Settings) -> str | None:
    return settings.api_key.get_secret_value() if settings.api_key else None


def find_service(settings: Settings) -> Owner | OwnService:
    """Return the server that holds the DATA_DIR (once it answers), or take the DATA_DIR for a service of our own.

    Raises:
        AppError: the server holding it serves another vault, or another command still holds it after a minute.

    """
    deadline = time.monotonic() + BUSY_WAIT_SECONDS
    said_busy = False
    while True:
        sock = bind_socket("127.0.0.1", 0)  # an ephemeral loopback port, bound before the URL is published
        port = int(sock.getsockname()[1])
        local = settings.model_copy(update={"host": "127.0.0.1", "port": port})
        try:
            ownership = DataDirOwnership.acquire(
                settings.data_dir, "mcp", vault=settings.vault_path, url=service_url(local.server)
            )
        except DataDirTaken as taken:
            sock.close()
            if taken.owner is not None and taken.owner.is_server:
                _wait_until_up(settings, taken.owner)
                return taken.owner
            if time.monotonic() > deadline:
                taken.message += "; wait for it to finish, or run `librarian serve` so commands can share the index"
                raise
            if not said_busy:
                logger.warning("%s; waiting for it to finish", taken.message)
                said_busy = True
            time.sleep(_POLL_SECONDS)
            continue
        # A service nobody configured a key for still answers only this user's processes (the token in owner.lock).
        key = settings.api_key or SecretStr(ownership.owner.token or "")
        return OwnService(local.model_copy(update={"api_key": key}), ownership, sock)


def _wait_until_up(settings: Settings, owner: Owner) -> None:
    """Wait for a server that holds the DATA_DIR but may still be loading; refuse one serving another vault."""
    from app.services.index_access import remote_client

    def waiting() -> None:
        logger.warning("waiting for %s to start…", owner.describe())

    with remote_client(settings, owner, waiting) as client:
        client.request_json("GET", "/health")


async def _serve_and_relay(
    own: OwnService, stdin: AsyncIterable[SessionMessage | Exception], stdout: MessageSink
) -> None:
    """Run the service in this process and relay to it until stdin ends (or a signal stops the service)."""
    import uvicorn

    from app.http.main import create_app
    from app.mcp.bridge import relay

    app = create_app(own.settings, ownership=own.ownership)
    port = own.settings.port
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        workers=1,
        log_config=None,
        lifespan="on",
        timeout_graceful_shutdown=own.settings.server.shutdown_grace_seconds,
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve(sockets=[own.sock]), name="mcp-service")
    try:
        while not server.started:
            if serving.done():
                serving.result()  # raises what stopped it (its reason is in the log)
                raise AppError("the service stopped before it was ready; see the messages above")
            await asyncio.sleep(0.05)
        logger.info("serving the vault %s for MCP on %s", own.settings.vault_path, service_url(own.settings.server))
        token = own.settings.api_key.get_secret_value() if own.settings.api_key else None
        relaying = asyncio.create_task(relay(stdin, stdout, f"{service_url(own.settings.server)}/mcp", token))
        await asyncio.wait({serving, relaying}, return_when=asyncio.FIRST_COMPLETED)
        relaying.cancel()
        await asyncio.gather(relaying, return_exceptions=True)
    finally:
        server.should_exit = True
        await asyncio.gather(serving, return_exceptions=True)
        own.ownership.release()
        own.sock.close()
