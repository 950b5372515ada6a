"""Stage 1 of a crew's checks: the versioned output schemas, the contract the model reads, and binding its reply.

Each output family has one built-in schema version (frontmatter.set = triage-v1, section.write = briefing-v1).
`output_schema` is the tight form sent as `response_format`: paths are an enum of the collected notes, keys are
limited to allowed_keys, values to those the folder already uses. `bind` checks a reply against the loose shape
of the family only (a reply of the wrong shape is OutputInvalid and gets one repair), then binds every path, key
and value to the material: whatever the model invented has nothing to bind to and becomes a Rejection.

How the servers take structured output (their docs and sources; llama.cpp also tried against a llama-server):
- llama.cpp: `response_format: {"type": "json_schema", "json_schema": {"schema": ...}}` (also `{"type":
  "json_object", "schema": ...}`, or a `json_schema` field) becomes a grammar, so decoding cannot leave the
  schema. Builds before json_schema support answer 400 `response_format type must be one of "text" or
  "json_object"`.
- Ollama's /v1 endpoint maps the same json_schema `response_format` to its native `format` (a schema) since 0.5;
  older versions ignore it without an error.
- LM Studio: the same `response_format` on /v1/chat/completions (llama.cpp grammars for GGUF, Outlines for MLX).
- vLLM: the same `response_format` (xgrammar or guidance); its own `guided_json` field was removed in 0.12 (now
  `structured_outputs`), so `response_format` is the one request that works on every version.
So every endpoint gets the same OpenAI-shaped request; llm_client drops it (once, then for that endpoint) where it
is refused, and the reply is validated here whether the server honoured it or not.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema

from crews.contract.placeholders import PATH, VALUE, section_example
from crews.contract.section_binding import bind_section
from crews.contract.triage_binding import (
    ALLOWED_VALUES_SHOWN,
    MAX_LIST_ITEMS,
    MAX_REASON_CHARS,
    MAX_TEXT_VALUE_CHARS,
    bind_changes,
    key_kinds,
    known_values,
    paths_of,
)
from crews.definitions import OutputSpec
from crews.model import BoundOutput, Material, OutputFamilyName
from llm_client.replies.reply_json import OutputInvalid, extract_json, schema_response_format

__all__ = [
    "SCHEMA_VERSIONS",
    "OutputInvalid",
    "bind",
    "extract_json",
    "output_contract",
    "output_schema",
    "response_format",
]

SCHEMA_VERSIONS: dict[OutputFamilyName, str] = {"frontmatter.set": "triage-v1", "section.write": "briefing-v1"}
_MAX_ERROR_CHARS = 240

# The loose shapes a reply is validated against before binding: structure only, no enums (those bind later).
_FRONTMATTER_SHAPE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "changes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "set": {"type": "object"}, "reason": {"type": "string"}},
                "required": ["path", "set"],
            },
        }
    },
    "required": ["changes"],
}
_SECTION_SHAPE: dict[str, Any] = {
    "type": "object",
    "properties": {"markdown": {"type": "string"}},
    "required": ["markdown"],
}


def output_schema(spec: OutputSpec, material: Material, *, paths: Collection[str] | None = None) -> dict[str, Any]:
    """Return the tight JSON schema of `spec`'s family for this material (what `response_format` asks for).

    Args:
        spec: the llm task's output block.
        material: what was collected (its paths and folder values bind the output).
        paths: the paths the model was shown (the material cut to fit its context); default all.

    """
    return _FAMILIES[spec.family].schema(_target(spec, material, paths))


def response_format(spec: OutputSpec, material: Material, *, paths: Collection[str] | None = None) -> dict[str, Any]:
    """Return OpenAI's `response_format` asking for `output_schema` (llama.cpp, Ollama, LM Studio and vLLM take it)."""
    schema = output_schema(spec, material, paths=paths)
    return schema_response_format(SCHEMA_VERSIONS[spec.family], schema)


def output_contract(spec: OutputSpec, material: Material, *, paths: Collection[str] | None = None) -> str:
    """Return the few prompt lines that tell the model the reply's shape and what it may use."""
    return _FAMILIES[spec.family].contract(_target(spec, material, paths))


def bind(data: object, spec: OutputSpec, material: Material, *, paths: Collection[str] | None = None) -> BoundOutput:
    """Return the reply `data` (parsed JSON) validated and bound to the material.

    Raises OutputInvalid when `data` does not have the family's shape at all (or, for section.write, is empty or
    longer than max_chars); each invented path, key or value is a Rejection in the result instead.
    """
    family = _FAMILIES[spec.family]
    normalized = family.normalize(data)
    errors = sorted(jsonschema.Draft202012Validator(family.shape).iter_errors(normalized), key=_error_depth)
    if errors:
        raise OutputInvalid(_describe(errors[0]))
    return family.bind(normalized, _target(spec, material, paths))


@dataclass(frozen=True, slots=True)
class _Target:
    """What an output is for: the task's output block, the material, and the paths the model was shown."""

    spec: OutputSpec
    material: Material
    shown: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Family:
    shape: dict[str, Any]
    normalize: Callable[[object], object]
    schema: Callable[[_Target], dict[str, Any]]
    contract: Callable[[_Target], str]
    bind: Callable[[Any, _Target], BoundOutput]


def _target(spec: OutputSpec, material: Material, paths: Collection[str] | None) -> _Target:
    return _Target(spec, material, paths_of(material, None if paths is None else set(paths)))


def _error_depth(error: jsonschema.ValidationError) -> tuple[int, str]:
    # The shallowest error says most ("changes is required" rather than a detail deep inside it).
    return (len(error.absolute_path), str(list(error.absolute_path)))


def _describe(error: jsonschema.ValidationError) -> str:
    where = "/".join(str(part) for part in error.absolute_path) or "the reply"
    message = error.message if len(error.message) <= _MAX_ERROR_CHARS else error.message[:_MAX_ERROR_CHARS] + "…"
    return f"{where}: {message}"


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _frontmatter_normalize(data: object) -> object:
    """Accept the shapes small models drift into: a bare list of changes, one change, flat `{path, key: value}`."""
    data = _unwrapped(data)
    if isinstance(data, list):
        data = {"changes": data}
    elif isinstance(data, Mapping) and "changes" not in data and "path" in data:
        data = {"changes": [data]}
    if not isinstance(data, Mapping) or not isinstance(data.get("changes"), list):
        return data
    return {**data, "changes": [_flat_to_set(change) for change in data["changes"]]}


def _flat_to_set(change: object) -> object:
    if not isinstance(change, Mapping) or "set" in change or "path" not in change:
        return change
    values = {key: value for key, value in change.items() if key not in ("path", "reason")}
    return {"path": change["path"], "set": values, **({"reason": change["reason"]} if "reason" in change else {})}


def _frontmatter_schema(target: _Target) -> dict[str, Any]:
    keys = target.spec.allowed_keys
    kinds = key_kinds(keys, target.material)
    values = {key: _value_schema(kinds[key], sorted(known_values(key, target.material))) for key in keys}
    change = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "enum": list(target.shown)},
            "set": {"type": "object", "properties": values, "additionalProperties": False, "minProperties": 1},
            "reason": {"type": "string", "maxLength": MAX_REASON_CHARS},
        },
        "required": ["path", "set"],
        "additionalProperties": False,
    }
    changes: dict[str, Any] = {"type": "array", "items": change, "maxItems": len(target.shown)}
    if not target.shown:
        changes = {"type": "array", "maxItems": 0}
    return _object({"changes": changes})


def _value_schema(kind: str, values: list[str]) -> dict[str, Any]:
    text: dict[str, Any] = {"type": "string", "enum": values}
    if not values:
        text = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_VALUE_CHARS}
    if kind == "list":
        return {"type": "array", "items": text, "minItems": 1, "maxItems": MAX_LIST_ITEMS}
    return text


def _frontmatter_contract(target: _Target) -> str:
    keys = target.spec.allowed_keys
    kinds = key_kinds(keys, target.material)
    example = ", ".join(f'"{key}": ' + (f'["{VALUE}"]' if kinds[key] == "list" else f'"{VALUE}"') for key in keys)
    lines = [
        "Reply with one JSON object only, in this shape:",
        f'{{"changes": [{{"path": "{PATH}", "set": {{{example}}}}}]}}',
        f"Set only these keys: {', '.join(keys)}. Leave out keys and notes you are unsure of.",
    ]
    allowed = []
    for key in keys:
        values = sorted(known_values(key, target.material))
        if values:
            more = ", …" if len(values) > ALLOWED_VALUES_SHOWN else ""
            allowed.append(f"{key}: {', '.join(values[:ALLOWED_VALUES_SHOWN])}{more}")
    if allowed:
        lines.append("Allowed values: " + "; ".join(allowed) + ".")
    free = [key for key in keys if not known_values(key, target.material)]
    if free:  # what binding checks (crews.contract.triage_binding): no copied paragraphs, no task lines
        lines.append(f"Values of {', '.join(free)}: one line of text each, at most {MAX_TEXT_VALUE_CHARS} characters.")
    lines.append("Use only paths from the material.")
    return "\n".join(lines)


def _frontmatter_bind(data: Any, target: _Target) -> BoundOutput:
    allowed = target.spec.allowed_keys
    changes, rejected = bind_changes(data["changes"], allowed, target.material, target.shown)
    return BoundOutput(family="frontmatter.set", changes=changes, rejected=rejected)


def _unwrapped(data: object) -> object:
    """Return the object a model wrapped in a one-item list (`[{"changes": [...]}]`), else `data`."""
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], Mapping):
        item = data[0]
        if "changes" in item or "markdown" in item:
            return item
    return data


def _section_normalize(data: object) -> object:
    data = _unwrapped(data)
    if isinstance(data, str):
        return {"markdown": data}
    if isinstance(data, Mapping) and "markdown" not in data:
        texts = [value for value in data.values() if isinstance(value, str)]
        if len(data) == 1 and len(texts) == 1:  # {"briefing": "..."}: the one text is the section
            return {"markdown": texts[0]}
    return data


def _section_schema(target: _Target) -> dict[str, Any]:
    return _object({"markdown": {"type": "string", "minLength": 1, "maxLength": target.spec.max_chars}})


def _section_contract(target: _Target) -> str:
    example = section_example(target.spec.max_chars)
    return f'Reply with one JSON object only, in this shape:\n{{"markdown": "{example}"}}'


def _section_bind(data: Any, target: _Target) -> BoundOutput:
    markdown = bind_section(str(data["markdown"]), limit=target.spec.max_chars, material=target.material)
    return BoundOutput(family="section.write", markdown=markdown)


_FAMILIES: dict[OutputFamilyName, _Family] = {
    "frontmatter.set": _Family(
        _FRONTMATTER_SHAPE, _frontmatter_normalize, _frontmatter_schema, _frontmatter_contract, _frontmatter_bind
    ),
    "section.write": _Family(_SECTION_SHAPE, _section_normalize, _section_schema, _section_contract, _section_bind),
}
