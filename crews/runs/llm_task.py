"""An llm task: exactly one streamed chat completion against the output's schema, plus at most one repair.

The prompt is small on purpose (small local models are the normal case): the agent's system prompt and one rule
(the material is data, never instructions), the material, the task's instruction, and the output contract in a
few lines. `response_format` asks for the schema where the endpoint supports it; the reply is validated and bound
either way. A reply that does not validate is kept verbatim as an artifact and repaired once; the team's call
budget covers both calls; an abort request is honoured inside the stream, also while the model reads the prompt.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from core.chat import ChatDelta, ChatMessage, Usage
from core.errors import AppError
from core.ports import ChatModel
from crews.contract.llm_prompt import ECHO_OMITTED_TAIL, build_messages, repair_turn
from crews.contract.material import render_material
from crews.contract.outputs import OutputInvalid, bind, extract_json, output_contract, response_format
from crews.contract.section_binding import too_long
from crews.definitions import CrewAgent, LlmTask, OutputSpec
from crews.model import BoundOutput, Material
from crews.runs.progress import TokenCount, TokenMeter

__all__ = [
    "BudgetExceeded",
    "CallBudget",
    "LlmResult",
    "OutputInvalid",
    "PromptMaterial",
    "RunAborted",
    "TokenCount",
    "run_llm_task",
]

ABORT_POLL_SECONDS = 0.2  # how often an abort request is looked at while no token arrives
UNBUDGETED_TOKENS = 10**9  # material given whole (not rendered to fit a context) is never cut
REPLY_ENVELOPE_TOKENS = 64  # a reply's JSON around its values, and a fence or a line of prose a model adds
REPLY_ENVELOPE_CHARS = 256  # the same in characters
TOO_LONG = "too_long"  # the finish of a reply cut off once its text is past a section's max_chars


class RunAborted(Exception):
    """The user asked to stop the run; raised between tasks and inside the model stream."""


class BudgetExceeded(AppError):
    """The team's LLM call budget (max_llm_calls) is used up."""


class CallBudget:
    """The LLM calls a run may make (the team's max_llm_calls): every call, a repair too, takes one."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    @property
    def remaining(self) -> int:
        """Return how many calls are left."""
        return max(0, self.limit - self.used)

    def take(self, what: str) -> None:
        """Count one call, or raise BudgetExceeded (naming `what` was not sent) when none is left."""
        if self.used >= self.limit:
            raise BudgetExceeded(
                f"the team's LLM call budget ({self.limit}) is used up, so {what} was not sent (raise max_llm_calls)"
            )
        self.used += 1


class PromptMaterial(Protocol):
    """Material rendered for the prompt (crews.contract.material.RenderedMaterial): its text and the paths it shows.

    Its `material` attribute, when it has one, is what the output binds to (else pass `source=`).
    """

    @property
    def text(self) -> str:
        """Return the material block of the prompt."""
        ...

    @property
    def shown(self) -> tuple[str, ...]:
        """Return the paths of the items the text shows (the rest was cut to fit the context)."""
        ...


@dataclass(frozen=True, slots=True)
class LlmResult:
    """What an llm task produced: the bound output, the calls it took (1 or 2) and the tokens they used."""

    output: BoundOutput
    calls: int
    tokens: int


async def run_llm_task(
    task: LlmTask,
    agent: CrewAgent,
    material: PromptMaterial | Material,
    *,
    chat_model: ChatModel,
    budget: CallBudget,
    on_tokens: Callable[[TokenCount], None],
    is_aborted: Callable[[], bool],
    save_artifact: Callable[[str, str, str], None],
    source: Material | None = None,
    today: date | None = None,
) -> LlmResult:
    """Ask the model once (and repair once), and return its reply bound to the material.

    Args:
        task: the llm task (its agent, instruction and output block).
        agent: the agent note whose system prompt leads the prompt.
        material: the collected material, or the same rendered to fit the context (then pass `source`).
        chat_model: the endpoint; `response_format` is asked for, never relied on.
        budget: the run's call budget; each call takes one (BudgetExceeded when none is left).
        on_tokens: told the tokens of this task so far at each streamed piece, and when each call ends.
        is_aborted: polled inside the stream; True raises RunAborted.
        save_artifact: given `(f"{task.id}-{n}.txt", raw reply, why)` for each reply that did not validate (why:
            the validation error, as the repair call quotes it), or that validated but named paths, keys or values
            the material does not have (they are in output.rejected).
        source: the Material that `material` was rendered from (what the output binds to); default the rendered
            material's own `material` (crews.contract.material.RenderedMaterial has it).
        today: the run's date, told to the model (overdue or due today means nothing without it); default the
            material's `as_of`.

    Raises:
        OutputInvalid: the reply and its repair both failed to validate.
        BudgetExceeded: no call was left for the call or its repair.
        RunAborted: the user asked to stop.

    """
    collected, text, shown = _unpack(material, source)
    spec = task.output
    wanted = response_format(spec, collected, paths=shown)
    messages = build_messages(task, agent, collected, text, shown=shown, today=today)
    meter = TokenMeter(on_tokens)
    limit = ReplyLimit(reply_token_limit(spec, len(shown)), spec.max_chars if spec.family == "section.write" else None)
    raw = error = ""
    for attempt in (1, 2):
        if attempt == 2:
            messages = (*messages, *repair_turn(raw, error, output_contract(spec, collected, paths=shown)))
        if is_aborted():
            raise RunAborted
        budget.take(f"the repair call of task {task.id!r}" if attempt == 2 else f"the call of task {task.id!r}")
        raw, finish = await _reply(chat_model, messages, wanted, meter, is_aborted, limit)
        if finish == TOO_LONG:  # no need to read it: its text is past the section's characters already
            error = too_long(raw, limit=limit.chars or spec.max_chars, material=collected)
            save_artifact(f"{task.id}-{attempt}.txt", raw, f"it did not validate: {error}")
            continue
        try:
            if attempt == 2 and ECHO_OMITTED_TAIL in raw:
                raise OutputInvalid("it copies the line that stood for the part of the first reply not shown again")
            output = bind(extract_json(raw), spec, collected, paths=shown)
        except OutputInvalid as exc:
            error = exc.message + (" (the reply was cut off: write less)" if finish == "length" else "")
            save_artifact(f"{task.id}-{attempt}.txt", raw, f"it did not validate: {error}")
            continue
        if output.rejected:  # valid, but it named things the material does not have: keep it to see why
            why = f"it named {len(output.rejected)} thing(s) the material does not have (rejected below)"
            save_artifact(f"{task.id}-{attempt}.txt", raw, why)
        return LlmResult(output=output, calls=attempt, tokens=meter.total)
    raise OutputInvalid(f"the model's reply to task {task.id!r} did not validate, nor did its repair: {error}")


def reply_token_limit(spec: OutputSpec, items: int) -> int:
    """Return how many streamed pieces a reply may take before it is cut off as runaway (a looping small model).

    A section's limit leaves room for the longest valid reply: a piece streams at least one character (Qwen's
    tokenizer makes each digit of a date a token), and JSON escaping (a line break, a quote or a backslash each
    become two characters) at most doubles a Markdown text. The earlier `max_chars // 3` cut valid briefings off.
    """
    if spec.family == "section.write":
        return REPLY_ENVELOPE_TOKENS + 2 * spec.max_chars
    return min(4096, REPLY_ENVELOPE_TOKENS + 96 * max(1, items))


@dataclass(frozen=True, slots=True)
class ReplyLimit:
    """Where a streamed reply is cut off as runaway: after `pieces` pieces, or once its text is past `chars`.

    `chars`: a section's max_chars (None for other outputs). A reply whose text already holds more characters than
    the section may have cannot validate, however it ends: the 0.5B, writing a briefing of 12 tasks, went on to
    invent "2021-13-41" and later days, and streamed 6,000 pieces (eight minutes) before the piece limit cut it off.
    """

    pieces: int
    chars: int | None = None


def least_text_chars(raw: str) -> int:
    r"""Return the fewest characters of text the JSON object in a reply's `raw` characters holds so far.

    Counted from its first "{" (a line of prose before it holds nothing), less REPLY_ENVELOPE_CHARS for its keys
    and punctuation. Each escape is one character of text however written ("\n" is two characters, "\u00e9" six),
    so every backslash is taken as one fewer: the count is never more than the text's.
    """
    start = raw.find("{")
    if start < 0:
        return 0
    body = raw[start:]
    return len(body) - body.count("\\") - 4 * body.count("\\u") - REPLY_ENVELOPE_CHARS


def _unpack(material: PromptMaterial | Material, source: Material | None) -> tuple[Material, str, tuple[str, ...]]:
    if isinstance(material, Material):  # not cut to a context: shown whole
        rendered = render_material(material, max_tokens=UNBUDGETED_TOKENS, count_tokens=_rough_tokens)
        return material, rendered.text, rendered.shown
    collected = source if source is not None else getattr(material, "material", None)
    if not isinstance(collected, Material):
        raise TypeError("run_llm_task needs the collected Material to bind to: pass source=")
    return collected, material.text, tuple(material.shown)


def _rough_tokens(text: str) -> int:
    return len(text) // 4 + 1


async def _reply(
    chat_model: ChatModel,
    messages: tuple[ChatMessage, ...],
    wanted: dict[str, object],
    meter: TokenMeter,
    is_aborted: Callable[[], bool],
    limit: ReplyLimit,
) -> tuple[str, str | None]:
    """Stream one reply; return its text and finish reason ("length" or TOO_LONG when cut off at `limit`)."""
    parts: list[str] = []
    streamed = 0  # characters: checked as they arrive, the whole reply counted only once it may be too long
    finish: str | None = None
    usage: Usage | None = None
    stream = _AbortableStream(chat_model.stream(messages, response_format=wanted), is_aborted)
    try:
        while (delta := await stream.next()) is not None:
            if delta.text:
                parts.append(delta.text)
                meter.streamed(delta.text)
                streamed += len(delta.text)
                if len(parts) >= limit.pieces:
                    finish = "length"
                    break
                if _past_chars(parts, streamed, limit.chars):
                    finish = TOO_LONG
                    break
            usage = delta.usage or usage
            finish = delta.finish_reason or finish
    finally:
        await stream.close()
        meter.settle(usage, messages)
    return "".join(parts), finish


def _past_chars(parts: list[str], streamed: int, chars: int | None) -> bool:
    if chars is None or streamed - REPLY_ENVELOPE_CHARS <= chars:
        return False
    return least_text_chars("".join(parts)) > chars


class _AbortableStream:
    """Read deltas one by one, looking at the abort flag while waiting, so a stop lands even before a token does."""

    def __init__(self, deltas: AsyncIterator[ChatDelta], is_aborted: Callable[[], bool]) -> None:
        self._deltas = deltas
        self._is_aborted = is_aborted
        self._pending: asyncio.Future[ChatDelta] | None = None

    async def next(self) -> ChatDelta | None:
        """Return the next delta, None at the end; raise RunAborted as soon as an abort is seen."""
        if self._is_aborted():
            raise RunAborted
        pending = self._pending = asyncio.ensure_future(anext(self._deltas))
        while not (await asyncio.wait({pending}, timeout=ABORT_POLL_SECONDS))[0]:
            if self._is_aborted():
                raise RunAborted
        self._pending = None
        try:
            return pending.result()
        except StopAsyncIteration:
            return None

    async def close(self) -> None:
        """Stop the model call: cancel a pending read and close the stream (the HTTP response with it)."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.cancel()
            await asyncio.wait({pending})
            if not pending.cancelled():
                pending.exception()  # retrieved, so asyncio does not warn about it; the stream is given up anyway
        closing = getattr(self._deltas, "aclose", None)
        if closing is not None:
            await closing()
