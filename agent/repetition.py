"""Noticing a reply that has begun to repeat itself, so it is stopped at once rather than run to its token cap.

Small models fall into loops: the same sentence or block again and again until max_tokens or the context ends
(recorded with Qwen2.5-Coder 0.5B through the service: 6,459 tokens, four minutes, for one golden question).
A reply whose end is the same stretch of MIN_PERIOD to MAX_PERIOD characters REPEATS times over is in such a loop:
text people write does not repeat a whole sentence four times in a row, while table rows and list items, which
look alike, differ in their words or their data.

The stretches are compared exactly, except for one kind of number: a list item's own number, where Markdown reads
one (at a line's start, after any indent, before ". " or ") "). A model that loops through a numbered list writes
the same item again and again under a new number each time ("3. **Combining …**", "4. **Combining …**", … to
item 22 and the token cap, recorded with Qwen2.5-Coder 0.5B), so its repeats are never exactly alike. Every other
number counts: rows or items that differ only in numbers elsewhere (a run log "| 2024-01-05 | 5.5 km |", a
price list, "Lap 3: 93 seconds") are data, and a list numbered 1, 2, 3 whose items differ in anything is not cut.
A list number is only the item's place, which Markdown renders whatever digits were written, so it says nothing
about whether the text repeats; no other number is safe to ignore.

A loop need not be one stretch again and again: the 0.5B, asked which RRF constants were tried, alternated two
list items of 270 characters each ("k = 10: …", "k = 100: …", three times) and then repeated the first, so no
stretch up to MAX_PERIOD repeated until its tenth item. So a long line (MIN_LINE_CHARS, list number aside) written
REPEATS times anywhere in a reply is a loop too: a table row, a task or a heading that recurs is shorter, and a
sentence that long is not written four times over in one answer. Lines in code blocks do not count: code (a Tasks
query block copied from a note) repeats its long comment lines on purpose.
"""

from __future__ import annotations

import re
from collections import Counter

MIN_PERIOD = 16
MIN_DISTINCT_CHARS = 6  # a run of few characters ("-----", "| --- | --- |") is formatting, not a loop
MAX_PERIOD = 400
REPEATS = 4
MIN_LINE_CHARS = 80  # a line this long written REPEATS times anywhere in one reply is a loop
CHECK_EVERY = 32  # characters between checks: a check reads at most MAX_PERIOD * REPEATS characters
NOTICE = "\n\n*(Stopped here: the model began repeating itself.)*"

# CommonMark's ordered list marker: one to nine digits, then "." or ")", then a space or the line's end.
_LIST_NUMBER = re.compile(r"^([ \t]*)\d{1,9}(?=[.)](?:[ \t]|$))", re.MULTILINE)


def ends_in_a_loop(text: str) -> bool:
    """Return True when `text` ends with one stretch of MIN_PERIOD..MAX_PERIOD characters REPEATS times over.

    List items' own numbers are not compared (the module's docstring says why).
    """
    renumbered, numbers = _LIST_NUMBER.subn(r"\g<1>0", text)
    return _ends_in_repeats(text) or (numbers > 0 and _ends_in_repeats(renumbered))


def counted_line(line: str) -> str | None:
    """Return `line` as compared across a reply (list number and outer spaces aside), None when too short to count."""
    compared = _LIST_NUMBER.sub(r"\g<1>0", line).strip()
    is_long = len(compared) >= MIN_LINE_CHARS and len(set(compared)) >= MIN_DISTINCT_CHARS
    return compared if is_long else None


def _ends_in_repeats(text: str) -> bool:
    longest = min(MAX_PERIOD, len(text) // REPEATS)
    return any(
        text[-1] == text[-1 - period]  # cheap: rules out most periods before any stretch is copied
        and text.endswith(text[-period:] * REPEATS)
        and len(set(text[-period:])) >= MIN_DISTINCT_CHARS
        for period in range(MIN_PERIOD, longest + 1)
    )


class RepetitionWatch:
    """Reads a streamed reply and says when it has begun to loop."""

    def __init__(self) -> None:
        self._tail = ""
        self._unchecked = 0
        self._is_looping = False
        self._line = ""  # the line being written
        self._lines: Counter[str] = Counter()  # the long lines written so far (`counted_line`)
        self._is_in_code = False  # inside a fenced code block

    def feed(self, text: str) -> bool:
        """Add streamed text; return True once the reply has ended in a loop (and from then on)."""
        self._tail = (self._tail + text)[-MAX_PERIOD * REPEATS :]
        self._is_looping = self._is_looping or self._repeats_a_line(text)
        self._unchecked += len(text)
        if not self._is_looping and self._unchecked >= CHECK_EVERY:
            self._unchecked = 0
            self._is_looping = ends_in_a_loop(self._tail)
        return self._is_looping

    def _repeats_a_line(self, text: str) -> bool:
        *ended, self._line = (self._line + text).split("\n")
        for line in ended:
            if line.lstrip().startswith(("```", "~~~")):
                self._is_in_code = not self._is_in_code
            elif not self._is_in_code and (counted := counted_line(line)) is not None:
                self._lines[counted] += 1
                if self._lines[counted] >= REPEATS:
                    return True
        return False
