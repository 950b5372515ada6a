"""Decoding and validating the header-era PATCH request (headers first, then the body)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from tests.obsidian_standin.errors import ApiError
from tests.obsidian_standin.patch_engine import Operation, PatchRequest, Scope, TargetType
from tests.obsidian_standin.vault_files import decode_component

_OPERATIONS = ("append", "prepend", "replace")
_TARGET_TYPES = ("heading", "block", "frontmatter")
_SCOPES = ("content", "marker", "markerAndContent")
_CONTENT_TYPES = ("text/markdown", "application/json")  # compared as exact strings, parameters included


@dataclass(frozen=True, slots=True)
class PatchHeaders:
    """The validated headers of one PATCH."""

    operation: Operation
    target_type: TargetType
    target: str | list[str]
    content_type: str
    create_if_missing: bool
    trim_whitespace: bool
    check_preexisting: bool
    scope: Scope


def _is_true(headers: Mapping[str, str], name: str) -> bool:
    return headers.get(name) == "true"  # only the exact string "true" counts


def _target(headers: Mapping[str, str], target_type: str) -> str | list[str]:
    try:
        target = decode_component(headers.get("target", ""))
    except (ValueError, UnicodeDecodeError) as exc:
        # Upstream lets decodeURIComponent throw here: 3.x hangs, 4.0.3+ answers 500.
        raise ApiError(50000, f"URIError: {exc}") from exc
    if target_type != "heading":
        return target
    return target.split(headers.get("target-delimiter", "::"))


def parse_patch_headers(headers: Mapping[str, str], *, is_v3: bool) -> PatchHeaders:
    """Validate in the plugin's order: 40053, 40054, 40056, 40057, (4.x) 40059, 40012."""
    target_type = headers.get("target-type")
    if target_type is None:
        raise ApiError(40053)
    if target_type not in _TARGET_TYPES:
        raise ApiError(40054)
    operation = headers.get("operation")
    if operation is None:
        raise ApiError(40056)
    if operation not in _OPERATIONS:
        raise ApiError(40057)
    scope = "content" if is_v3 else headers.get("target-scope", "content")
    if scope not in _SCOPES:
        raise ApiError(40059)
    content_type = headers.get("content-type", "")
    if content_type not in _CONTENT_TYPES:
        raise ApiError(40012)
    if is_v3:
        check_preexisting = not _is_true(headers, "apply-if-content-preexists")
    else:
        check_preexisting = _is_true(headers, "reject-if-content-preexists") and operation != "replace"
    return PatchHeaders(
        operation=cast(Operation, operation),
        target_type=cast(TargetType, target_type),
        target=_target(headers, target_type),
        content_type=content_type,
        create_if_missing=_is_true(headers, "create-target-if-missing"),
        trim_whitespace=_is_true(headers, "trim-target-whitespace"),
        check_preexisting=check_preexisting,
        scope=cast(Scope, scope),
    )


def read_patch_body(headers: PatchHeaders, body: bytes) -> PatchRequest:
    """Combine validated headers and the body into an engine instruction (bad JSON is 40015)."""
    is_json = headers.content_type == "application/json"
    content: object
    if is_json:
        try:
            content = json.loads(body)
        except ValueError as exc:
            raise ApiError(40015) from exc
    else:
        content = body.decode("utf-8")
    return PatchRequest(
        operation=headers.operation,
        target_type=headers.target_type,
        target=headers.target,
        content=content,
        is_json=is_json,
        create_if_missing=headers.create_if_missing,
        trim_whitespace=headers.trim_whitespace,
        check_preexisting=headers.check_preexisting,
        scope=headers.scope,
    )
