"""Requests cut short at shutdown: counted while they run, told why (503) when cancelled before answering."""

from __future__ import annotations

import asyncio
import json

import pytest
from starlette.types import Message, Receive, Scope, Send

from app.http.in_flight import InFlight, TrackRequests

HTTP: Scope = {"type": "http", "method": "POST", "path": "/v1/chat/completions", "headers": []}


async def never_answers(_scope: Scope, _receive: Receive, _send: Send) -> None:
    await asyncio.Event().wait()  # a chat turn waiting on a slow model


async def starts_a_stream(_scope: Scope, _receive: Receive, send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"data: one\n\n", "more_body": True})
    await asyncio.Event().wait()


async def receive() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


def cut_short(app: object) -> tuple[list[Message], InFlight, list[int]]:
    """Run `app` behind TrackRequests, cancel it as uvicorn does after its grace; return what was sent."""
    in_flight = InFlight()
    sent: list[Message] = []
    running: list[int] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def run() -> None:
        task = asyncio.create_task(TrackRequests(app, in_flight)(HTTP, receive, send))  # type: ignore[arg-type]
        await asyncio.sleep(0.05)
        running.append(in_flight.running)
        task.cancel()
        await task  # ends: the cancel was answered, not raised
        running.append(in_flight.running)
        await in_flight.settled(timeout=1)

    asyncio.run(run())
    return sent, in_flight, running


def test_a_request_cancelled_before_its_response_gets_a_503_saying_why() -> None:
    sent, _, running = cut_short(never_answers)

    assert running == [1, 0]
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 503
    error = json.loads(sent[1]["body"])["error"]
    assert error["code"] == "shutting_down" and error["type"] == "service_unavailable_error"


def test_a_response_under_way_is_left_unfinished_so_it_cannot_read_as_whole() -> None:
    sent, _, running = cut_short(starts_a_stream)

    assert running == [1, 0]
    assert [message.get("status") for message in sent if message["type"] == "http.response.start"] == [200]
    assert sent[-1] == {"type": "http.response.body", "body": b"data: one\n\n", "more_body": True}  # nothing after


def test_settled_waits_for_running_requests_then_gives_up_saying_how_many(caplog: pytest.LogCaptureFixture) -> None:
    in_flight = InFlight()

    async def run() -> float:
        in_flight.running = 1
        loop = asyncio.get_running_loop()
        loop.call_later(0.1, lambda: setattr(in_flight, "running", 0))
        start = loop.time()
        await in_flight.settled(timeout=5)
        waited = loop.time() - start
        in_flight.running = 2
        await in_flight.settled(timeout=0.05)
        return waited

    waited = asyncio.run(run())

    assert 0.05 < waited < 5  # it waited for the request, not for its whole timeout
    assert "2 request(s) still running" in caplog.text
