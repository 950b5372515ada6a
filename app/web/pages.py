"""Rendering the pages: Jinja2 templates and their filters, the security headers, errors shown as pages."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from app.http.deps import runtime_or_none
from app.http.errors import describe_error
from app.services.proposal_access import MCP_CONVERSATION, pending_proposals
from app.web.session import (
    COOKIE,
    SESSION_SECONDS,
    FormRefused,
    LoginRequired,
    WebSession,
    form_session,
    page_session,
    web_state_of,
)
from core.errors import AppError
from edits.messages.entries import has_changed_lines

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"
# No inline script or style anywhere, so the policy can forbid both (an injected <script> would not run); no
# framing, so a page of another site cannot lay an invisible "Apply" button under the user's click.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}

SessionDep = Annotated[WebSession, Depends(page_session)]
FormDep = Annotated[tuple[WebSession, dict[str, list[str]]], Depends(form_session)]


def build_templates() -> Environment:
    """Return the template environment: autoescaped, and an unknown name is an error, not an empty string."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined, trim_blocks=True)
    env.filters["when"] = format_when
    env.filters["diff_lines"] = diff_lines
    env.filters["has_changed_lines"] = has_changed_lines
    env.filters["author"] = describe_author
    return env


def render(
    request: Request, session: WebSession | None, template: str, *, status: int = 200, **context: Any
) -> HTMLResponse:
    """Return a page: the template rendered with the visitor and the navigation counts, and the page headers."""
    env = web_state_of(request).templates
    edits = runtime.edits if (runtime := runtime_or_none(request)) else None
    waiting = len(pending_proposals(edits, datetime.now(UTC))) if edits is not None and session else 0
    html = env.get_template(template).render(session=session, here=request.url.path, waiting=waiting, **context)
    response = HTMLResponse(html, status_code=status, headers=PAGE_HEADERS)
    if session is not None and session.new_cookie is not None:
        set_session_cookie(request, response, session.new_cookie)
    return response


def set_session_cookie(request: Request, response: Response, value: str) -> None:
    """Set the session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site sends it)."""
    response.set_cookie(
        COOKIE,
        value,
        max_age=SESSION_SECONDS,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def redirect(path: str) -> RedirectResponse:
    """Return a See Other to a path of this service (after a form: the browser GETs it)."""
    return RedirectResponse(path, status_code=303, headers={"Cache-Control": "no-store"})


class PageRoute(APIRoute):
    """A page route: errors become a page with the message (or a way to the login form), never JSON."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """Wrap the handler so an application error is shown as a page."""
        handler = super().get_route_handler()

        async def handle(request: Request) -> Response:
            try:
                return await handler(request)
            except LoginRequired as exc:
                return redirect(f"/login?next={quote(exc.next_path, safe='')}")
            except FormRefused as exc:
                return render(request, None, "error.html", status=403, message=exc.message)
            except AppError as exc:
                status, _ = describe_error(exc)
                return render(request, None, "error.html", status=status, message=exc.message)

        return handle


def format_when(value: datetime | str | None) -> str:
    """Return a moment as the server's local date and time to the second ('—' for none)."""
    if value is None or value == "":
        return "—"
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    except ValueError:
        return str(value)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def describe_author(conversation_id: str) -> tuple[str, str | None]:
    """Return who made a change set, in words, and the page that tells more (a crew run's), if any."""
    if conversation_id.startswith("crew:") and conversation_id.count(":") >= 2:
        _prefix, team, run_id = conversation_id.split(":", 2)
        return f"crew {team}", f"/crews/runs/{quote(run_id, safe='')}"
    if conversation_id == MCP_CONVERSATION:
        return "an MCP client (approved by you)", None
    return f"chat ({conversation_id})", None


def diff_lines(diff: str) -> list[tuple[str, str]]:
    """Return the lines of a diff, each with its kind (add, del, hunk, file, ctx) for colouring."""
    lines = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            kind = "file"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        elif line.startswith("@@"):
            kind = "hunk"
        else:
            kind = "ctx"
        lines.append((kind, line))
    return lines
