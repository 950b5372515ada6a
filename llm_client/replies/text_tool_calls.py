"""Tool calls that small models write as text instead of `tool_calls`: recognised, parsed, told apart from prose.

Offered tools, Qwen2.5 0.5B/1.5B (llama.cpp, Ollama, LM Studio), Llama 3.x and Mistral small models often write the
call into the reply's text. The shapes seen and handled, each possibly repeated for several calls:

- a bare JSON object `{"name": ..., "arguments": {...}}` (`parameters` for `arguments`, or arguments as a JSON
  string), also with doubled braces `{{"name": ...}}` copied from prompt templates;
- the same inside a ```json (or bare ```) fence, or inside Qwen/Hermes `<tool_call>...</tool_call>` tags;
- Llama 3: `<|python_tag|>` before the object, or `{"type": "function", "name": ..., "parameters": ...}`;
- Mistral: `[TOOL_CALLS] [{"name": ..., "arguments": ...}, ...]` (and `[TOOL_CALLS]name[ARGS]{...}`);
- OpenAI's own shapes written out: `{"function": {"name": ..., "arguments": ...}}`, `{"tool_calls": [...]}`.

A reply is read as calls only when it *starts* as one and all of it up to the last call is calls with an object of
arguments; text after the calls is dropped. Anything else is text. Calls that name a tool not offered are told
apart (UNOFFERED): never to be run, and never shown either (the model is told the tool does not exist). A reply
shaped like a call whose JSON is broken is "unusable": neither a call to run nor an answer to show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from enum import Enum

from core.chat import ToolCall
from llm_client.replies.text_call_json import FENCE_INFOS, decode_call_values, decode_leading_values

OPENINGS = ("{", "```", "<tool_call>", "[TOOL_CALLS]", "<|python_tag|>")
MAX_MISSING_BRACES = 3  # a reply that ends this many closing braces short of a call is completed
_EXPLICIT = ("<tool_call>", "[TOOL_CALLS]", "<|python_tag|>")  # the model's own call markers: never prose
_END_TOKENS = re.compile(r"<\|(?:eom_id|eot_id|im_end|end)\|>|</s>")
_NAME_KEYS = ("name", "tool_name", "tool")
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.-]*")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")


class Reading(Enum):
    """What a reply's text is, as far as it has arrived."""

    OPEN = "open"  # could still become a tool call: hold it back
    TEXT = "text"  # prose (or code, or JSON that is no call): show it
    CALLS = "calls"  # tool calls of offered tools
    UNOFFERED = "unoffered"  # tool calls, some naming a tool that was not offered: never run
    UNUSABLE = "unusable"  # shaped like a call, but not decodable into calls


@dataclass(frozen=True, slots=True)
class TextCalls:
    """How a reply's text reads, and the calls it makes (CALLS and UNOFFERED)."""

    reading: Reading
    calls: tuple[ToolCall, ...] = ()


def starts_like_call(text: str) -> bool | None:
    """Return True when `text` opens like a tool call, False when it cannot, None when it is too short to tell."""
    head = text.lstrip()
    if any(head.startswith(opening) for opening in OPENINGS):
        return True
    if not head or any(opening.startswith(head) for opening in OPENINGS):
        return None
    return False


def read_text_calls(
    text: str,
    offered: Collection[str],
    *,
    parameters: Collection[str] = (),
    commands: Collection[str] = (),
    is_complete: bool = True,
) -> TextCalls:
    """Return how `text` reads given the `offered` tool names; `is_complete` False while the reply still streams.

    `parameters`: the parameter names of the offered tools. With them, `{"name": "add_task", "path": ...}` (the
    arguments beside an invented name, recorded with Qwen2.5 0.5B) reads as a call rather than as data.
    `commands`: the values their enum parameters take ("add_tag", "set_property"): an object named by one is a
    call of a tool that does not exist (UNOFFERED), whatever keys it has beside the name (recorded with Qwen2.5
    0.5B: `{"name": "set_property", "properties": {...}, "path": ..., "line": 21}` in a ```json fence).
    """
    parameters = frozenset(parameters)
    named = frozenset(offered) | frozenset(commands)
    if not offered:
        return TextCalls(Reading.TEXT)
    opens = starts_like_call(text)
    if opens is None:
        return TextCalls(Reading.TEXT if is_complete else Reading.OPEN)
    if not opens:
        return TextCalls(Reading.TEXT)
    body = _END_TOKENS.sub("", text).strip()
    values = decode_call_values(body)
    if values is None and is_complete and body.startswith("{"):
        values = _completed(body, parameters)
    if values is not None:
        # Decoded values are final: text still to come cannot turn a value that is no call into one.
        if (calls := _calls_of(values, named, parameters)) is not None:
            is_offered = all(call.name in offered for call in calls)
            return TextCalls(Reading.CALLS if is_offered else Reading.UNOFFERED, calls)
        is_call_shaped = any(_is_call_shaped(value, parameters) for value in values)
        return TextCalls(Reading.UNUSABLE if is_call_shaped else Reading.TEXT)
    if not is_complete and not _cannot_become_call(text):
        return TextCalls(Reading.OPEN)
    if text.lstrip().startswith(_EXPLICIT) or _looks_like_broken_call(text):
        return TextCalls(Reading.UNUSABLE)
    return TextCalls(Reading.TEXT)


def _completed(body: str, parameters: frozenset[str]) -> list[object] | None:
    """Decode a bare call whose reply ended before its last closing braces (recorded: Qwen2.5 0.5B stops short)."""
    for missing in range(1, MAX_MISSING_BRACES + 1):
        values = decode_leading_values(body + "}" * missing)
        if values and all(_is_call_shaped(value, parameters) for value in values):
            return values
    return None


def _calls_of(
    values: list[object], offered: Collection[str], parameters: frozenset[str]
) -> tuple[ToolCall, ...] | None:
    """Return the calls the values make, or None unless every value is a call."""
    calls: list[ToolCall] = []
    for value in _flattened(values):
        call = _call_of(value, offered, parameters, number=len(calls) + 1)
        if call is None:
            return None
        if not any((call.name, call.arguments) == (made.name, made.arguments) for made in calls):
            calls.append(call)  # small models repeat a call word for word; once is what they meant
    return tuple(calls) or None


def _flattened(values: list[object]) -> Iterator[object]:
    for value in values:
        if isinstance(value, list):
            yield from value
        elif isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
            yield from value["tool_calls"]
        else:
            yield value


def _call_of(value: object, offered: Collection[str], parameters: frozenset[str], *, number: int) -> ToolCall | None:
    if not isinstance(value, dict):
        return None
    function = value.get("function")
    if isinstance(function, dict):
        value = function  # OpenAI's {"type": "function", "function": {"name": ..., "arguments": ...}}
    name = next((value[key] for key in _NAME_KEYS if isinstance(value.get(key), str)), None)
    if name is None and isinstance(function, str):
        name = function
    if not isinstance(name, str) or (not _is_named(name, offered) and not _is_call_shaped(value, parameters)):
        return None  # `{"name": "my-plugin", "version": 2}` is data; `{"name": "read_note"}` a call
    arguments: object = next((value[key] for key in _ARGUMENT_KEYS if key in value), None)
    if arguments is None:
        # Qwen2.5 0.5B often writes the arguments beside the name (recorded): {"name": "edit_note", "path": ...}.
        skipped = (*_NAME_KEYS, "type", "id", "function")
        arguments = {key: item for key, item in value.items() if key not in skipped}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return None
    if not isinstance(arguments, dict):
        return None
    return ToolCall(id=f"text_call_{number}", name=name, arguments=json.dumps(arguments, ensure_ascii=False))


def _is_named(name: str, named: Collection[str]) -> bool:
    """Return True for an offered name, or names joined by "/" as a tool's description lists commands.

    Recorded with Qwen2.5 0.5B: "set_property/remove_property", copied from edit_note's description.
    """
    return name in named or ("/" in name and all(part in named for part in name.split("/")))


def _is_call_shaped(value: object, parameters: frozenset[str] = frozenset()) -> bool:
    """Return True for a value that names a function to call (whatever the name), as calls are written.

    Arguments beside the name make a call only when they are all parameters of offered tools: otherwise
    `{"name": "my-plugin", "version": 2}` is data.
    """
    if isinstance(value, list):
        return any(_is_call_shaped(item, parameters) for item in value)
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("tool_calls"), list) or isinstance(value.get("function"), dict | str):
        return True
    name = next((value[key] for key in _NAME_KEYS if isinstance(value.get(key), str)), None)
    if name is None:
        return False
    if any(key in value for key in _ARGUMENT_KEYS) or value.get("type") == "function":
        return True
    beside = set(value) - {*_NAME_KEYS, "type", "id", "required"}  # "required": copied from the schema
    return bool(beside) and beside <= parameters and _IDENTIFIER.fullmatch(name) is not None


def _cannot_become_call(text: str) -> bool:
    """Return True when text still arriving is already known not to be a call (so it can be shown now)."""
    head = text.lstrip()
    if head.startswith("```"):
        first_line, newline, rest = head[3:].partition("\n")
        if not newline:
            return False
        if first_line.strip().casefold() not in FENCE_INFOS:
            return True  # ```python, ```dataview: code to show
        body = rest.lstrip()
        return bool(body) and body[0] not in "{[<"
    if head.startswith("{"):
        body = head[1:].lstrip()
        return bool(body) and body[0] not in "\"'{"
    return False


def _looks_like_broken_call(text: str) -> bool:
    """Return True for JSON-ish text that names a key of a call but does not decode: a failed call, not prose."""
    return re.search(r"""["'](?:name|arguments|parameters|function|tool_calls)["']\s*:""", text) is not None
