"""Calls a small model gets wrong, and what it is told about them: nothing is run that was not offered.

Recorded with Qwen2.5-Coder 0.5B through the service (tests/fixtures/small_model_replies): it names a command
as if it were a tool ("add_tag", "set_property": commands of edit_note), sends a command to the wrong tool, copies
the schema's "required" list into its arguments, and sends a call that failed again, round after round.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace

from agent.state import MessageRecord
from core.chat import ToolCall, ToolSpec

REPEATED_CALL = (
    "Error: you made this exact call before in this turn; change its arguments, call another tool or answer."
)
SCHEMA_WORDS = frozenset({"required", "properties", "additionalProperties", "$schema"})


def without_schema_words(call: ToolCall, tools: Sequence[ToolSpec]) -> ToolCall:
    """Return `call` without JSON-schema words in its arguments that are no parameter of its tool.

    Small models copy the schema into the call: `"required": ["command", "tag"]` beside the real arguments
    (recorded with Qwen2.5 0.5B, round after round); the tool would refuse the call for it every time.
    """
    tool = next((tool for tool in tools if tool.name == call.name), None)
    properties = tool.parameters.get("properties") if tool is not None else None
    try:
        arguments = json.loads(call.arguments) if tool is not None and call.arguments.strip() else None
    except json.JSONDecodeError:
        return call
    if not isinstance(arguments, dict) or not isinstance(properties, Mapping):
        return call
    echoed = {key for key in arguments if key in SCHEMA_WORDS and key not in properties}
    if not echoed:
        return call
    kept = {key: value for key, value in arguments.items() if key not in echoed}
    return replace(call, arguments=json.dumps(kept, ensure_ascii=False))


def unoffered_call_error(call: ToolCall, offered: Sequence[ToolSpec]) -> str:
    """Return the error a call of a tool that was not offered gets back (it is never run).

    Small models often name a command as if it were a tool ("add_tag", "add_task": commands of edit_note,
    recorded with Qwen2.5 0.5B); the error then says which tool takes it.
    """
    names = ", ".join(sorted(tool.name for tool in offered))
    owner = next(((tool.name, key) for tool in offered for key in _enum_keys(tool, call.name)), None)
    if owner is None:
        return f"Error: there is no tool '{call.name}'; the tools are: {names}"
    tool, key = owner
    return f'Error: there is no tool \'{call.name}\'; it is a {key} of {tool}: call {tool} with "{key}": "{call.name}".'


def other_tool_hint(call: ToolCall, offered: Sequence[ToolSpec]) -> str:
    """Return a hint for a failed call whose argument is a command of another tool ("" when there is none).

    Qwen2.5 0.5B asked to add a tag calls `tags` with "command": "add_tag", edit_note's command (recorded).
    """
    try:
        arguments = json.loads(call.arguments) if call.arguments.strip() else {}
    except json.JSONDecodeError:
        return ""
    values = [value for value in arguments.values() if isinstance(value, str)] if isinstance(arguments, dict) else []
    for value in values:
        for tool in offered:
            if tool.name != call.name and (keys := _enum_keys(tool, value)):
                return f' \'{value}\' is a {keys[0]} of {tool.name}: call {tool.name} with "{keys[0]}": "{value}".'
    return ""


def _enum_keys(tool: ToolSpec, value: str) -> list[str]:
    properties = tool.parameters.get("properties")
    if not isinstance(properties, Mapping):
        return []
    return [
        key
        for key, schema in properties.items()
        if isinstance(schema, Mapping) and isinstance(schema.get("enum"), list) and value in schema["enum"]
    ]


def earlier_failure(records: Sequence[MessageRecord], call: ToolCall) -> str | None:
    """Return the error this exact call (name and arguments) got earlier in this turn, or None.

    Small models answer a tool's error by sending the same call again, round after round (recorded with Qwen2.5
    0.5B): it is not run again, and the model is told so.
    """
    start = next((i for i in range(len(records) - 1, -1, -1) if records[i]["role"] == "user"), 0)
    turn = records[start:]
    errors = {
        r.get("tool_call_id"): r.get("content", "")
        for r in turn
        if r["role"] == "tool" and r.get("content", "").startswith("Error:")
    }
    return next(
        (
            errors[made["id"]]
            for record in turn
            for made in record.get("tool_calls", ())
            if made["id"] in errors and (made["name"], made["arguments"]) == (call.name, call.arguments)
        ),
        None,
    )
