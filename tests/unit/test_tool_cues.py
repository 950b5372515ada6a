"""Which tools a message gets: search and read always, the others when it names their subject; schemas stay small."""

from __future__ import annotations

import json

import pytest

from agent.propose.toolbox import WRITE_TOOLS
from agent.tools.cues import cued_specs, is_cued
from agent.tools.registry import READ_TOOLS
from llm_client.completions.wire import tool_to_wire

READ_SPECS = [tool.spec() for tool in READ_TOOLS]
WRITE_SPECS = [tool.spec() for tool in WRITE_TOOLS]


def offered(message: str | None) -> list[str]:
    return [spec.name for spec in cued_specs(READ_TOOLS, READ_SPECS, message)]


def offered_writes(message: str) -> list[str]:
    return [spec.name for spec in cued_specs(WRITE_TOOLS, WRITE_SPECS, message)]


def test_a_plain_question_gets_search_and_read_only() -> None:
    assert offered("How long does the sourdough rest?") == ["search_notes", "read_note"]


@pytest.mark.parametrize(
    ("message", "extra"),
    [
        ("What links to my Garlic note?", ["links"]),
        ("Which notes are tagged #garden?", ["tags"]),
        ("What is the status of the greenhouse project?", ["properties"]),
        ("What is left to do in Projects?", ["tasks"]),
        ("What did I write on 2026-11-04?", ["daily_note"]),
        ("What's in my Inbox folder?", ["vault"]),
        ("Which templates do I have?", ["templates"]),
        ("Show my reading list base", ["bases"]),
        ("Open tasks in today's daily note", ["tasks", "daily_note"]),
    ],
)
def test_the_other_tools_come_when_the_message_names_their_subject(message: str, extra: list[str]) -> None:
    names = offered(message)

    assert names[:2] == ["search_notes", "read_note"]
    assert sorted(names[2:]) == sorted(extra)
    assert names == [name for name in offered(None) if name in names]  # offering order is kept


def test_without_a_message_every_tool_is_offered() -> None:
    assert offered(None) == [tool.name for tool in READ_TOOLS]


@pytest.mark.parametrize(
    ("request_text", "names"),
    [
        ("Add the tag core-plugin to the Word count note.", ["edit_note", "move_note", "delete_note"]),
        ("Log that I ran 5 km today", ["edit_note", "edit_daily_note", "move_note", "delete_note"]),
        ("Add Greenhouse to my Projects base", ["edit_note", "add_base_item", "move_note", "delete_note"]),
    ],
)
def test_write_tools_follow_what_the_request_asks(request_text: str, names: list[str]) -> None:
    # Moves and deletes are always offered with a change: one nobody asked for is proposed, and the edit gate
    # asks for "yes delete" / "yes move" before it applies.
    assert offered_writes(request_text) == names


def test_cues_are_words_or_phrases_not_parts_of_words() -> None:
    assert is_cued(("tag",), "tag this") and not is_cued(("tag",), "a vintage stage")
    assert is_cued(("to do",), "What is left to  do?") and is_cued(("#",), "notes with #garden")


def test_tool_schemas_stay_compact() -> None:
    def chars(specs: list[object]) -> int:
        return sum(len(json.dumps(tool_to_wire(spec))) for spec in specs)  # type: ignore[arg-type]

    # 8,492 and 6,532 characters before issue 10; a plain question now reads only the first two tools.
    assert chars(READ_SPECS) < 6_200 and chars(WRITE_SPECS) < 4_600
    assert chars(cued_specs(READ_TOOLS, READ_SPECS, "How long does the sourdough rest?")) < 1_300
    for spec in [*READ_SPECS, *WRITE_SPECS]:
        assert len(spec.description) < 180, spec.name
        properties = spec.parameters["properties"]
        assert all("default" not in prop or prop["default"] not in ("", []) for prop in properties.values())  # type: ignore[union-attr]
