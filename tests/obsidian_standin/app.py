"""The stand-in's HTTP surface: auth, the error envelope, `GET /` and the `/vault/` routes."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from fastapi import FastAPI, Request
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from tests.obsidian_standin.document_map import FrontmatterInvalid
from tests.obsidian_standin.errors import ApiError, Flavor, auth_message
from tests.obsidian_standin.moves import move_file
from tests.obsidian_standin.patch_engine import MergeMismatch, PatchFailed, apply_patch
from tests.obsidian_standin.patch_request import parse_patch_headers, read_patch_body
from tests.obsidian_standin.vault_files import (
    VaultFolder,
    content_disposition,
    content_type_for,
    note_json,
    vault_relative,
)

OPEN_PATHS = ("/", "/obsidian-local-rest-api.crt", "/openapi.yaml")
NOTE_JSON = "application/vnd.olrapi.note+json"
_EXPRESS_TEXT = "text/html; charset=utf-8"  # what Express sets for res.send(string) with no explicit type


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the stand-in received (header names lower-case)."""

    method: str
    path: str  # the raw, still percent-encoded path
    headers: dict[str, str]
    body: bytes


@dataclass(slots=True)
class StandinState:
    """What the routes share: the vault, the key, the emulated version and the request log."""

    folder: VaultFolder
    api_key: str
    flavor: Flavor
    requests: list[RecordedRequest] = field(default_factory=list)

    @property
    def is_v3(self) -> bool:
        """Tell whether 3.x behaviour is emulated."""
        return self.flavor.startswith("3.")


def _json(body: object, status: int = 200, media_type: str = "application/json; charset=utf-8") -> Response:
    return Response(json.dumps(body, indent=2), status_code=status, media_type=media_type)


def _root(request: Request, state: StandinState, *, authenticated: bool) -> Response:
    body: dict[str, object] = {
        "status": "OK",
        "manifest": {
            "id": "obsidian-local-rest-api",
            "name": "Local REST API" if state.is_v3 else "Local REST API with MCP",
            "version": state.flavor,
            "minAppVersion": "0.12.0",
            "description": "Get, change or otherwise interact with your notes in Obsidian via a REST API.",
            "author": "Adam Coddington",
            "authorUrl": "https://coddingtonbear.net/",
            "isDesktopOnly": True,
        },
        "versions": {"obsidian": "1.8.10", "self": state.flavor},
        "service": "Obsidian Local REST API",
        "authenticated": authenticated,
    }
    if authenticated:
        body["certificateInfo"] = {"validityDays": 365.0, "regenerateRecommended": False}
        body["apiExtensions"] = []
    return _json(body)


def _read(state: StandinState, path: str, request: Request) -> Response:
    listing_path = path[:-1] if path.endswith("/") else path
    if state.folder.is_file(listing_path):
        if request.headers.get("accept") == NOTE_JSON:
            return Response(note_json(state.folder, listing_path), media_type=NOTE_JSON)
        data = state.folder.locate(listing_path).read_bytes()
        headers = {"Content-Disposition": content_disposition(listing_path)}
        return Response(data, headers=headers, media_type=content_type_for(listing_path))
    files = state.folder.listing(listing_path)
    if files is None:
        raise ApiError(40400)
    return _json({"files": files})


def _require_file_path(path: str) -> None:
    if not path or path.endswith("/"):
        raise ApiError(40510)


def _put(state: StandinState, path: str, request: Request, body: bytes) -> Response:
    _require_file_path(path)
    content_type = request.headers.get("content-type")
    if content_type is None:
        data = b"{}"
    elif content_type.split(";")[0].strip() == "application/json":
        try:
            data = json.dumps(json.loads(body or b"{}"), separators=(",", ":")).encode()
        except ValueError as exc:
            raise ApiError(40015) from exc
    else:
        data = body
    state.folder.write(path, data)
    return Response(status_code=204)


def _post(state: StandinState, path: str, request: Request, body: bytes) -> Response:
    _require_file_path(path)
    if not request.headers.get("content-type", "").startswith("text/"):
        raise ApiError(40010)
    text = body.decode("utf-8")
    if state.folder.is_file(path):
        existing = state.folder.read_text(path)
        text = existing + ("" if existing.endswith("\n") else "\n") + text
    state.folder.write(path, text.encode("utf-8"))
    return Response(status_code=204)


def _delete(state: StandinState, path: str) -> Response:
    _require_file_path(path)
    if not state.folder.is_file(path):
        raise ApiError(40400)
    state.folder.locate(path).unlink()  # 3.x/4.x delete permanently (adapter.remove)
    return Response(status_code=204)


def _patch(state: StandinState, path: str, request: Request, body: bytes) -> Response:
    _require_file_path(path)
    if state.is_v3 and not state.folder.is_file(path):
        raise ApiError(40400)  # 3.6.2 looks the file up before validating headers
    headers = parse_patch_headers(request.headers, is_v3=state.is_v3)
    if not state.folder.is_file(path):
        raise ApiError(40400)
    patch = read_patch_body(headers, body)
    try:
        patched = apply_patch(state.folder.read_text(path), patch)
    except PatchFailed as exc:
        raise ApiError(40080, exc.reason) from exc
    except FrontmatterInvalid as exc:
        raise (ApiError(50000, str(exc)) if state.is_v3 else ApiError(40005)) from exc
    except MergeMismatch as exc:
        raise (ApiError(50000, str(exc)) if state.is_v3 else ApiError(40080, "content-not-mergeable")) from exc
    state.folder.write(path, patched.encode("utf-8"))
    return Response(patched, media_type=_EXPRESS_TEXT)


async def _vault(request: Request) -> Response:
    state: StandinState = request.app.state.standin
    raw = request.scope.get("raw_path", request.url.path.encode()).decode("latin-1")
    path = vault_relative(raw.split("?", 1)[0].removeprefix("/vault/"))
    body = await request.body()
    method = request.method
    if method in ("GET", "HEAD"):
        response = _read(state, path, request)
        if method == "HEAD":
            response.headers["content-length"] = str(len(response.body))
            response.body = b""
        return response
    if method == "PUT":
        return _put(state, path, request, body)
    if method == "POST":
        return _post(state, path, request, body)
    if method == "DELETE":
        return _delete(state, path)
    if method == "MOVE":
        if state.is_v3:
            raise ApiError(40500)  # MOVE arrived in 4.1.0
        _require_file_path(path)
        return move_file(state.folder, path, request.headers)
    return _patch(state, path, request, body)


def create_standin_app(state: StandinState) -> FastAPI:
    """Build the app over `state`; nothing runs until it is served."""
    app = FastAPI(redirect_slashes=False, openapi_url=None, docs_url=None, redoc_url=None)
    app.state.standin = state

    @app.middleware("http")
    async def authenticate(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        raw = request.scope.get("raw_path", request.url.path.encode()).decode("latin-1")
        headers = {name.lower(): value for name, value in request.headers.items()}
        state.requests.append(RecordedRequest(request.method, raw, headers, await request.body()))
        is_authenticated = request.headers.get("authorization") == f"Bearer {state.api_key}"
        if request.url.path == "/" and request.method in ("GET", "HEAD"):
            return _root(request, state, authenticated=is_authenticated)
        if not is_authenticated and request.url.path not in OPEN_PATHS:
            return ApiError(40101, message=auth_message(state.flavor)).to_response()
        return await call_next(request)

    @app.exception_handler(ApiError)
    async def envelope(request: Request, exc: ApiError) -> Response:
        return exc.to_response()

    @app.exception_handler(StarletteHTTPException)
    async def status_only(request: Request, exc: StarletteHTTPException) -> Response:
        code = exc.status_code * 100
        return ApiError(code, message="Not Found" if exc.status_code == 404 else str(exc.detail)).to_response()

    app.add_api_route(
        "/vault/{rest:path}",
        _vault,
        methods=["GET", "HEAD", "PUT", "POST", "PATCH", "DELETE", "MOVE"],
        response_model=None,
    )
    return app
