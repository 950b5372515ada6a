"""The login form (API_KEY typed once, a session cookie set) and logging out."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from app.http.deps import server_settings_of
from app.web.pages import FormDep, PageRoute, redirect, render, set_session_cookie
from app.web.session import COOKIE, check_same_origin, first, is_api_key, keys_of, read_form

router = APIRouter(route_class=PageRoute)


def safe_next(path: str) -> str:
    """Return where to go after logging in: a path of this service only (never another site's address)."""
    if not path.startswith("/") or path.startswith("//") or "\\" in path or any(ord(c) < 32 for c in path):
        return "/"
    return path


@router.get("/login")
async def login_page(request: Request, next_path: Annotated[str, Query(alias="next")] = "/") -> Response:
    """Show the login form (without API_KEY there is nothing to log in to: go on)."""
    settings = server_settings_of(request)
    if settings.api_key is None:
        return redirect(safe_next(next_path))
    return render(request, None, "login.html", next=safe_next(next_path), error=None)


@router.post("/login")
async def log_in(request: Request) -> Response:
    """Check the key typed; on a match set the session cookie and go on, else show the form again (401)."""
    check_same_origin(request)
    fields = await read_form(request)
    target = safe_next(first(fields, "next", "/"))
    if not is_api_key(request, first(fields, "api_key")):
        return render(request, None, "login.html", status=401, next=target, error="That is not the API key.")
    _session_id, cookie = keys_of(request).new_cookie()
    response = redirect(target)
    set_session_cookie(request, response, cookie)
    return response


@router.post("/logout")
async def log_out(_form: FormDep) -> Response:
    """End the session in this browser (other browsers keep theirs until API_KEY changes); only our pages may."""
    response = redirect("/login")
    response.delete_cookie(COOKIE, path="/")
    return response
