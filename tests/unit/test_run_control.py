"""A crew run's control: its events, to subscribers joining at any time."""

from __future__ import annotations

import asyncio
from typing import Any

from crews.runs.control import RunControl


async def _first_events(control: RunControl, count: int) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    async for event in control.events():
        seen.append(event)
        if len(seen) == count:
            break
    return seen


def test_a_follower_joining_after_an_abort_request_learns_it_first() -> None:
    control = RunControl("run-1")
    control.emit({"type": "tokens", "count": 5})
    assert control.request_abort()
    control.emit({"type": "tokens", "count": 6})  # the step under way goes on until its next checkpoint

    seen = asyncio.run(_first_events(control, 2))

    assert [event["type"] for event in seen] == ["abort_requested", "tokens"]
    assert seen[1]["count"] == 6


def test_a_follower_joining_without_an_abort_gets_the_latest_event_alone_first() -> None:
    control = RunControl("run-2")
    control.emit({"type": "tokens", "count": 5})
    control.finish({"type": "run", "status": "ok"})

    seen = asyncio.run(_first_events(control, 5))

    assert [event["type"] for event in seen] == ["run"]
