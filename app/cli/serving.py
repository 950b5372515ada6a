"""`librarian serve`: refuse what cannot work before any model loads, then run uvicorn on a socket already bound."""

from __future__ import annotations

import socket
from collections.abc import Callable

from app.process.bind_address import check_bind_address
from app.process.data_dir_vault import describe_data_dir
from app.process.ownership import DataDirOwnership, DataDirTaken, Owner, service_url
from core.errors import InvalidRequest
from core.settings import Settings
from rag.notes.vault import check_vault_path


def bind_socket(host: str, port: int) -> socket.socket:
    """Return a socket bound to host:port, or raise InvalidRequest saying the port is taken (before models load)."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: a restart need not wait
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise InvalidRequest(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; is another service using the port? "
            "choose another with --port or PORT"
        ) from exc
    sock.set_inheritable(True)
    return sock


def serve_forever(settings: Settings, *, announce: Callable[[str], None]) -> None:
    """Take DATA_DIR, bind the port, then serve until stopped; each refusal is an AppError naming its cause.

    Every refusal comes before FastAPI, uvicorn and the models load, so a mistyped path or port is said at once.
    """
    check_vault_path(settings.vault_path)
    check_bind_address(settings.server)
    try:
        ownership = DataDirOwnership.acquire(
            settings.data_dir, "serve", vault=settings.vault_path, url=service_url(settings.server)
        )
    except DataDirTaken as taken:
        taken.message += serve_advice(taken.owner)
        raise
    try:
        sock = bind_socket(settings.host, settings.port)
        base = f"http://{settings.host}:{settings.port}"
        announce(f"Vault Librarian on {base}/v1, MCP on {base}/mcp")
        announce(describe_data_dir(settings))
        _run(settings, ownership, sock)
    finally:
        ownership.release()


def serve_advice(owner: Owner | None) -> str:
    """Return what to do when `librarian serve` finds DATA_DIR held, by whom holds it."""
    if owner is not None and owner.command == "mcp":
        return (
            "; it serves this vault to an MCP client that started it. Quit that client (or turn its librarian "
            "MCP server off), start `librarian serve`, then start the client again: its `librarian mcp` relays "
            "to this server from then on. Start `librarian serve` first to use both"
        )
    if owner is not None and owner.is_server:
        return f"; it already serves this vault: use {owner.url}/v1, or stop it first"
    return "; wait for it to finish, then start `librarian serve` again"


def _run(settings: Settings, ownership: DataDirOwnership, sock: socket.socket) -> None:
    import uvicorn

    from app.http.main import create_app
    from app.process.log_redaction import install_log_redaction

    install_log_redaction(settings)
    # One worker: the embedded index is a single-process store, and the lifespan owns the re-indexer.
    # log_config=None: uvicorn's records go through the root handlers, which carry the redaction filter.
    app = create_app(settings, ownership=ownership)
    # A bounded grace: uvicorn would otherwise wait for a request held by a slow model (minutes with
    # LLM_READ_TIMEOUT_SECONDS=900) before it stops, and a second Ctrl+C skips closing the stores.
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        workers=1,
        log_config=None,
        timeout_graceful_shutdown=settings.server.shutdown_grace_seconds,
    )
    uvicorn.Server(config).run(sockets=[sock])
