"""Noticing a reply that has begun to repeat itself, so it is stopped at once rather than run to its token cap.

Small models fall into loops: the same sentence or block again and again until max_tokens or the context ends
(recorded with Qwen2.5-Coder 0.5B through the service: 6,459 tokens, four minutes, for one golden question).
A reply whose end is the same stretch of MIN_PERIOD to MAX_PERIOD characters REPEATS times over, exactly, is in
such a loop: text people write does not repeat a whole sentence four times in a row, while table rows and list
items, which look alike, differ in their words.
"""

from __future__ import annotations

MIN_PERIOD = 16
MIN_DISTINCT_CHARS = 6  # a run of few characters ("-----", "| --- | --- |") is formatting, not a loop
MAX_PERIOD = 400
REPEATS = 4
CHECK_EVERY = 32  # characters between checks: a check reads at most MAX_PERIOD * REPEATS characters
NOTICE = "\n\n*(Stopped here: the model began repeating itself.)*"


def ends_in_a_loop(text: str) -> bool:
    """Return True when `text` ends with one stretch of MIN_PERIOD..MAX_PERIOD characters REPEATS times over."""
    longest = min(MAX_PERIOD, len(text) // REPEATS)
    return any(
        text.endswith(text[-period:] * REPEATS) and len(set(text[-period:])) >= MIN_DISTINCT_CHARS
        for period in range(MIN_PERIOD, longest + 1)
    )


class RepetitionWatch:
    """Reads a streamed reply and says when it has begun to loop."""

    def __init__(self) -> None:
        self._tail = ""
        self._unchecked = 0
        self._is_looping = False

    def feed(self, text: str) -> bool:
        """Add streamed text; return True once the reply has ended in a loop (and from then on)."""
        self._tail = (self._tail + text)[-MAX_PERIOD * REPEATS :]
        self._unchecked += len(text)
        if not self._is_looping and self._unchecked >= CHECK_EVERY:
            self._unchecked = 0
            self._is_looping = ends_in_a_loop(self._tail)
        return self._is_looping
