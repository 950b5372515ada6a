"""How fast the model reads prompts, measured on its recent replies: what a question's passages may cost in time.

A model on a laptop's CPU reads a prompt before it writes its first word: Qwen2.5-Coder 1.5B read 72 tokens a second
on two cores, so the ~700 tokens of passages a question is sent with kept the user waiting 11 s for the first word.
Measured per reply, the reading speed lets the agent send no more than the model reads in the time allowed
(ANSWER_FIRST_TOKEN_SECONDS), on whatever hardware it runs.

The latest speeds are kept in a file (DATA_DIR/prompt_speed.json) when one is given, so a process that has not asked
the model anything yet (`librarian ask` with no server running, an MCP server just started) starts from what the
last one measured. Processes sharing a DATA_DIR each write their own view; the last write wins, which is harmless
for a median that only sets a budget.

A reply's reading time is the server's own figure where it gives one (llama.cpp's `timings`), else, for a server on
this machine or the local network only, the time to its first streamed output, which also holds connecting, the
first token, a wait in the server's queue and loading a model it had unloaded (Ollama after 5 idle minutes): a slow
sample now and then, which the median of eight outweighs. A hosted API is timed by its own figures only: its first
output also waits on hidden reasoning (OpenAI's o-series) and the network. The tokens read are the prompt's less
those the server says came from its cache; a server that says nothing of its cache (Ollama) seems to read faster
than it does, so the budget errs long there.
"""

from __future__ import annotations

import json
import logging
import math
import os
import statistics
import tempfile
from collections import deque
from pathlib import Path

from core.chat import Usage

logger = logging.getLogger(__name__)

MIN_TOKENS_READ = 100  # a shorter read (a warm-up's one token, a cached prompt) is mostly fixed cost, not reading
SAMPLES = 8  # the latest replies the speed is the median of: one slow reply (a busy machine) does not set it
MAX_SPEED = 1e9  # tokens a second no server reads at: a kept figure above it is damage, not a measurement


class PromptSpeed:
    """The median prompt-reading speed of the latest replies (tokens a second), per model."""

    def __init__(self, store: Path | None = None) -> None:
        """Start from the speeds `store` keeps (None: none kept, no reply measured yet)."""
        self._store = store
        self._samples: dict[str, deque[float]] = {}
        self._latest = ""  # the model of the latest reply: the one the next question most likely goes to
        if store is not None:
            for model, speeds in _read(store).items():
                self._samples[model] = deque(speeds, maxlen=SAMPLES)
                self._latest = model  # the file is written model by model, the latest last

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
        if read >= MIN_TOKENS_READ and math.isfinite(speed := read / usage.prompt_seconds):
            self._samples.setdefault(model, deque(maxlen=SAMPLES)).append(speed)
            self._save()

    def tokens_per_second(self, model: str | None = None) -> float | None:
        """Return a model's median reading speed over its latest replies, None before one was measured.

        `model`: by default the model of the latest reply (after a failover, the endpoint that answered).
        """
        samples = self._samples.get(self._latest if model is None else model)
        median = statistics.median(samples) if samples else None
        return median if median is not None and math.isfinite(median) else None

    def _save(self) -> None:
        if self._store is None:
            return
        # The latest model last, so a process reading the file takes it as the one in use.
        ordered = sorted(self._samples.items(), key=lambda item: item[0] == self._latest)
        text = json.dumps({model: [round(speed, 2) for speed in speeds] for model, speeds in ordered})
        temporary = None
        try:
            self._store.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(
                "w", dir=self._store.parent, prefix=f".{self._store.name}.", delete=False, encoding="utf-8"
            ) as file:
                temporary = file.name
                file.write(text)
            os.replace(temporary, self._store)  # whole or not at all, for a process reading it meanwhile
            temporary = None
        except OSError as exc:  # a read-only DATA_DIR costs only the next process's first measurement
            logger.debug("could not keep the model's reading speed in %s: %s", self._store, exc)
        finally:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)


def _read(store: Path) -> dict[str, list[float]]:
    """Return the speeds kept in `store`, per model; nothing for a missing or unreadable file."""
    try:
        data = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        str(model): [
            float(v) for v in speeds if isinstance(v, int | float) and not isinstance(v, bool) and 0 < v < MAX_SPEED
        ]
        for model, speeds in data.items()
        if isinstance(speeds, list)
    }
