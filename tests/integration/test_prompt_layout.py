"""What one turn sends the model, over real HTTP: a byte-identical stable prefix, then date, passages and question.

llama.cpp, Ollama, LM Studio and vLLM render the system message and then the tool schemas; when those bytes are the
same from turn to turn they reuse that prefix from their prompt cache and evaluate only what follows (issue 10).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from app.wiring import Services
from core.settings import Settings
from tests.integration.edit_flow_support import (
    PROPOSAL_ID,
    Librarian,
    MovableClock,
    install_clock,
    librarian_factory,
    tool_names,
)
from tests.scripted_llm import ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

# What one plain question may send, in characters of the messages' and tools' JSON: about 2,500 tokens at the
# 3.5 characters per token Qwen2.5's tokenizer gives for these prompts. The layout before issue 10 sent 19,800.
PLAIN_QUESTION_CHARS = 8_000


@pytest.fixture
def served(
    settings: Settings, services: Services, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Librarian, MovableClock]]:
    clock = install_clock(monkeypatch)
    with librarian_factory(settings, services, llm, "files") as factory:
        yield factory.start(), clock


def prefix(body: dict[str, Any]) -> str:
    """Return what a server renders first: the system message and the tool schemas, as sent."""
    return json.dumps([body["messages"][0], body.get("tools")])


def test_the_prefix_is_the_same_bytes_across_turns_and_the_turn_inputs_follow_it(
    served: tuple[Librarian, MovableClock], llm: ScriptedLLMServer
) -> None:
    librarian, clock = served
    llm.add(Turn.text("45 minutes [[Sourdough#Final recipe]]."), Turn.text("42 cloves."), Turn.text("Two."))
    chat = librarian.chat()
    chat.say("How long does the sourdough autolyse rest now?")
    clock.advance(days=1)  # another day: the date changes, the prefix must not
    chat.say("And how many garlic cloves did I plant?")  # told the date: the question before it depends on it
    librarian.chat().say("Which tomato varieties do I grow?")

    bodies = [request.json for request in llm.chat_requests]
    assert len(bodies) == 3 and len({prefix(body) for body in bodies}) == 1
    system = bodies[0]["messages"][0]["content"]
    assert "<note source=" not in system and "Today is" not in system
    latest = [body["messages"][-1]["content"] for body in bodies]
    days = [date.fromisoformat(re.findall(r"^Today is (\d{4}-\d\d-\d\d)", text)[0]) for text in latest[:2]]
    assert days[1] - days[0] == timedelta(days=1) and days[1] == clock.now.date()
    # A question that names no time relative to today is not told the date (rag/answer/time_cues.py).
    assert latest[2].startswith("Notes for this message:") and "Today is" not in latest[2]
    assert all("<note source=" in text for text in latest)
    assert latest[1].endswith("Question: And how many garlic cloves did I plant?")
    assert bodies[1]["messages"][1]["content"] == "How long does the sourdough autolyse rest now?"  # as written
    assert [tool["function"]["name"] for tool in bodies[0]["tools"]] == ["search_notes", "read_note"]


def test_a_plain_question_stays_under_the_size_bound(
    served: tuple[Librarian, MovableClock], llm: ScriptedLLMServer
) -> None:
    librarian, _ = served
    llm.add(Turn.text("14 hours [[Sourdough#Final recipe]]."))

    librarian.chat().say("How long does the sourdough proof in the fridge?")

    body = llm.chat_requests[-1].json
    size = len(json.dumps(body["messages"])) + len(json.dumps(body["tools"]))
    assert size <= PLAIN_QUESTION_CHARS, size
    passages = re.findall(r"<note source=.*?</note>", body["messages"][-1]["content"], re.DOTALL)
    assert 1 <= len(passages) <= 6


def test_write_tools_come_only_with_a_request_for_a_change_and_yes_still_applies_it(
    served: tuple[Librarian, MovableClock], llm: ScriptedLLMServer, vault: Path
) -> None:
    librarian, _ = served
    added = "- Side-dress in March"
    llm.add(
        Turn.text("42 cloves [[Garlic]]."),
        Turn.tool_call("edit_note", {"command": "append", "path": "Garlic", "content": added}),
        Turn.text("I proposed it."),
    )
    chat = librarian.chat()

    chat.say("How many garlic cloves did I plant?")
    shown = chat.say("Add a side-dressing reminder to my Garlic note")

    plain, change = (request.json for request in llm.chat_requests[:2])
    assert "edit_note" not in tool_names(plain) and "You cannot change notes." in plain["messages"][0]["content"]
    assert tool_names(change) == {"search_notes", "read_note", "edit_note", "move_note", "delete_note"}
    assert change["messages"][-1]["content"].endswith("Request: Add a side-dressing reminder to my Garlic note")
    # A request for a change is told the date though it names none (a task's due day, today's daily note).
    assert change["messages"][-1]["content"].startswith("Today is ")
    assert not plain["messages"][-1]["content"].startswith("Today is ")
    assert re.search(PROPOSAL_ID, shown) and added not in (vault / "Areas/Garden/Garlic.md").read_text()
    assert chat.say("yes").startswith("Applied 1 change:")  # the gate, not the model, answers the yes
    assert added in (vault / "Areas/Garden/Garlic.md").read_text()
    assert len(llm.chat_requests) == 3
