"""Typed FastAPI dependencies: what routes get from the app state built by the lifespan."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.wiring import Services
from core.ports import Answerer


def get_services(request: Request) -> Services:
    """Return the services built by the lifespan."""
    services: Services = request.app.state.services
    return services


def get_answerer(request: Request) -> Answerer:
    """Return the answerer (agent or retrieval-only)."""
    answerer: Answerer = request.app.state.answerer
    return answerer


ServicesDep = Annotated[Services, Depends(get_services)]
AnswererDep = Annotated[Answerer, Depends(get_answerer)]
