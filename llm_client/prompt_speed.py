"""How fast the model reads prompts, measured on its recent replies: what a question's passages may cost in time.

A model on a laptop's CPU reads a prompt before it writes its first word: Qwen2.5-Coder 1.5B read 72 tokens a second
on two cores, so the ~700 tokens of passages a question is sent with kept the user waiting 11 s for the first word.
Measured per reply, the reading speed lets the agent send no more than the model reads in the time allowed
(ANSWER_FIRST_TOKEN_SECONDS), on whatever hardware it runs.

A reply's reading time is the server's own figure where it gives one (llama.cpp's `timings`), else the time to its
first streamed chunk, which also holds connecting and the first token: a little slow, so the budget errs short. The
tokens read are the prompt's less those the server says came from its cache; a server that says nothing of its
cache (Ollama) seems to read faster than it does, so the budget errs long there, as it did before it existed.
"""

from __future__ import annotations

import statistics
from collections import deque

from core.chat import Usage

MIN_TOKENS_READ = 100  # a shorter read (a warm-up's one token, a cached prompt) is mostly fixed cost, not reading
SAMPLES = 8  # the latest replies the speed is the median of: one slow reply (a busy machine) does not set it


class PromptSpeed:
    """The median prompt-reading speed of the latest replies (tokens a second), per model."""

    def __init__(self) -> None:
        """Start with no reply measured."""
        self._samples: dict[str, deque[float]] = {}
        self._latest = ""  # the model of the latest reply: the one the next question most likely goes to

    def record(self, model: str, usage: Usage | None) -> None:
        """Take one reply's usage: its tokens read and the seconds they took (`prompt_seconds`).

        Estimated usage (the server reported none), a reply with no reading time and short reads are not
        measurements; they are left out.
        """
        if usage is None:
            return
        self._latest = model
        if usage.is_estimate or usage.prompt_seconds is None or usage.prompt_seconds <= 0:
            return
        read = usage.prompt_tokens - usage.cached_tokens
        if read >= MIN_TOKENS_READ:
            self._samples.setdefault(model, deque(maxlen=SAMPLES)).append(read / usage.prompt_seconds)

    def tokens_per_second(self, model: str | None = None) -> float | None:
        """Return a model's median reading speed over its latest replies, None before one was measured.

        `model`: by default the model of the latest reply (after a failover, the endpoint that answered).
        """
        samples = self._samples.get(self._latest if model is None else model)
        return statistics.median(samples) if samples else None
