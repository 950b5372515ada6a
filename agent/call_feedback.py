"""Calls a small model gets wrong, and what it is told about them: nothing is run that was not offered.

Recorded with Qwen2.5-Coder 0.5B through the service (tests/fixtures/small_model_replies): it names a command
as if it were a tool ("add_tag", "set_property": commands of edit_note), sends a command to the wrong tool, copies
the schema's "required" list into its arguments, and sends a call that failed again, round after round.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace

from agent.state import MessageRecord, turn_start
from core.chat import ToolCall, ToolSpec

# What small models call a command's arguments, by the name of the parameter it goes to (recorded with Qwen2.5
# 0.5B: `add_tag` with "tag", `add_task` with "task").
ARGUMENT_ALIASES = {
    "tag": "value",
    "alias": "value",
    "note": "path",
    "file": "path",
    "note_path": "path",
    "text": "content",
    "task": "content",
    "section": "heading",
    "key": "property",
}
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


def as_offered_call(call: ToolCall, offered: Sequence[ToolSpec]) -> ToolCall:
    """Return a call named by a command of one offered tool as that tool's call with the command (else `call`).

    Small models name the command as the tool: `add_tag({"path": ..., "tag": "baking-log"})` for edit_note's
    add_tag (recorded with Qwen2.5 0.5B, which then looped on the error message), or several commands as the
    description lists them ("set_property/remove_property": the first). Arguments under another name
    move to the parameter they mean (ARGUMENT_ALIASES), a one-entry `properties` object to property and value.
    A write tool's call only proposes: the user still sees the diff and says yes.
    """
    if any(tool.name == call.name for tool in offered):
        return call
    # "set_property/remove_property": commands listed as a description lists them; the first is the one asked.
    command = call.name.split("/")[0]
    owners = [(tool, key) for tool in offered for key in _enum_keys(tool, command)]
    try:
        arguments = json.loads(call.arguments) if call.arguments.strip() else {}
    except json.JSONDecodeError:
        return call
    if len(owners) != 1 or not isinstance(arguments, dict):
        return call
    tool, key = owners[0]
    properties = tool.parameters.get("properties")
    names = set(properties) if isinstance(properties, Mapping) else set()
    moved: dict[str, object] = {key: command}
    for name, value in arguments.items():
        target = name if name in names else ARGUMENT_ALIASES.get(name)
        if name == "properties" and isinstance(value, dict) and len(value) == 1 and {"property", "value"} <= names:
            ((moved["property"], moved["value"]),) = value.items()
        elif target is not None and target in names and target not in moved:
            moved[target] = value
    return replace(call, name=tool.name, arguments=json.dumps(moved, ensure_ascii=False))


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
    called = next((tool for tool in offered if tool.name == call.name), None)
    choices = {"command", *(key for key, _ in (_enum_parameters(called) if called is not None else []))}
    # Only what went to a choice of the called tool ("command"): a value such as "done" is no command.
    values = (
        [value for key, value in arguments.items() if key in choices and isinstance(value, str)]
        if isinstance(arguments, dict)
        else []
    )
    for value in values:
        for tool in offered:
            if tool.name != call.name and (keys := _enum_keys(tool, value)):
                return f' \'{value}\' is a {keys[0]} of {tool.name}: call {tool.name} with "{keys[0]}": "{value}".'
    return ""


def _enum_parameters(tool: ToolSpec) -> list[tuple[str, list[object]]]:
    """Return the tool's parameters that take one of a list of values, with the values."""
    properties = tool.parameters.get("properties")
    if not isinstance(properties, Mapping):
        return []
    return [
        (key, schema["enum"])
        for key, schema in properties.items()
        if isinstance(schema, Mapping) and isinstance(schema.get("enum"), list)
    ]


def command_values(tools: Sequence[ToolSpec]) -> set[str]:
    """Return the values the tools' enum parameters take (edit_note's commands: "add_tag", "set_property" ...)."""
    return {
        value for tool in tools for _, values in _enum_parameters(tool) for value in values if isinstance(value, str)
    }


def _enum_keys(tool: ToolSpec, value: str) -> list[str]:
    return [key for key, values in _enum_parameters(tool) if value in values]


def earlier_failure(records: Sequence[MessageRecord], call: ToolCall) -> str | None:
    """Return the error this exact call (name and arguments) got earlier in this turn, or None.

    Small models answer a tool's error by sending the same call again, round after round (recorded with Qwen2.5
    0.5B): it is not run again, and the model is told so.
    """
    start = turn_start(records)
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
