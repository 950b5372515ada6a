"""Fitting a turn's messages into the model's context window: earlier turns go first, then passages, then tool results.

Servers handle an overlong prompt badly: llama.cpp refuses it or shifts the context, Ollama silently drops its
start (the system rules first). So the prompt is measured before it is sent and cut in this order until it fits,
with room left for the answer: earlier turns, oldest first (whole exchanges, so the history still starts with a
user message); passages, lowest-ranked first, down to the best one; this turn's tool results, oldest first, cut
short; the last passage. The system rules and the question are never cut.

Tokens are estimated from characters (no tokenizer call per turn): CHARS_PER_TOKEN is on the safe side of what
Qwen2.5's tokenizer gives for these prompts (3.5 characters a token for sample_vault's passages and rules, 3.8 for
tool schemas, measured with llama.cpp's /tokenize; `bench/prompt_tokens.py` measures the real counts), and a
character outside ASCII counts as a token of its own, so text in CJK scripts (about a token a character) fits too.
Only when that estimate would cut something, and the server counts tokens (llama.cpp), is the prompt counted: a
long pasted message of plain prose (4-5 characters a token) made every passage go, in a prompt half the window.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from core.chat import ChatMessage, ToolSpec
from llm_client.completions.wire import tool_to_wire
from llm_client.endpoints.context import CountsTokens, context_window

logger = logging.getLogger(__name__)

CHARS_PER_TOKEN = 3.0
MESSAGE_TOKENS = 8  # what a chat template adds around each message (role markers, separators)
ANSWER_TOKENS = 2048  # kept free for the reply (LLM_MAX_TOKENS), at most a quarter of the window
MAX_ESTIMATE_RATIO = 2.0  # a server's count may relax the estimate this far at most
REFRESH_SECONDS = 300.0  # how long a detected window is trusted (a model can be reloaded with another)
CUT_NOTICE = "\n[… cut to fit the model's context window]"
_PASSAGE = re.compile(r"\n*<note\b[^>]*>.*?</note>", re.DOTALL)  # passages escape `<note` inside their text


def estimate_tokens(text: str) -> int:
    """Return the estimated token count of `text`: ASCII characters / CHARS_PER_TOKEN, plus one per other one."""
    other = len(text) - len(text.encode("ascii", "ignore"))
    return math.ceil((len(text) - other) / CHARS_PER_TOKEN) + other


def _cost(message: ChatMessage) -> int:
    calls = "".join(call.name + call.arguments for call in message.tool_calls)
    return MESSAGE_TOKENS + estimate_tokens(message.content + calls)


@dataclass(frozen=True, slots=True)
class Fitted:
    """The messages to send, and what was cut to fit them."""

    messages: list[ChatMessage]
    tokens: int  # estimated prompt tokens, tools included
    budget: int  # the window less the room kept for the answer
    dropped_messages: int = 0
    dropped_passages: int = 0
    shortened_results: int = 0

    @property
    def is_cut(self) -> bool:
        """Return True when anything was left out or shortened."""
        return bool(self.dropped_messages or self.dropped_passages or self.shortened_results)

    def describe(self) -> str:
        """Return what was cut, for the log line."""
        cuts = [
            f"{count} {what}"
            for count, what in (
                (self.dropped_messages, "earlier message(s) left out"),
                (self.dropped_passages, "passage(s) left out"),
                (self.shortened_results, "tool result(s) shortened"),
            )
            if count
        ]
        over = f", still {self.tokens - self.budget} over" if self.tokens > self.budget else ""
        return f"{', '.join(cuts)} (about {self.tokens} of {self.budget} tokens{over})"


def reply_room(window: int, answer_tokens: int = ANSWER_TOKENS) -> int:
    """Return the tokens kept free for the reply in a `window`: `answer_tokens`, at most a quarter of it."""
    return min(answer_tokens, window // 4)


def fit_to_window(
    messages: Sequence[ChatMessage],
    tools: Sequence[ToolSpec],
    *,
    window: int,
    answer_tokens: int = ANSWER_TOKENS,
    estimate_ratio: float = 1.0,
) -> Fitted:
    """Return `messages` cut (in the module's order) so that they and `tools` leave room for the answer.

    `estimate_ratio`: estimated tokens per real token, as counted for this prompt (1.0: the estimate is taken as it
    is); the budget, in estimated tokens, grows by it.
    """
    budget = math.floor((window - reply_room(window, answer_tokens)) * estimate_ratio)
    fixed = _tools_cost(tools)
    kept = list(messages)

    def total() -> int:
        return fixed + sum(map(_cost, kept))

    dropped = _drop_earlier_turns(kept, lambda: total() > budget)
    passages = _drop_passages(kept, lambda: total() > budget, keep=1)
    shortened = _shorten_tool_results(kept, lambda: total() - budget)
    passages += _drop_passages(kept, lambda: total() > budget, keep=0)
    return Fitted(kept, total(), budget, dropped, passages, shortened)


def _drop_earlier_turns(kept: list[ChatMessage], is_over: Callable[[], bool]) -> int:
    latest = max((i for i, m in enumerate(kept) if m.role == "user"), default=0)
    first = next((i for i, m in enumerate(kept) if m.role != "system"), len(kept))
    dropped = 0
    while is_over() and first < latest:
        del kept[first]
        latest, dropped = latest - 1, dropped + 1
        while first < latest and kept[first].role != "user":  # strict templates want a user message first
            del kept[first]
            latest, dropped = latest - 1, dropped + 1
    return dropped


def _drop_passages(kept: list[ChatMessage], is_over: Callable[[], bool], *, keep: int) -> int:
    dropped = 0
    while is_over():
        # Passages ride in the latest user message (agent.prompts), or in a system message.
        holders = [(i, list(_PASSAGE.finditer(m.content))) for i, m in enumerate(kept) if m.role in ("system", "user")]
        found = [(i, matches) for i, matches in holders if matches]
        if sum(len(matches) for _, matches in found) <= keep:
            break
        index, matches = found[-1]
        last = matches[-1]
        content = kept[index].content
        kept[index] = replace(kept[index], content=content[: last.start()] + content[last.end() :])
        dropped += 1
    return dropped


def _shorten_tool_results(kept: list[ChatMessage], excess: Callable[[], int]) -> int:
    latest = max((i for i, m in enumerate(kept) if m.role == "user"), default=0)
    shortened = 0
    for index in range(latest, len(kept)):
        over = excess()
        if over <= 0:
            break
        message = kept[index]
        if message.role != "tool":
            continue
        body = message.content
        while over > 0 and body:
            # Cutting CHARS_PER_TOKEN characters a token removes at least that many tokens (estimate_tokens).
            body = body[: max(0, len(body) - math.ceil(over * CHARS_PER_TOKEN) - len(CUT_NOTICE))]
            kept[index] = replace(message, content=body + CUT_NOTICE)
            over = excess()
        shortened += 1
    return shortened


class ContextWindow:
    """The chat model's context window in tokens: what its endpoint reports, else LLM_CONTEXT_TOKENS, else unknown.

    Asked at most every REFRESH_SECONDS: a server that reports nothing (OpenAI, a proxy) costs several probes.
    """

    def __init__(
        self,
        chat_model: object,
        *,
        configured: int | None,
        answer_tokens: int = ANSWER_TOKENS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._chat_model = chat_model
        self._configured = configured
        self.answer_tokens = answer_tokens  # LLM_MAX_TOKENS: the longest reply asked for
        self._clock = clock
        self._asked_at: float | None = None
        self._detected: int | None = None
        self._is_unknown_said = False

    async def tokens(self) -> int | None:
        """Return the window to fit prompts into, or None when neither the endpoint nor a setting says it."""
        now = self._clock()
        if self._asked_at is None or now - self._asked_at >= REFRESH_SECONDS:
            self._detected = await context_window(self._chat_model)
            self._asked_at = now
        window = self._detected or self._configured
        if window is None and not self._is_unknown_said:
            self._is_unknown_said = True
            logger.info("the model's context window is unknown: prompts are not fitted (set LLM_CONTEXT_TOKENS)")
        return window

    async def count_tokens(self, text: str) -> int | None:
        """Return the tokens of `text` as the model's server counts them, or None when it cannot."""
        return await self._chat_model.count_tokens(text) if isinstance(self._chat_model, CountsTokens) else None

    async def reply_tokens(self) -> int:
        """Return the max_tokens of a reply: LLM_MAX_TOKENS, at most the room the fitted prompt leaves free."""
        window = await self.tokens()
        return self.answer_tokens if window is None else reply_room(window, self.answer_tokens)


async def fit_messages(
    messages: list[ChatMessage], tools: Sequence[ToolSpec], window: ContextWindow | None
) -> list[ChatMessage]:
    """Return `messages` fitted into the model's window (unchanged when it is unknown); say in the log what was cut."""
    tokens = await window.tokens() if window is not None else None
    if tokens is None or window is None:
        return messages
    fitted = fit_to_window(messages, tools, window=tokens, answer_tokens=window.answer_tokens)
    if fitted.is_cut:
        fitted = await _fitted_by_count(messages, tools, window, tokens, fitted)
    if fitted.is_cut or fitted.tokens > fitted.budget:
        logger.warning("prompt fitted into the model's %d-token context: %s", tokens, fitted.describe())
    return fitted.messages


async def _fitted_by_count(
    messages: list[ChatMessage], tools: Sequence[ToolSpec], window: ContextWindow, tokens: int, estimated: Fitted
) -> Fitted:
    """Return the fit with the estimate corrected by the server's count of this prompt, if that cuts less.

    The count corrects the estimate by one ratio for the whole prompt; what is then kept is counted again and
    must fit the real budget, or the estimated fit stands (the passages kept may tokenize worse than the rest).
    """
    exact = await window.count_tokens(_text(messages))
    if not exact:
        return estimated
    ratio = min(MAX_ESTIMATE_RATIO, sum(estimate_tokens(m.content) for m in messages) / exact)
    if ratio <= 1.0:
        return estimated
    refit = fit_to_window(messages, tools, window=tokens, answer_tokens=window.answer_tokens, estimate_ratio=ratio)
    kept = await window.count_tokens(_text(refit.messages))
    overhead = MESSAGE_TOKENS * len(refit.messages) + _tools_cost(tools)
    real_budget = tokens - reply_room(tokens, window.answer_tokens)
    if kept is None or kept + overhead > real_budget:
        return estimated
    return Fitted(
        refit.messages,
        kept + overhead,
        real_budget,
        refit.dropped_messages,
        refit.dropped_passages,
        refit.shortened_results,
    )


def _tools_cost(tools: Sequence[ToolSpec]) -> int:
    """Return the estimated tokens of the tool schemas sent with the prompt."""
    return sum(estimate_tokens(json.dumps(tool_to_wire(tool))) for tool in tools)


def _text(messages: Sequence[ChatMessage]) -> str:
    """Return what of `messages` is counted: their text and the tool calls they make, as `_cost` reads them."""
    return "\n".join(
        message.content + "".join(c.name + c.arguments for c in message.tool_calls) for message in messages
    )
