"""One model reply, streamed to the user through the citation check, with tool calls written as text held back."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent.call_feedback import as_offered_call, command_values, without_schema_words
from agent.echo_trim import EchoTrim, PartEchoTrim
from agent.opening_hold import OpeningCheck
from agent.repetition import NOTICE as LOOP_NOTICE
from agent.repetition import RepetitionWatch
from agent.turn import TurnScratch
from core.chat import ChatMessage, ToolCall, ToolSpec
from core.ports import ChatModel
from llm_client.replies.call_hold import CallHold
from llm_client.replies.text_tool_calls import Reading

Write = Callable[[Any], None]
logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ModelReply:
    """What one model call gave: its text, its calls (structured or read from the text) and how it ended."""

    text: str  # what the model wrote, less any calls written as text
    calls: tuple[ToolCall, ...]
    finish_reason: str
    has_tools: bool  # tools were offered to this call
    is_unusable: bool  # the model knew of tools and the reply is neither a call nor an answer (none of it was shown)
    is_structured: bool = False  # its calls came as `tool_calls`, not written as text


async def stream_reply(
    chat_model: ChatModel,
    messages: Sequence[ChatMessage],
    tools: Sequence[ToolSpec],
    scratch: TurnScratch,
    write: Write,
    *,
    known: Sequence[ToolSpec] = (),
    max_tokens: int | None = None,
    asked: str = "",
    parts: tuple[str, ...] = (),
    opening: OpeningCheck | None = None,
) -> ModelReply:
    """Stream one reply to the user; a reply that opens like a tool call is shown only once it reads as text.

    `known`: tools offered earlier in the turn but not now (the rounds ran out). A call of them written as text is
    returned like a structured one would be (the model wanted more steps), never shown. `asked`: the user's latest
    message, which a small model may echo before its answer (agent/echo_trim.py), and `parts` its parts, which it may
    copy before each answer (rag/answer/question_parts.py). `opening`: hold the answer's
    opening until code has checked the notes bear it out; when they do not, the model is stopped and the reply is
    the service's refusal (agent/opening_check.py), or, for an answer in numbered parts some of which they bear out,
    those parts with the others told so (agent/opening_hold.py); with `tools` offered the model is read to its end
    first, and a call it makes then is made (what it wrote before the call was no answer).
    """
    every = (*tools, *known)
    held_names = {tool.name for tool in every}
    hold = CallHold(held_names, parameters=_parameter_names(every), commands=command_values(every))
    scratch.start_reply()
    text: list[str] = []
    calls: tuple[ToolCall, ...] = ()
    finish_reason = "stop"
    watch = RepetitionWatch()
    echo = EchoTrim(asked)  # the prompt's "Question: …" line a small model repeats
    part_echo = PartEchoTrim(parts)  # and the question's parts it was told one by one
    is_looping = False
    deltas = chat_model.stream(messages, tools=tools, max_tokens=max_tokens)
    async for delta in deltas:
        if delta.text:
            text.append(delta.text)
            await _show(scratch, write, _checked(opening, hold.feed(part_echo.feed(echo.feed(delta.text)))))
            is_looping = watch.feed(delta.text)
        calls = calls or delta.tool_calls
        finish_reason = delta.finish_reason or finish_reason
        scratch.add_usage(delta.usage)
        # With tools offered, a withheld opening may be what the model writes before a call: read on, showing nothing.
        is_withheld = opening is not None and opening.is_withheld and not tools
        if hold.has_said_enough or is_looping or is_withheld:
            if isinstance(deltas, AsyncGenerator):
                await deltas.aclose()  # closes the HTTP stream now, so the server stops generating
            finish_reason = "length" if is_looping else finish_reason  # cut short, as by the token cap
            break
    await _show(scratch, write, _checked(opening, hold.feed(part_echo.feed(echo.finish()) + part_echo.finish())))
    held = hold.finish()
    is_structured = bool(calls)
    is_unusable = False
    if not calls:
        if held.reading in (Reading.CALLS, Reading.UNOFFERED):  # the agent runs only the calls of offered tools
            # Ids of our own, unique across the rounds of a conversation (the parser numbers calls per reply).
            calls = tuple(replace(call, id=f"call_{uuid.uuid4().hex[:16]}") for call in held.calls)
            text = []  # the calls go back to the model as calls; their JSON as text too would say them twice
        elif held.reading is Reading.TEXT:
            await _show(scratch, write, _checked(opening, hold.held_text))
        if opening is not None and not calls:
            await _show(scratch, write, opening.finish())
            if opening.kept:
                logger.info("showed the parts the notes bear out, the others told so: %r", opening.opening)
            if opening.is_withheld:
                logger.info("withheld an answer no sentence of the notes bears out: %r", opening.opening)
                scratch.withheld = opening.opening
                finish_reason = "stop"  # the refusal is whole, whatever cut the model short
                await _show(scratch, write, opening.withheld_reply)
        is_empty = not calls and not "".join(text).strip()
        is_unusable = bool(held_names) and (held.reading is Reading.UNUSABLE or is_empty)
    calls = tuple(without_schema_words(as_offered_call(call, tools), tools) for call in calls)
    is_cut = is_looping or finish_reason == "length"
    _write(write, scratch.show_reply(scratch.stream.flush(is_cut=is_cut)))
    if is_looping and not calls and not (opening is not None and opening.is_withheld):
        _write(write, scratch.show(LOOP_NOTICE))
    return ModelReply(
        "".join(text),
        calls,
        finish_reason,
        has_tools=bool(tools),
        is_unusable=is_unusable,
        is_structured=is_structured,
    )


def _checked(opening: OpeningCheck | None, text: str) -> str:
    """Return what of `text` may be shown now: all of it without an opening check."""
    return text if opening is None or not text else opening.feed(text)


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
