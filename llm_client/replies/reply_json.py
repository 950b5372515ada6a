"""Asking a model for JSON and reading the JSON in its raw reply.

The request's `response_format` names a schema; the reply's JSON may be bare, in a ``` fence, with prose around it,
or with template-doubled braces.

Shared by the crews' outputs and the agent's change contracts and quote call (agent and crews never import each
other).
"""

from __future__ import annotations

import json
import re
from typing import Any

from core.errors import AppError
from llm_client.replies.thinking import THINKING_BLOCK

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\n?(.*?)```", re.DOTALL)
_START = re.compile(r"[\[{]")
# What follows a value that is only a piece of a larger (broken) JSON text: `["a", "b"]},` inside a change.
_INSIDE_JSON = re.compile(r"\s*[,}\]:\"]")
_MAX_SCANNED_STARTS = 200  # a reply full of braces must not cost quadratic time


def schema_response_format(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """Return OpenAI's `response_format` asking for `schema` (llama.cpp, Ollama, LM Studio and vLLM take it too).

    The client drops it where an endpoint refuses it (llm_client.completions.refusals); the reply is validated
    either way.
    """
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


class OutputInvalid(AppError):
    """The model's reply is not valid output: no JSON in it, or JSON of the wrong shape (the repair prompt says why)."""


def extract_json(raw: str) -> object:
    """Return the JSON value in a reply: the whole text, a fenced block, or the first object or array in prose.

    Template-doubled braces (`{{"a": 1}}`, copied from a prompt written for str.format) are read as single ones.
    Raises OutputInvalid with a short reason the repair prompt can quote.
    """
    # Reasoning models write their thinking into the content when the server does not split it: wherever it stands.
    text = THINKING_BLOCK.sub("", raw.lstrip("\ufeff")).strip()
    if not text:
        raise OutputInvalid("the reply is empty")
    failure: json.JSONDecodeError | None = None
    for candidate in (text, text.replace("{{", "{").replace("}}", "}")):
        found, error = _json_in(candidate)
        if found is not _NOTHING:
            return found
        failure = failure or error
    if failure is None:
        raise OutputInvalid("the reply holds no JSON object")
    if text.count("{") > text.count("}") or text.count("[") > text.count("]"):
        raise OutputInvalid("the reply's JSON is incomplete (it stops before its closing brace)")
    where = f"line {failure.lineno}, column {failure.colno}"
    raise OutputInvalid(f"the reply's JSON is not valid: {failure.msg} ({where}); check quotes and commas")


_NOTHING = object()


def _json_in(text: str) -> tuple[object, json.JSONDecodeError | None]:
    """Return the JSON value in `text` (or _NOTHING) and the error of its first JSON-looking part, if any."""
    for candidate in (text, *(block.strip() for block in _FENCE.findall(text))):
        try:
            # strict=False: small models put raw line breaks inside JSON strings (a multi-line markdown value).
            return json.loads(candidate, strict=False), None
        except json.JSONDecodeError:
            continue
    return _first_embedded(text)


def _first_embedded(text: str) -> tuple[object, json.JSONDecodeError | None]:
    """Return the first JSON object, or non-empty array, standing on its own in `text`; else _NOTHING.

    A value that is only a piece of a broken larger one (followed by `,` `}` `]`) does not count: binding a
    fragment would hide what is wrong with the reply. The error returned is that of the first part that failed.
    """
    decoder = json.JSONDecoder(strict=False)
    first_error: json.JSONDecodeError | None = None
    for match in list(_START.finditer(text))[:_MAX_SCANNED_STARTS]:
        try:
            value, end = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError as exc:
            first_error = first_error or exc
            continue
        if _INSIDE_JSON.match(text, end):
            continue
        if isinstance(value, dict) or (isinstance(value, list) and value):
            return value, None
    return _NOTHING, first_error
