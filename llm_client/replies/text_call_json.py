"""The JSON values of a tool call written as text: unwrapped from fences, tags and markers, decoded leniently."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator

# Fence info strings a call is written under; any other (```python, ```dataview) fences code to show.
FENCE_INFOS = {"", "json", "json5", "tool_call", "tool_code", "tool", "function", "javascript", "js"}
_FENCE = re.compile(r"```[ \t]*([^\n`]*)\n(.*?)(?:\n[ \t]*```|\Z)", re.DOTALL)
_TAGGED = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_MISTRAL_ARGS = re.compile(r"\s*([A-Za-z_][\w.-]*)\s*\[ARGS\]")


def decode_call_values(body: str) -> list[object] | None:
    """Return the JSON values the text is made of (after its wrappers), or None when it does not decode."""
    if body.startswith("<|python_tag|>"):
        return decode_call_values(body.removeprefix("<|python_tag|>").strip())
    if body.startswith("[TOOL_CALLS]"):
        rest = body.removeprefix("[TOOL_CALLS]")
        return _mistral_values(rest) if _MISTRAL_ARGS.match(rest) else decode_call_values(rest.strip())
    if body.startswith("<tool_call>"):
        return _values_of_segments(match.group(1) for match in _TAGGED.finditer(body))
    if body.startswith("```"):
        return _fenced_values(body)
    return _decode_sequence(body)


def _fenced_values(body: str) -> list[object] | None:
    segments: list[str] = []
    for match in _FENCE.finditer(body):
        if match.group(1).strip().casefold() not in FENCE_INFOS:
            return None
        segments.append(match.group(2))
    return _values_of_segments(segments) if segments else None


def _values_of_segments(segments: Iterator[str] | list[str]) -> list[object] | None:
    values: list[object] = []
    for segment in segments:
        inner = segment.strip()
        decoded = decode_call_values(inner) if inner.startswith(("<tool_call>", "```")) else _decode_sequence(inner)
        if decoded is None:
            return None
        values.extend(decoded)
    return values or None


def _mistral_values(rest: str) -> list[object] | None:
    """Read `name[ARGS]{...}` calls, one after another (Mistral's newer tokenizers)."""
    values: list[object] = []
    decoder = json.JSONDecoder()
    position = 0
    while (match := _MISTRAL_ARGS.match(rest, position)) is not None:
        try:
            arguments, position = decoder.raw_decode(rest, match.end())
        except json.JSONDecodeError:
            return None
        values.append({"name": match.group(1), "arguments": arguments})
        if rest.startswith("[TOOL_CALLS]", position):
            position += len("[TOOL_CALLS]")
    return values or None


def _decode_sequence(text: str) -> list[object] | None:
    """Decode leading JSON values (whitespace between them, anything after the last one ignored)."""
    for candidate in _brace_variants(text.strip()):
        values = decode_leading_values(candidate)
        if values:
            return values
    literal = _python_literal(text.strip())
    return [literal] if literal is not None else None


def _brace_variants(text: str) -> Iterator[str]:
    yield text
    if text.startswith("{{"):
        closing = text.rfind("}}")
        if closing != -1:
            yield text[1 : closing + 1]  # `{{"name": .., "arguments": {..}}}`: only the outer pair doubled
        yield text.replace("{{", "{").replace("}}", "}")  # every brace doubled, as in a format string


def decode_leading_values(text: str) -> list[object]:
    """Return the JSON objects and arrays `text` starts with, one after another (spaces, commas between them)."""
    decoder = json.JSONDecoder()
    values: list[object] = []
    position = 0
    while position < len(text) and text[position] in "{[":
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            break
        values.append(value)
        while position < len(text) and text[position] in " \t\r\n,;":
            position += 1
    return values


def _python_literal(text: str) -> object | None:
    """Return a dict written in Python's syntax (single quotes, True/None), which some small models produce."""
    if not text.startswith("{") or not text.endswith("}") or len(text) > 100_000:
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
