"""Warming the model up at start: one call that learns whether it makes tool calls, then the prompt prefix cached.

llama.cpp, Ollama, LM Studio and vLLM keep the prompt they last evaluated and reuse its longest common prefix. Every
question begins with the same system message (and, for a model offered tools on questions, the same tool
schemas: agent/prompts.py), so a request with that prefix and a throwaway question, stopped at its first
token, leaves the prefix in the cache: the user's first question then evaluates only its own part (passages, date,
question), as later ones do. A local server also loads the model on that request rather than on the first question.

Before it, with LLM_TOOLS=auto, the model is asked once to search the notes with the tools offered: a structured
call (`tool_calls`) shows it calls tools, and questions and change requests are then offered them
(agent/tool_use.py); a model that writes the call as text, or none, answers questions in one completion, and its
change requests go through a change contract (agent/change_contract/). What it costs: a prompt of about
600 tokens and a reply of at most PROBE_TOKENS, then one of about 450 tokens (its last 150 time the model's reading;
after a structured call its prefix is the probe's, cached), once per start, after the index run at start, while
nobody waits.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from agent.prompts import model_messages, system_prompt
from agent.quoting.prompt import QUOTE_SYSTEM
from agent.tool_use import ToolUse
from core.chat import ChatMessage, ToolSpec
from core.errors import AppError
from core.ports import ChatModel

logger = logging.getLogger(__name__)

WARM_UP_QUESTION = "Hello."  # after the prefix: what it says does not matter, only that the prefix precedes it
# Read after the cached prefix, behind a mark no cache holds (a new one each start), so the warm-up also times how
# fast the model reads (llm_client/prompt_speed.py counts a read of 100 tokens or more): the first question is then
# sent what the model reads in ANSWER_FIRST_TOKEN_SECONDS, as later ones are (agent/passage_budget.py).
TIMING_TEXT = " ".join(["This text only times the model's reading; it needs no answer."] * 10)
MAX_WARM_UP_DELTAS = 16  # a server that ignores max_tokens=1 is not read to the end of a long reply
PROBE_QUESTION = "Search my notes for the word 'zebra'."  # asks for a call: no note is sent with it
PROBE_TOKENS = 64  # enough for one call of search_notes, structured or written as text


WarmUpStatus = Literal["off", "running", "done", "failed"]


@dataclass(slots=True)
class WarmUp:
    """Where the start-up warm-up stands, for /ready: a question asked while it runs waits behind it at the server.

    `after`: awaited before the model is asked (the service's index run at start). The warm-up times the model's
    reading, and an index build on the same cores halves it: Qwen2.5-Coder 1.5B read 32 tokens a second so where
    it reads 72 idle, and the first questions were sent 800 characters of notes until later replies outvoted it.
    """

    status: WarmUpStatus = "off"
    after: Callable[[], Awaitable[None]] | None = None


def warm_up_messages(*, has_tools: bool, quote_first: bool = False, mark: str = "") -> list[ChatMessage]:
    """Return the messages of the warm-up request: the system message a question gets, then a throwaway one.

    A question without tools, with ANSWER_QUOTES on, begins with the quote call's system message (agent/quoting).
    `mark`: a text no earlier prompt held, after which TIMING_TEXT is read afresh ("": the question alone).
    """
    system = QUOTE_SYSTEM if quote_first and not has_tools else system_prompt(has_tools=has_tools)
    throwaway = f"({mark}) {TIMING_TEXT} {WARM_UP_QUESTION}" if mark else WARM_UP_QUESTION
    return [ChatMessage("system", system), ChatMessage("user", throwaway)]


async def warm_up(
    chat_model: ChatModel,
    tools: Sequence[ToolSpec],
    tool_use: ToolUse,
    *,
    quote_first: bool = False,
    progress: WarmUp | None = None,
) -> bool:
    """Learn whether the model calls tools (LLM_TOOLS=auto), then cache the prefix questions will begin with.

    `tools`: those every question would be offered ([] when the model gets none). `quote_first`: questions
    without tools are answered by quoting first (their prefix is the quote call's). Returns True when the
    server answered; a failure is logged and never raised (the first question then pays for the prefix).
    `progress`: set to "running" (also while it awaits `progress.after`), then "done" or "failed".
    """
    progress = progress or WarmUp()
    progress.status = "running"
    try:
        if progress.after is not None:
            await progress.after()
        started = time.monotonic()
        probed = bool(tools) and not tool_use.is_offered_on_questions(chat_model.model_name)
        if probed and await _makes_structured_call(chat_model, tools):
            tool_use.record(chat_model.model_name, has_called=True, is_unusable=False, is_structured=True)
        asked = list(tools) if tool_use.is_offered_on_questions(chat_model.model_name) else []
        # Also after a structured call, whose probe cached the prefix with tools already: the probe's prompt may be
        # in the cache of a server started before us, and then only this request's marked text times the reading.
        await _evaluate_prefix(chat_model, asked, quote_first=quote_first)
    except AppError as exc:
        # A warning: at start this is the first word that the LLM is unreachable or misconfigured (a base URL
        # without /v1 is named as such by the client), before any question fails on it.
        logger.warning("warming the model up failed (is the LLM running? /ready says more): %s", exc.message)
        progress.status = "failed"
        return False
    except BaseException:  # cancelled at shutdown
        progress.status = "failed"
        raise
    progress.status = "done"
    model = chat_model.model_name
    logger.info(
        "warmed the model %s up in %.1f s; tools: %s", model, time.monotonic() - started, tool_use.describe(model)
    )
    return True


async def _makes_structured_call(chat_model: ChatModel, tools: Sequence[ToolSpec]) -> bool:
    messages = model_messages([ChatMessage("user", PROBE_QUESTION)], today=date.today(), context="")
    offered = {tool.name for tool in tools}
    deltas = chat_model.stream(messages, tools=tools, max_tokens=PROBE_TOKENS)
    made = False
    async for delta in deltas:
        made = made or any(call.name in offered for call in delta.tool_calls)
    return made


async def _evaluate_prefix(chat_model: ChatModel, tools: Sequence[ToolSpec], *, quote_first: bool) -> None:
    # One token is enough; the reply is read to its closing delta, whose usage times the reading (the client
    # measures it), but no further than a few deltas (the server stops even if closing the stream does not reach it).
    messages = warm_up_messages(has_tools=bool(tools), quote_first=quote_first, mark=uuid.uuid4().hex[:12])
    deltas = chat_model.stream(messages, tools=tools, max_tokens=1)
    try:
        count = 0
        async for delta in deltas:
            count += 1
            if delta.usage is not None or delta.finish_reason is not None or count >= MAX_WARM_UP_DELTAS:
                break
    finally:
        if isinstance(deltas, AsyncGenerator):
            await deltas.aclose()  # closes the HTTP stream, so the server stops generating
