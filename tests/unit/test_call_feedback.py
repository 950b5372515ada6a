"""What the agent does with a model's calls before running them: invented tools, copied schema words, stuck loops."""

from __future__ import annotations

import json

from agent.call_feedback import (
    as_offered_call,
    earlier_failure,
    other_tool_hint,
    unoffered_call_error,
    without_schema_words,
)
from core.chat import ToolCall, ToolSpec

TAG = {"type": "string"}
TAGS = ToolSpec("tags", "List tags.", {"type": "object", "properties": {"command": TAG, "tag": TAG}})


def test_a_call_of_a_command_named_as_a_tool_is_told_which_tool_takes_it() -> None:
    command = {"type": "string", "enum": ["append", "add_tag", "add_task"]}
    edit_note = ToolSpec("edit_note", "Propose a change.", {"type": "object", "properties": {"command": command}})
    search = ToolSpec("search_notes", "Search.", {"type": "object", "properties": {"query": {"type": "string"}}})

    told = unoffered_call_error(ToolCall("c1", "add_tag", '{"tag": "baking"}'), [search, edit_note])
    unknown = unoffered_call_error(ToolCall("c2", "rm_rf", "{}"), [search, edit_note])

    assert told == "Error: there is no tool 'add_tag'; it is a command of edit_note: call edit_note with " + (
        '"command": "add_tag".'
    )
    assert unknown == "Error: there is no tool 'rm_rf'; the tools are: edit_note, search_notes"


def test_a_call_repeated_word_for_word_after_it_failed_this_turn_is_found_with_its_error() -> None:
    call = {"id": "a", "name": "tags", "arguments": '{"k": "3"}'}
    turn = [
        {"role": "user", "content": "Add the tag baking to the Sourdough note."},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "a", "name": "tags", "content": "Error: invalid arguments for tags"},
    ]
    again = ToolCall("b", "tags", '{"k": "3"}')

    assert earlier_failure(turn, again) == "Error: invalid arguments for tags"
    assert earlier_failure(turn, ToolCall("c", "tags", '{"command": "list_with_counts"}')) is None
    assert earlier_failure([*turn[:2], {**turn[2], "content": "#baking: 2 notes"}], again) is None  # it worked
    assert earlier_failure([*turn, {"role": "user", "content": "and now?"}], again) is None  # another turn


def test_schema_words_copied_into_the_arguments_are_dropped_unless_the_tool_takes_them() -> None:
    # Qwen2.5-Coder 0.5B through the service (recorded), round after round.
    copied = ToolCall("c1", "tags", '{"command": "notes_with_tag", "tag": "ferment", "required": ["command", "tag"]}')
    takes = ToolSpec("bases", "Bases.", {"type": "object", "properties": {"properties": {"type": "object"}}})
    own = ToolCall("c2", "bases", '{"properties": {"status": "done"}}')

    assert json.loads(without_schema_words(copied, [TAGS]).arguments) == {"command": "notes_with_tag", "tag": "ferment"}
    assert without_schema_words(own, [takes]) == own
    assert without_schema_words(copied, []) == copied  # a tool not offered: left for the refusal


def test_a_failed_call_whose_argument_is_another_tools_command_says_which_tool_takes_it() -> None:
    # Qwen2.5-Coder 0.5B through the service (recorded): "add a tag" as a command of the read tool `tags`.
    command = {"type": "string", "enum": ["append", "add_tag"]}
    edit_note = ToolSpec("edit_note", "Propose a change.", {"type": "object", "properties": {"command": command}})
    wrong = ToolCall("c1", "tags", '{"command": "add_tag", "tag": "baking"}')

    assert other_tool_hint(wrong, [TAGS, edit_note]) == (
        ' \'add_tag\' is a command of edit_note: call edit_note with "command": "add_tag".'
    )
    assert other_tool_hint(ToolCall("c2", "tags", '{"command": "list"}'), [TAGS, edit_note]) == ""
    assert other_tool_hint(ToolCall("c3", "edit_note", '{"command": "add_tag"}'), [edit_note]) == ""


EDIT_PARAMETERS = {
    "command": {"type": "string", "enum": ["add_tag", "add_task", "set_property"]},
    **{name: TAG for name in ("path", "content", "heading", "property", "value")},
}
EDIT_NOTE = ToolSpec("edit_note", "Propose a change.", {"type": "object", "properties": EDIT_PARAMETERS})


def test_a_call_named_by_a_command_becomes_that_tools_call_with_its_arguments_where_they_belong() -> None:
    # Recorded with Qwen2.5-Coder 0.5B: add_tag with "tag", set_property with a "properties" object.
    tag = as_offered_call(
        ToolCall("c1", "add_tag", '{"path": "Areas/Cooking/Sourdough.md", "tag": "baking-log"}'), [EDIT_NOTE]
    )
    prop = as_offered_call(
        ToolCall("c2", "set_property", '{"properties": {"status": "active"}, "path": "Balcony.md", "line": 21}'),
        [EDIT_NOTE],
    )

    assert (tag.id, tag.name) == ("c1", "edit_note")
    assert json.loads(tag.arguments) == {
        "command": "add_tag",
        "path": "Areas/Cooking/Sourdough.md",
        "value": "baking-log",
    }
    assert json.loads(prop.arguments) == {
        "command": "set_property",
        "property": "status",
        "value": "active",
        "path": "Balcony.md",
    }


def test_offered_calls_unknown_names_and_commands_of_two_tools_are_left_as_they_are() -> None:
    offered = ToolCall("c1", "edit_note", '{"command": "add_tag"}')
    unknown = ToolCall("c2", "rm_rf", "{}")
    twice = ToolSpec("other", "Also.", {"type": "object", "properties": {"command": EDIT_PARAMETERS["command"]}})

    assert as_offered_call(offered, [EDIT_NOTE]) is offered and as_offered_call(unknown, [EDIT_NOTE]) is unknown
    ambiguous = ToolCall("c3", "add_tag", "{}")
    assert as_offered_call(ambiguous, [EDIT_NOTE, twice]) is ambiguous


def test_commands_joined_as_a_description_lists_them_become_the_first_command() -> None:
    # Recorded with Qwen2.5-Coder 0.5B asked to set a property: the name copied from edit_note's description.
    call = ToolCall("c1", "set_property/remove_property", '{"path": "Renew passport.md", "value": "done"}')

    made = as_offered_call(call, [EDIT_NOTE])

    assert made.name == "edit_note"
    assert json.loads(made.arguments) == {"command": "set_property", "path": "Renew passport.md", "value": "done"}
