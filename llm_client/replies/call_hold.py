"""Holding back a streamed reply that opens like a tool call written as text, so the user never sees the call."""

from __future__ import annotations

from collections.abc import Collection

from llm_client.replies.text_tool_calls import Reading, TextCalls, read_text_calls

MAX_TRAILING_CHARS = 1_000  # what a reply that has made its calls may add before the caller stops reading


class CallHold:
    """Holds back streamed text that opens like a tool call until it reads as text (then it flows) or the reply ends.

    So the user never sees a call written as text: `feed` returns what may be shown now, `finish` how the whole
    reply reads, with the held text (to show when it is TEXT).
    """

    def __init__(
        self, offered: Collection[str], parameters: Collection[str] = (), commands: Collection[str] = ()
    ) -> None:
        self._offered = frozenset(offered)
        self._parameters = frozenset(parameters)
        self._commands = frozenset(commands)
        self._held: list[str] = []
        self._is_flowing = not self._offered  # no tools offered: nothing to hold back
        self._calls_at: int | None = None  # the held length when it first read as calls

    @property
    def held_text(self) -> str:
        """Return the text held back so far."""
        return "".join(self._held)

    @property
    def has_said_enough(self) -> bool:
        """Return True when the reply made its calls and then went on for MAX_TRAILING_CHARS more.

        The rest is dropped anyway (calls repeated, or text after them): the caller may stop reading. Small models
        repeat a call until their token limit (recorded: Qwen2.5 0.5B, 2,000 tokens and on), all of it held back.
        """
        return self._calls_at is not None and sum(map(len, self._held)) - self._calls_at > MAX_TRAILING_CHARS

    def feed(self, text: str) -> str:
        """Return the part of the reply that may be shown now ("" while it could still be a call)."""
        if self._is_flowing:
            return text
        self._held.append(text)
        held = self.held_text
        reading = read_text_calls(
            held, self._offered, parameters=self._parameters, commands=self._commands, is_complete=False
        ).reading
        if reading in (Reading.CALLS, Reading.UNOFFERED) and self._calls_at is None:
            self._calls_at = len(held)
        if reading is not Reading.TEXT:
            return ""
        self._is_flowing, self._held = True, []
        return held

    def finish(self) -> TextCalls:
        """Return how the held text reads now that the reply is complete (TEXT once text has flowed)."""
        if self._is_flowing:
            return TextCalls(Reading.TEXT)
        return read_text_calls(self.held_text, self._offered, parameters=self._parameters, commands=self._commands)
