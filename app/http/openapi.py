"""The OpenAPI schema as the API behaves: 400 with OpenAI error bodies (never 422), bearer auth, 409 on undo."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from app.http.openai_responses import ChatCompletion, ChatCompletionChunk, ErrorBody, ModelList

REF = "#/components/schemas/{model}"
BAD_REQUEST = (
    "Invalid request: a body or parameter the API cannot use (a validation error), or a Host header it does not "
    "serve (a guard against DNS rebinding)"
)
UNAUTHORIZED = "Missing or wrong API key: send `Authorization: Bearer <API_KEY>` (the scheme is case-insensitive)"
TOO_LARGE = "The request body is larger than MAX_BODY_BYTES"
UNAVAILABLE = "A backing service (the vault writer, the index, the LLM endpoint) cannot be reached now"

# Before OpenAPI 3.2's itemSchema, the schema of text/event-stream describes one event. Ours carry `data` only:
# a chunk as JSON, an error body when the answer failed mid-stream, then the literal [DONE].
STREAM_EVENT: dict[str, Any] = {
    "type": "object",
    "required": ["data"],
    "properties": {
        "data": {
            "anyOf": [
                {"const": "[DONE]"},
                {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": {
                        "anyOf": [
                            {"$ref": REF.format(model=ChatCompletionChunk.__name__)},
                            {"$ref": REF.format(model=ErrorBody.__name__)},
                        ]
                    },
                },
            ]
        }
    },
}


@dataclass(frozen=True, slots=True)
class OperationDoc:
    """What one operation answers beyond what FastAPI derives from its signature."""

    errors: dict[int, str] = field(default_factory=dict)
    body: type[BaseModel] | None = None  # the 200 JSON body
    streams: bool = False  # also answers text/event-stream (`stream: true`)
    responses: dict[str, dict[str, Any]] = field(default_factory=dict)  # non-error statuses, as written


# A crew run's progress event: `data` is a JSON object with `type`, `run`, and per type `task`, `status`, `tokens`.
CREW_EVENT: dict[str, Any] = {
    "type": "object",
    "required": ["data"],
    "properties": {"event": {"type": "string"}, "data": {"type": "string", "contentMediaType": "application/json"}},
}
NO_CREW = "There is no runnable crew of that name (the message lists the crews, or why it cannot run)"
NO_RUN = "There is no run with that id"
OPERATIONS: dict[tuple[str, str], OperationDoc] = {
    ("post", "/v1/chat/completions"): OperationDoc(
        errors={
            409: "The index was built with another embedding model than the one configured; re-index",
            503: UNAVAILABLE,
        },
        body=ChatCompletion,
        streams=True,
    ),
    ("get", "/v1/models"): OperationDoc(body=ModelList),
    ("get", "/v1/undo"): OperationDoc(errors={503: "The vault is read-only (WRITE_BACKEND=none)"}),
    ("post", "/v1/undo"): OperationDoc(
        errors={
            409: "The change set named is no longer the last one: GET /v1/undo shows the one undo would restore now",
            503: "The vault writer cannot write now (or WRITE_BACKEND=none); nothing was undone",
        }
    ),
    ("post", "/v1/index"): OperationDoc(errors={503: "The run failed (the message says why) or the service stops"}),
    ("post", "/v1/search"): OperationDoc(
        errors={
            404: "No folder of that name, or no note with any of the tags: the message names it",
            409: "The index was built with another embedding model; re-index",
            503: UNAVAILABLE,
        }
    ),
    ("get", "/v1/crews"): OperationDoc(errors={503: "Crews are not available in this service"}),
    ("post", "/v1/crews/{name}/runs"): OperationDoc(
        errors={404: NO_CREW, 409: "A run of this crew is still going", 503: "Crews are not available"}
    ),
    ("post", "/v1/crews/{name}/enable"): OperationDoc(
        errors={400: "The crew has no schedule to enable", 404: NO_CREW, 503: "Crews are not available"}
    ),
    ("post", "/v1/crews/{name}/disable"): OperationDoc(errors={404: NO_CREW, 503: "Crews are not available"}),
    ("get", "/v1/crews/runs"): OperationDoc(errors={503: "Crews are not available in this service"}),
    ("get", "/v1/crews/runs/{run_id}"): OperationDoc(errors={404: NO_RUN, 503: "Crews are not available"}),
    ("get", "/v1/crews/runs/{run_id}/events"): OperationDoc(
        errors={404: NO_RUN, 503: "Crews are not available"},
        responses={
            "200": {
                "description": "The run's progress until it ends: events `task`, `tokens`, `abort_requested`, `run`",
                "content": {"text/event-stream": {"schema": CREW_EVENT}},
            }
        },
    ),
    ("post", "/v1/crews/runs/{run_id}/abort"): OperationDoc(errors={404: NO_RUN, 503: "Crews are not available"}),
    ("get", "/v1/crews/runs/{run_id}/undo"): OperationDoc(
        errors={404: NO_RUN, 503: "The vault is read-only (WRITE_BACKEND=none)"}
    ),
    ("post", "/v1/crews/runs/{run_id}/undo"): OperationDoc(
        errors={
            404: NO_RUN,
            409: "The change set named is not this run's, or the run was undone already",
            503: "The vault writer cannot write now (or WRITE_BACKEND=none); nothing was undone",
        }
    ),
    ("get", "/v1/proposals/{proposal_id}"): OperationDoc(errors={404: "No MCP client made a proposal with that id"}),
    ("post", "/v1/proposals/apply"): OperationDoc(
        errors={
            404: "An id names no pending proposal (applied, discarded, expired, or never made); nothing was applied",
            503: "The vault writer cannot write now (or WRITE_BACKEND=none); nothing was applied",
        }
    ),
    ("get", "/ready"): OperationDoc(
        responses={
            "503": {
                "description": "Not ready: the vector store or the docstore failed its probe (the body has the checks)",
                "content": {"application/json": {"schema": {"type": "object"}}},
            }
        }
    ),
}


def install_openapi(app: FastAPI, *, has_api_key: bool) -> None:
    """Serve the described schema at /openapi.json (built on first request, once every route is included)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            app.openapi_schema = describe_api(schema, has_api_key=has_api_key)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def describe_api(schema: dict[str, Any], *, has_api_key: bool) -> dict[str, Any]:
    """Return `schema` with the error responses, bodies and security the API really has."""
    schemas = schema.setdefault("components", {}).setdefault("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):  # the 422 body FastAPI documents; errors are 400s
        schemas.pop(unused, None)
    schemas.update(_model_schemas())
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            _describe_operation(operation, OPERATIONS.get((method, path), OperationDoc()), has_api_key=has_api_key)
    return schema


def _describe_operation(operation: dict[str, Any], doc: OperationDoc, *, has_api_key: bool) -> None:
    responses: dict[str, Any] = operation.setdefault("responses", {})
    responses.pop("422", None)
    responses["400"] = _error_response(BAD_REQUEST)
    if "requestBody" in operation:
        responses["413"] = _error_response(TOO_LARGE)
    # FastAPI lists the bearer scheme on the routes whose dependencies check it (`require_api_key`).
    if operation.get("security"):
        if has_api_key:
            responses["401"] = _error_response(UNAUTHORIZED)
        else:
            operation["security"] = [*operation["security"], {}]  # no API_KEY (loopback only): anonymous is fine
    for status, description in doc.errors.items():
        responses[str(status)] = _error_response(description)
    responses.update(doc.responses)
    ok = responses.setdefault("200", {"description": "Successful Response"})
    content = ok.setdefault("content", {})
    if doc.body is not None:
        content["application/json"] = {"schema": {"$ref": REF.format(model=doc.body.__name__)}}
    if doc.streams:
        content["text/event-stream"] = {"schema": STREAM_EVENT}


def _error_response(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": REF.format(model=ErrorBody.__name__)}}},
    }


def _model_schemas() -> dict[str, Any]:
    """Return the component schemas of the documented bodies (nested models included)."""
    models: list[type[BaseModel]] = [ErrorBody, ChatCompletion, ChatCompletionChunk, ModelList]
    _, top = models_json_schema([(model, "serialization") for model in models], ref_template=REF)
    definitions: dict[str, Any] = top.get("$defs", {})
    return definitions
