"""A consumer cancelled by an anyio cancel scope (as sse-starlette does on disconnect) stops a LangGraph run."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, TypedDict

import anyio
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph

from agent.cancellation import cancellable, streams_unwound


class State(TypedDict, total=False):
    done: bool


def slow_graph(events: list[str]) -> Any:
    async def slow(state: State) -> State:
        write = get_stream_writer()
        try:
            for step in range(200):
                write({"step": step})
                await asyncio.sleep(0.01)
        except asyncio.CancelledError:
            events.append("node cancelled")
            raise
        events.append("node finished")
        return {"done": True}

    builder: StateGraph[State] = StateGraph(State)
    builder.add_node("slow", slow)
    builder.add_edge(START, "slow")
    builder.add_edge("slow", END)
    return builder.compile(checkpointer=InMemorySaver())


async def consume_under_anyio(stream: AsyncIterator[Any], events: list[str]) -> None:
    started = anyio.Event()

    async def consume() -> None:
        async for _ in stream:
            started.set()

    async with anyio.create_task_group() as group:
        group.start_soon(consume)
        await started.wait()  # the node is running and streaming
        group.cancel_scope.cancel()
    for _ in range(500):  # up to 5 s on a loaded machine; no timing is asserted
        if events:
            break
        await asyncio.sleep(0.01)


def test_an_anyio_cancelled_consumer_stops_the_graph() -> None:
    events: list[str] = []
    graph = slow_graph(events)

    async def answer() -> AsyncIterator[Any]:  # the answerer's layer between the edge and the graph
        config = {"configurable": {"thread_id": "t"}}
        async for chunk in cancellable(graph.astream({}, config, stream_mode="custom", durability="exit")):
            yield chunk

    asyncio.run(consume_under_anyio(answer(), events))

    # The whole service's case (sse-starlette, the agent, a streaming model) is covered end to end in
    # tests/integration/test_agent_e2e.py; without `cancellable` the model call ran on there.
    assert events == ["node cancelled"]


def test_values_and_errors_pass_through_unchanged() -> None:
    async def numbers() -> AsyncIterator[int]:
        yield 1
        yield 2
        raise ValueError("broken stream")

    async def run() -> list[int]:
        seen = []
        with pytest.raises(ValueError, match="broken stream"):
            async for value in cancellable(numbers()):
                seen.append(value)
        return seen

    assert asyncio.run(run()) == [1, 2]


def test_streams_unwound_waits_for_a_cancelled_streams_clean_up() -> None:
    # A cancelled chat turn writes its checkpoint in the stream's own task, after its consumer has gone.
    cleaned: list[str] = []

    async def source() -> AsyncIterator[int]:
        try:
            yield 1
            await asyncio.sleep(60)
        finally:
            await asyncio.sleep(0.2)  # the checkpoint write
            cleaned.append("done")

    async def run() -> list[str]:
        stream = cancellable(source())
        assert await anext(stream) == 1
        await stream.aclose()  # the consumer stops: the producer is cancelled, not awaited
        before = list(cleaned)
        await streams_unwound(timeout=5)
        return [*before, *cleaned]

    assert asyncio.run(run()) == ["done"]
