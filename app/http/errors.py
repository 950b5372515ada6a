"""The one place that turns errors into OpenAI-shaped responses; no stack trace ever reaches a client."""

from __future__ import annotations

import logging
import reprlib

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.http.openai_schemas import error_json
from core.errors import (
    AlreadyRunning,
    AppError,
    EditConflict,
    IndexModelMismatch,
    InvalidRequest,
    NotFound,
    RequestTooLarge,
    Unauthorized,
    UpstreamUnavailable,
)

logger = logging.getLogger(__name__)

# (status, OpenAI error type, code) per application error; the first matching class wins.
ERROR_TABLE: tuple[tuple[type[AppError], int, str, str], ...] = (
    (Unauthorized, 401, "authentication_error", "invalid_api_key"),
    (RequestTooLarge, 413, "invalid_request_error", "request_too_large"),
    (InvalidRequest, 400, "invalid_request_error", "invalid_request"),
    (NotFound, 404, "not_found_error", "not_found"),
    (EditConflict, 409, "conflict_error", "edit_conflict"),
    (AlreadyRunning, 409, "conflict_error", "already_running"),
    (IndexModelMismatch, 409, "conflict_error", "index_model_mismatch"),
    (UpstreamUnavailable, 503, "service_unavailable_error", "upstream_unavailable"),
    (AppError, 500, "server_error", "internal_error"),
)


def describe_error(exc: AppError) -> tuple[int, dict[str, object]]:
    """Return the HTTP status and OpenAI error body for an application error."""
    for error_class, status, error_type, code in ERROR_TABLE:
        if isinstance(exc, error_class):
            return status, error_json(exc.message, error_type=error_type, code=code)
    raise TypeError(f"unmapped error {type(exc).__name__}")  # unreachable: AppError is the last row


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers on `app`."""

    @app.exception_handler(AppError)
    async def on_app_error(_request: Request, exc: AppError) -> JSONResponse:
        status, body = describe_error(exc)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse(body, status_code=status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def on_validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"msg": "invalid request", "loc": ()}
        location = [str(part) for part in first.get("loc", ()) if part != "body"]
        content_type = request.headers.get("content-type", "")
        is_json_api = request.url.path.startswith("/v1/")  # the OpenAI-style API; other pages may take forms
        if is_json_api and tuple(first.get("loc", ())) == ("body",) and "json" not in content_type.lower():
            # FastAPI reads a body as JSON only when it says so; "Input should be a valid dictionary" would
            # send the client looking in the wrong place (curl -d sends form-encoded, fetch sends text/plain).
            location = []
            sent = f"Content-Type {reprlib.repr(content_type)}" if content_type else "no Content-Type"
            message = f"send the body as JSON with the header Content-Type: application/json (got {sent})"
        elif first.get("type") == "json_invalid":
            location = []  # its "location" is a character offset, no parameter
            message = "the request body is not valid JSON"
        else:
            message = f"{'.'.join(location) or 'body'}: {first.get('msg', 'invalid value')}"
            if first.get("type") == "literal_error":  # "Input should be 'user' or ...": say what came instead
                message += f", got {reprlib.repr(first.get('input'))}"
        body = error_json(
            message, error_type="invalid_request_error", code="invalid_request", param=".".join(location) or None
        )
        return JSONResponse(body, status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        error_type = "not_found_error" if exc.status_code == 404 else "invalid_request_error"
        body = error_json(str(exc.detail), error_type=error_type, code=str(exc.status_code))
        return JSONResponse(body, status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def on_unexpected(_request: Request, exc: Exception) -> JSONResponse:
        # The HTTP edge is one of the two places allowed to catch everything: log it, never show it.
        logger.exception("unhandled error", exc_info=exc)
        body = error_json("internal error; see the server log", error_type="server_error", code="internal_error")
        return JSONResponse(body, status_code=500)
