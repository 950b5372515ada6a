"""Masking what is sent to the model: every message's text and tool-call arguments pass one injected function.

The client cannot tell a credential from text (rag finds them; llm_client may not import rag), so the wiring
hands it `mask` (REDACT_SECRETS). It runs where messages become the request body, so the system prompt, the
history a chat client resends (with the unmasked diffs the user was shown), the user's own message, tool results
and crew material are all masked alike. History comes again every turn: the wiring caches `mask` by text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace

from core.chat import ChatMessage, ToolCall

Mask = Callable[[str], str]


def masked_messages(messages: Sequence[ChatMessage], mask: Mask) -> list[ChatMessage]:
    """Return `messages` with `mask` applied to each text and each tool call's arguments (same objects if clean)."""
    return [_masked(message, mask) for message in messages]


def _masked(message: ChatMessage, mask: Mask) -> ChatMessage:
    content = mask(message.content) if message.content else message.content
    calls = tuple(_masked_call(call, mask) for call in message.tool_calls)
    if content == message.content and calls == message.tool_calls:
        return message
    return replace(message, content=content, tool_calls=calls)


def _masked_call(call: ToolCall, mask: Mask) -> ToolCall:
    arguments = masked_arguments(call.arguments, mask)
    return call if arguments == call.arguments else replace(call, arguments=arguments)


def masked_arguments(arguments: str, mask: Mask) -> str:
    """Return tool-call arguments with each JSON string masked, so they stay valid JSON (servers parse them)."""
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError:
        return mask(arguments)
    masked = _masked_value(value, mask)
    return arguments if masked == value else json.dumps(masked, ensure_ascii=False)


def _masked_value(value: object, mask: Mask) -> object:
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, list):
        return [_masked_value(item, mask) for item in value]
    if isinstance(value, dict):
        return {key: _masked_value(item, mask) for key, item in value.items()}
    return value
