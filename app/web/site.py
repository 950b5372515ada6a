"""Mounting the web UI on the app: its pages, its static files, its session keys and templates."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app.web import change_pages, crew_pages, index_pages, login_pages, proposal_pages
from app.web.pages import STATIC, build_templates
from app.web.session import SessionKeys, WebState
from core.settings import ServerSettings


def install_web(app: FastAPI, settings: ServerSettings) -> None:
    """Serve the pages at `/` (left out of the OpenAPI schema) and their CSS and script at `/static/`.

    The pages check their own credentials (bearer or login cookie, see `app.web.session`); the Host check, the body
    limit and the loopback-only rule without API_KEY are the app's, as for `/v1`.
    """
    api_key = settings.api_key.get_secret_value() if settings.api_key is not None else None
    app.state.web = WebState(keys=SessionKeys(api_key), templates=build_templates())
    for pages in (login_pages, index_pages, proposal_pages, change_pages, crew_pages):
        app.include_router(pages.router, include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
