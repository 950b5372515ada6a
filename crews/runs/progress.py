"""What a run tells its watchers beyond task status: the live token ticker, and a model-less dry run's material."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from core.chat import ChatMessage, Usage
from crews.model import Material
from crews.runs.control import Event

# A streaming reply is reported every TOKEN_EVENT_STEP tokens or TOKEN_EVENT_SECONDS, whichever comes first: a
# ticker that moves, without an event per token (a fast model streams a hundred a second).
TOKEN_EVENT_STEP = 32
TOKEN_EVENT_SECONDS = 0.5
MAX_LISTED_ITEMS = 50  # of a model-less dry run's material, listed in its output
MODEL_NEEDED = (
    "a language model is needed for the rest of this dry run: none is configured or reachable (set LLM_BASE_URL); "
    "what the collector gathered is listed with its task, and nothing was written"
)
LATE_ABORT = "the run finished before the abort took effect; nothing was aborted"
CHARS_PER_TOKEN = 4  # of a reply streaming, until the server reports its usage


@dataclass(frozen=True, slots=True)
class TokenCount:
    """An llm task's tokens so far: all (prompt and replies) and its replies' alone.

    A finished call counts by the server's usage (estimated when it reports none); a reply still streaming by an
    estimate: a piece a token (servers stream about one token a piece), or four characters a token when more.
    """

    total: int
    reply: int
    is_settled: bool  # True right after a call ended: no estimate of a streaming reply is in it


class TokenMeter:
    """Tokens of this task so far: finished calls by their usage, the current one by its streamed pieces."""

    def __init__(self, on_tokens: Callable[[TokenCount], None]) -> None:
        self._on_tokens = on_tokens
        self.total = 0
        self.reply = 0
        self._pieces = 0
        self._chars = 0

    def streamed(self, text: str) -> None:
        """Count one streamed piece of the current reply."""
        self._pieces += 1
        self._chars += len(text)
        live = self._live()
        self._on_tokens(TokenCount(self.total + live, self.reply + live, is_settled=False))

    def settle(self, usage: Usage | None, prompt: tuple[ChatMessage, ...]) -> None:
        """Count the call that just ended by its usage (None: estimated, it was cut off or aborted)."""
        if usage is None:  # cut off or aborted before the usage came: count the prompt roughly
            usage = Usage(sum(len(m.content) for m in prompt) // 4, self._live(), is_estimate=True)
        self.total += usage.total_tokens
        self.reply += usage.completion_tokens
        self._pieces = self._chars = 0
        self._on_tokens(TokenCount(self.total, self.reply, is_settled=True))

    def _live(self) -> int:
        return max(self._pieces, -(-self._chars // CHARS_PER_TOKEN))


class TokenTicker:
    """Turn the token counts of a running llm task into `tokens` events at a modest rate (the panel's ticker)."""

    def __init__(self, emit: Callable[[Event], None], task_id: str, *, clock: Callable[[], float] = time.monotonic):
        self._emit = emit
        self._task_id = task_id
        self._clock = clock
        self._shown: int | None = None
        self._shown_at = 0.0

    def update(self, task_tokens: int, run_tokens: int, *, is_settled: bool) -> None:
        """Report the task's reply tokens so far (and the run's total) if enough changed; a settled count always."""
        now = self._clock()
        if not is_settled and self._shown is not None:
            grown = task_tokens - self._shown
            if grown <= 0 or (grown < TOKEN_EVENT_STEP and now - self._shown_at < TOKEN_EVENT_SECONDS):
                return
        self._shown, self._shown_at = task_tokens, now
        event = {"type": "tokens", "task": self._task_id, "status": "running", "task_tokens": task_tokens}
        self._emit({**event, "tokens": run_tokens})


def material_lines(material: Material, *, limit: int = MAX_LISTED_ITEMS) -> list[str]:
    """Return one line per collected note (a dry run without a model shows what the model would have been given)."""
    lines = []
    for item in material.items[:limit]:
        tasks = f" ({len(item.tasks)} open task(s))" if item.tasks else ""
        lines.append(f"gathered {item.path}{tasks}")
    if len(material.items) > limit:
        lines.append(f"… and {len(material.items) - limit} more")
    return lines
