"""One model reply, streamed to the user through the citation check, with tool calls written as text held back."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent.state import MessageRecord
from agent.turn import TurnScratch
from core.chat import ChatMessage, ToolCall, ToolSpec
from core.ports import ChatModel
from llm_client.text_tool_calls import CallHold, Reading

Write = Callable[[Any], None]


@dataclass(frozen=True, slots=True)
class ModelReply:
    """What one model call gave: its text, its calls (structured or read from the text) and how it ended."""

    text: str  # what the model wrote, less any calls written as text
    calls: tuple[ToolCall, ...]
    finish_reason: str
    has_tools: bool  # tools were offered to this call
    is_unusable: bool  # the model knew of tools and the reply is neither a call nor an answer (none of it was shown)


async def stream_reply(
    chat_model: ChatModel,
    messages: Sequence[ChatMessage],
    tools: Sequence[ToolSpec],
    scratch: TurnScratch,
    write: Write,
    *,
    known: Sequence[ToolSpec] = (),
) -> ModelReply:
    """Stream one reply to the user; a reply that opens like a tool call is shown only once it reads as text.

    `known`: tools offered earlier in the turn but not now (the rounds ran out). A call of them written as text is
    returned like a structured one would be (the model wanted more steps), never shown.
    """
    held_names = {tool.name for tool in (*tools, *known)}
    hold = CallHold(held_names, parameters=_parameter_names((*tools, *known)))
    scratch.start_reply()
    text: list[str] = []
    calls: tuple[ToolCall, ...] = ()
    finish_reason = "stop"
    deltas = chat_model.stream(messages, tools=tools)
    async for delta in deltas:
        if delta.text:
            text.append(delta.text)
            await _show(scratch, write, hold.feed(delta.text))
        calls = calls or delta.tool_calls
        finish_reason = delta.finish_reason or finish_reason
        scratch.add_usage(delta.usage)
        if hold.has_said_enough:
            if isinstance(deltas, AsyncGenerator):
                await deltas.aclose()  # closes the HTTP stream now, so the server stops generating
            break
    held = hold.finish()
    is_unusable = False
    if not calls:
        if held.reading in (Reading.CALLS, Reading.UNOFFERED):  # the agent runs only the calls of offered tools
            # Ids of our own, unique across the rounds of a conversation (the parser numbers calls per reply).
            calls = tuple(replace(call, id=f"call_{uuid.uuid4().hex[:16]}") for call in held.calls)
            text = []  # the calls go back to the model as calls; their JSON as text too would say them twice
        elif held.reading is Reading.TEXT:
            await _show(scratch, write, hold.held_text)
        is_empty = not calls and not "".join(text).strip()
        is_unusable = bool(held_names) and (held.reading is Reading.UNUSABLE or is_empty)
    calls = tuple(without_schema_words(call, tools) for call in calls)
    _write(write, scratch.show_reply(scratch.stream.flush()))
    return ModelReply("".join(text), calls, finish_reason, has_tools=bool(tools), is_unusable=is_unusable)


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


def _parameter_names(tools: Sequence[ToolSpec]) -> set[str]:
    names: set[str] = set()
    for tool in tools:
        properties = tool.parameters.get("properties")
        if isinstance(properties, Mapping):
            names.update(properties)
    return names


async def _show(scratch: TurnScratch, write: Write, text: str) -> None:
    if text:
        _write(write, scratch.show_reply(await scratch.stream.feed(text)))


def _write(write: Write, text: str) -> None:
    if text:
        write({"text": text})
