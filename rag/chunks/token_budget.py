"""Token budgets for the chunker: the wrapped token counter, and a frugal search for the longest run that fits.

Counting tokens is the expensive step of chunking (a real tokenizer over the text), so every search here
aims its probes with the characters-per-token rate seen so far and takes a run that is nearly full.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence

# Text longer than this many characters a token is taken to be over a limit without counting it: guessing
# wrong only cuts a piece finer than needed, while counting a long text costs a pass over it.
CHARS_PER_TOKEN_CEILING = 8
_DEFAULT_CHARS_PER_TOKEN = 4.0


class TokenCounter:
    """Measure texts with the dense model's counter; `cost` leaves out the tokens every text pays once."""

    def __init__(self, count_tokens: Callable[[str], int]) -> None:
        self._count = count_tokens
        self.fixed = count_tokens("")  # special tokens ([CLS]/[SEP]) and any document prefix
        self._sep_costs: dict[str, int] = {}
        self._chars = 0
        self._tokens = 0

    def total(self, text: str) -> int:
        """Return the tokens of `text` as embedded, special tokens included."""
        tokens = self._count(text)
        self._chars += len(text)
        self._tokens += max(0, tokens - self.fixed)
        return tokens

    def cost(self, text: str) -> int:
        """Return the tokens `text` adds to a chunk (special tokens excluded)."""
        return max(0, self.total(text) - self.fixed)

    def sep_cost(self, sep: str) -> int:
        """Return the (cached) cost of a separator between pieces."""
        if sep not in self._sep_costs:
            self._sep_costs[sep] = self.cost(sep) if sep else 0
        return self._sep_costs[sep]

    def chars_for(self, tokens: float) -> float:
        """Return how many characters of this note's text usually make `tokens` tokens."""
        rate = self._chars / self._tokens if self._tokens else _DEFAULT_CHARS_PER_TOKEN
        return tokens * rate


def is_surely_over(text: str, limit: int) -> bool:
    """Return True when a text is too long to fit `limit` tokens at any plausible characters-per-token rate."""
    return len(text) > CHARS_PER_TOKEN_CEILING * max(limit, 0)


def largest_within(
    cost_of: Callable[[int], int], limit: int, widths: Sequence[int], *, start: int = 0, first_width: float
) -> tuple[int, int]:
    """Return the largest count of items from `start` whose `cost_of(count)` is within `limit`, and that cost.

    Probes aim at a size that the cost rate seen so far (tokens grow about linearly with text) puts just
    under the limit; every third probe halves the open interval instead (or doubles the count while no upper
    bound is known), so even a lumpy cost needs only O(log n) probes. A run within 1/32 of the limit is taken
    without proving that one more item would not fit: a run a few tokens short of full is as good.

    Args:
        cost_of: the cost of the first `count` items; must not decrease as the count grows (0 costs 0).
        limit: the most the run may cost.
        widths: cumulative sizes in characters, non-decreasing: the first k items from `start` measure
            `widths[start + k] - widths[start]`; the items end at `len(widths) - 1`.
        start: where the items begin in `widths`.
        first_width: the size the first probe aims at.

    """
    upper = len(widths) - 1 - start
    low, low_cost, high = 0, 0, upper + 1
    aim = limit - limit // 64  # the middle of the accepted band
    probe = _count_within(widths, start, first_width)
    step = 0
    while high - low > 1 and low_cost < limit - limit // 32:
        probe = min(max(probe, low + 1), high - 1)
        cost = cost_of(probe)
        if cost <= limit:
            low, low_cost = probe, cost
        else:
            high = probe
        step += 1
        if step % 3 == 0:
            probe = (low + high) // 2 if high <= upper else 2 * low
        else:
            width = widths[start + probe] - widths[start]
            probe = _count_within(widths, start, width * aim / max(cost, 1))
    return low, low_cost


def _count_within(widths: Sequence[int], start: int, width: float) -> int:
    """Return how many items from `start` fit in `width` characters."""
    return bisect_right(widths, widths[start] + width, lo=start) - 1 - start


def prefix_widths(items: Sequence[str], joiner: str) -> list[int]:
    """Return the cumulative character sizes of items joined by `joiner` (0 first)."""
    widths = [0]
    for item in items:
        widths.append(widths[-1] + len(item) + len(joiner))
    return widths
