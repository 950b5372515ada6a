"""Typed access to what the app holds: its settings (from creation) and its Runtime (built by the lifespan)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.requests import HTTPConnection

from app.http.runtime import Runtime
from app.wiring import Services
from core.errors import UpstreamUnavailable
from core.ports import Answerer
from core.settings import ServerSettings, Settings


def settings_of(connection: HTTPConnection) -> Settings:
    """Return the settings the app was created with (there before the lifespan runs)."""
    settings: Settings = connection.app.state.settings
    return settings


def server_settings_of(connection: HTTPConnection) -> ServerSettings:
    """Return the server part of the settings: bind address, keys, allowed origins."""
    return settings_of(connection).server


def runtime_or_none(connection: HTTPConnection) -> Runtime | None:
    """Return the running services, or None before the lifespan started them or after it stopped them."""
    runtime: Runtime | None = getattr(connection.app.state, "runtime", None)
    return runtime


def runtime_of(connection: HTTPConnection) -> Runtime:
    """Return the running services; raise UpstreamUnavailable (503) when the lifespan has not started them."""
    runtime = runtime_or_none(connection)
    if runtime is None:
        raise UpstreamUnavailable("the service", "it is starting or stopping")
    return runtime


def get_services(request: Request) -> Services:
    """Return the stores, retriever and reindexer."""
    return runtime_of(request).services


def get_answerer(request: Request) -> Answerer:
    """Return the answerer (agent or retrieval-only)."""
    return runtime_of(request).answerer


RuntimeDep = Annotated[Runtime, Depends(runtime_of)]
ServicesDep = Annotated[Services, Depends(get_services)]
AnswererDep = Annotated[Answerer, Depends(get_answerer)]
