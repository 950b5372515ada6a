"""Who may see the pages and send their forms: bearer or login cookie, CSRF tokens, same-origin POSTs.

The pages take the API's credentials: `Authorization: Bearer <API_KEY>` (or the CLI's local token), or a session
cookie that the login form sets once API_KEY was typed. Without API_KEY (loopback only, `check_bind_address`)
every visitor gets a session at once, for the CSRF token its forms carry.

A form is accepted only when three guards agree: its Origin (or Sec-Fetch-Site) says the same site sent it, the
session cookie is HttpOnly and SameSite=Strict (a cross-site request carries none), and it carries the CSRF token
derived from that session. A POST with a valid bearer needs no token: browsers never attach one by themselves.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from fastapi import Request
from fastapi.security import HTTPAuthorizationCredentials
from jinja2 import Environment

from app.http.deps import server_settings_of
from app.http.security import BEARER_AUTH, require_api_key
from core.errors import AppError, Unauthorized

COOKIE = "librarian_session"
SESSION_SECONDS = 30 * 24 * 3600  # a login lasts a month; changing API_KEY ends every session at once
BEARER_SESSION = "bearer"
MAX_FORM_FIELDS = 2_000


class LoginRequired(AppError):
    """The page needs API_KEY: the visitor is sent to the login form, and back afterwards."""

    def __init__(self, next_path: str) -> None:
        super().__init__("log in with API_KEY to see this page")
        self.next_path = next_path


class FormRefused(AppError):
    """A form came from another site, without a session, or with a stale CSRF token: nothing was done."""


@dataclass(frozen=True, slots=True)
class WebSession:
    """The visitor of a page: their session id, the CSRF token for its forms, and a cookie to set if new."""

    id: str
    csrf: str
    new_cookie: str | None = None  # set on the response: a first visit without API_KEY
    can_log_out: bool = False  # a login cookie under API_KEY (not a bearer, not the open loopback session)


class SessionKeys:
    """Sign session cookies and derive CSRF tokens.

    With API_KEY the signing key comes from it, so sessions survive a restart and end when the key changes;
    without one (loopback only) it is drawn per process, and a restart only means a fresh session.
    """

    def __init__(self, api_key: str | None) -> None:
        self._key = (
            hmac.new(api_key.encode(), b"librarian web session", hashlib.sha256).digest()
            if api_key
            else secrets.token_bytes(32)
        )

    def new_cookie(self, now: float | None = None) -> tuple[str, str]:
        """Return a new session id and the signed cookie value that carries it."""
        session_id = secrets.token_urlsafe(18)
        issued = str(int(now if now is not None else time.time()))
        return session_id, f"{session_id}.{issued}.{self._sign(f'{session_id}.{issued}')}"

    def read_cookie(self, value: str | None, now: float | None = None) -> str | None:
        """Return the session id of a valid, unexpired cookie, else None."""
        parts = (value or "").split(".")
        if len(parts) != 3 or not parts[1].isdigit():
            return None
        session_id, issued, signature = parts
        if not hmac.compare_digest(signature, self._sign(f"{session_id}.{issued}")):
            return None
        age = (now if now is not None else time.time()) - int(issued)
        return session_id if 0 <= age <= SESSION_SECONDS else None

    def csrf(self, session_id: str) -> str:
        """Return the CSRF token of a session (what its forms carry)."""
        return self._sign(f"csrf:{session_id}")

    def _sign(self, text: str) -> str:
        return hmac.new(self._key, text.encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True, slots=True)
class WebState:
    """What `install_web` made for the pages, kept on `app.state.web`: the session keys and the page templates."""

    keys: SessionKeys
    templates: Environment


def web_state_of(request: Request) -> WebState:
    """Return the web UI's state (made by `install_web` when the app was created)."""
    state: WebState = request.app.state.web
    return state


def keys_of(request: Request) -> SessionKeys:
    """Return the app's session keys (made by `install_web`)."""
    return web_state_of(request).keys


async def page_session(request: Request) -> WebSession:
    """Return the visitor of a page, or raise LoginRequired (API_KEY set, and no bearer or login cookie)."""
    keys = keys_of(request)
    if await _has_bearer(request):
        return WebSession(BEARER_SESSION, keys.csrf(BEARER_SESSION))
    session_id = keys.read_cookie(request.cookies.get(COOKIE))
    settings = server_settings_of(request)
    if session_id is not None:
        return WebSession(session_id, keys.csrf(session_id), can_log_out=settings.api_key is not None)
    if settings.api_key is not None:
        raise LoginRequired(_comeback(request))
    session_id, cookie = keys.new_cookie()
    return WebSession(session_id, keys.csrf(session_id), new_cookie=cookie)


async def form_session(request: Request) -> tuple[WebSession, dict[str, list[str]]]:
    """Return the visitor and the fields of a form POST that passed the origin, session and CSRF checks."""
    check_same_origin(request)
    fields = await read_form(request)
    session = await page_session(request)
    if session.new_cookie is not None:  # no session yet, so no page of ours was loaded before this form
        raise FormRefused("this form was not sent from a page of this service; reload the page and try again")
    if session.id != BEARER_SESSION and not hmac.compare_digest(first(fields, "csrf"), session.csrf):
        raise FormRefused("this page is out of date (its form token does not match your session); reload it")
    return session, fields


def check_same_origin(request: Request) -> None:
    """Refuse a form sent by a page of another site (Origin, else Sec-Fetch-Site, names it)."""
    origin = request.headers.get("origin")
    host = request.headers.get("host", "").lower()
    if origin is not None:
        # The host is compared, not the scheme: behind a TLS proxy the service sees http while the page is https.
        if origin == "null" or urlsplit(origin).netloc.lower() != host:
            raise FormRefused(f"a form from {origin[:100]!r} may not act on this service")
        return
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        raise FormRefused("a form from another site may not act on this service")


async def read_form(request: Request) -> dict[str, list[str]]:
    """Return the fields of an url-encoded form body (each name with all its values, in order)."""
    body = (await request.body()).decode("utf-8", errors="replace")
    try:
        pairs = parse_qsl(body, keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS)
    except ValueError as exc:  # more fields than any of our forms has
        raise FormRefused(f"the form has more than {MAX_FORM_FIELDS} fields") from exc
    fields: dict[str, list[str]] = {}
    for name, value in pairs:
        fields.setdefault(name, []).append(value)
    return fields


def first(fields: dict[str, list[str]], name: str, default: str = "") -> str:
    """Return the first value of a form field, or `default`."""
    values = fields.get(name)
    return values[0] if values else default


def is_api_key(request: Request, given: str) -> bool:
    """Return True when `given` is API_KEY (constant-time comparison)."""
    settings = server_settings_of(request)
    if settings.api_key is None:
        return False
    return hmac.compare_digest(given.encode(), settings.api_key.get_secret_value().encode())


def _comeback(request: Request) -> str:
    """Return the page to show after logging in: this one, or for a form the page it was sent from."""
    if request.method == "GET":
        return request.url.path + (f"?{request.url.query}" if request.url.query else "")
    referer = urlsplit(request.headers.get("referer", ""))
    same_host = referer.netloc.lower() == request.headers.get("host", "").lower()
    return (referer.path or "/") if same_host else "/"  # a form's own address cannot be loaded with GET


async def _has_bearer(request: Request) -> bool:
    settings = server_settings_of(request)
    if settings.api_key is None or "authorization" not in request.headers:
        return False  # without API_KEY a header proves nothing: the CSRF token is what counts then
    credentials: HTTPAuthorizationCredentials | None = await BEARER_AUTH(request)
    try:
        require_api_key(request, credentials)
    except Unauthorized:
        return False
    return True
