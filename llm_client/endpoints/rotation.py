"""Which LLM endpoint to try next: configured order, a cool-down for failed ones, retry rounds with backoff."""

from __future__ import annotations

from collections.abc import Callable, Container, Iterator, Sequence


class EndpointRotation:
    """Order base URLs for each call: those that failed within the cool-down go last, but are never skipped.

    A failed endpoint is therefore re-checked first once its cool-down ends, and still tried when it is the
    only one left; nothing is remembered as "down" for longer than `cooldown_seconds`.
    """

    def __init__(
        self,
        base_urls: Sequence[str],
        *,
        retries: int,
        backoff_seconds: float,
        cooldown_seconds: float,
        clock: Callable[[], float],
    ) -> None:
        self.base_urls = tuple(url.rstrip("/") for url in base_urls)
        self.last_good: str | None = None
        self._retries = retries
        self._backoff = backoff_seconds
        self._cooldown = cooldown_seconds
        self._clock = clock
        self._down_until: dict[str, float] = {}

    @property
    def rounds(self) -> int:
        """Return how many times each endpoint may be tried in one call."""
        return self._retries + 1

    def ordered(self) -> list[str]:
        """Return the endpoints in configured order, the ones in cool-down last."""
        now = self._clock()
        healthy = [base for base in self.base_urls if self._down_until.get(base, 0.0) <= now]
        return healthy + [base for base in self.base_urls if base not in healthy]

    def attempts(self, *, skip: Container[str] = ()) -> Iterator[tuple[float, str]]:
        """Yield (seconds to wait first, base URL): every endpoint per round, the wait doubling each round.

        `skip` is read at the start of each round, so an endpoint the caller adds to it is not tried in later
        rounds; when every endpoint is skipped the attempts end early.
        """
        for round_index in range(self.rounds):
            bases = [base for base in self.ordered() if base not in skip]
            if not bases:
                return
            delay = self._backoff * 2 ** (round_index - 1) if round_index else 0.0
            for position, base in enumerate(bases):
                yield (delay if position == 0 else 0.0), base

    def mark_down(self, base: str) -> None:
        """Try this endpoint after the others until the cool-down ends."""
        self._down_until[base] = self._clock() + self._cooldown

    def mark_up(self, base: str) -> None:
        """Record that this endpoint answered."""
        self._down_until.pop(base, None)
        self.last_good = base
