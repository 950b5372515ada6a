"""The change contract's pure parts: which operations a request's words call for, the schema, validation, calls."""

from __future__ import annotations

from datetime import date

import jsonschema
import pytest

from agent.change_contract.candidates import Candidate, Findings, quoted_values
from agent.change_contract.operations import GENERAL, cued_operations, tool_call
from agent.change_contract.proposer import contract_prompt
from agent.change_contract.schema import contract_schema, offered, response_format, validate
from llm_client.reply_json import OutputInvalid

SOURDOUGH = Candidate("Areas/Cooking/Sourdough.md", "Sourdough", ("Final recipe", "Failures worth remembering"))
GARLIC = Candidate("Areas/Garden/Garlic.md", "Garlic")
TODAY = Candidate("Daily/2026-12-03.md", "daily note 2026-12-03", day=date(2026, 12, 3), exists=False)


def findings(*candidates: Candidate, quoted: tuple[str, ...] = (), folders: tuple[str, ...] = ()) -> Findings:
    return Findings(candidates=candidates, quoted=quoted, folders=folders, is_named=True)


@pytest.mark.parametrize(
    ("request_text", "operations"),
    [
        ("Add the tag baking-log to the Sourdough note.", ["add_tag"]),
        ("Remove the tag baking from Sourdough", ["remove_tag"]),
        ('Add a task "Tag the photos" to the Garlic note.', ["add_task"]),  # words inside quotes do not count
        ("Set the property status to active in the Balcony Irrigation note.", ["set_property"]),
        ('Append "Bake 32" to the Failures worth remembering section of the Sourdough note.', ["append_to_section"]),
        ('Create a note called Plum Pruning with the text "Prune in August."', ["create_note"]),
        ("Move the Garlic note to Archive", ["move_note"]),
        ("Delete the Podcast to try note", ["delete_note"]),
        ("Add a line about watering to my Garlic note", list(GENERAL)),
    ],
)
def test_the_request_words_narrow_the_operations_offered(request_text: str, operations: list[str]) -> None:
    assert cued_operations(request_text) == operations


def test_quoted_values_are_found_in_straight_curly_and_german_quotes() -> None:
    assert quoted_values('Add "a b" and “c d” and „e f“ and "a b" again') == ("a b", "c d", "e f")


def test_the_schema_binds_the_target_to_the_candidates_and_the_text_to_the_quoted_strings() -> None:
    found = findings(SOURDOUGH, GARLIC, quoted=("Buy straw",))
    schema = contract_schema(["add_task", "add_tag"], found, "Add a task")
    task, tag = schema["anyOf"]
    assert task["properties"]["operation"]["enum"] == ["add_task"]
    assert task["properties"]["target"]["enum"] == [SOURDOUGH.path, GARLIC.path]
    assert task["properties"]["text"]["enum"] == ["Buy straw"] and task["additionalProperties"] is False
    assert tag["properties"]["tag"]["pattern"].startswith("^[^\\s#")
    assert response_format(schema)["json_schema"]["schema"] is schema
    jsonschema.Draft202012Validator.check_schema(schema)


def test_operations_without_a_possible_target_or_heading_are_not_offered() -> None:
    assert offered(["add_tag", "append", "append_to_section"], findings(TODAY)) == ["append"]  # a missing daily note
    assert offered(["append_to_section", "move_note"], findings(SOURDOUGH)) == ["append_to_section"]  # no folder
    assert offered(["add_tag"], findings()) == []


def test_a_valid_reply_becomes_a_contract_with_the_tag_cleaned() -> None:
    found = findings(SOURDOUGH)
    contract = validate(
        {"operation": "add_tag", "target": SOURDOUGH.path, "tag": " #baking-log"}, ["add_tag"], found, "tag baking-log"
    )
    assert (contract.operation, contract.target, contract.values) == ("add_tag", SOURDOUGH, {"tag": "baking-log"})


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (["add_tag"], "one JSON object"),
        ({"operation": "delete_note", "target": SOURDOUGH.path}, "'operation' must be one of: add_tag"),
        ({"operation": "add_tag", "target": "Secret/Other.md", "tag": "x"}, "'target' must be one of"),
        ({"operation": "add_tag", "target": SOURDOUGH.path, "tag": "two words"}, "'tag' has characters"),
        ({"operation": "add_tag", "target": SOURDOUGH.path, "tag": "invented"}, "copied from the request"),
        ({"operation": "add_tag", "target": SOURDOUGH.path}, "'tag' is a required property"),
    ],
)
def test_an_invalid_reply_is_refused_with_a_reason_the_repair_prompt_can_quote(reply: object, message: str) -> None:
    with pytest.raises(OutputInvalid, match=message):
        validate(reply, ["add_tag"], findings(SOURDOUGH), "Add the tag x and two words to Sourdough")


def test_a_heading_must_belong_to_the_chosen_target() -> None:
    found = findings(SOURDOUGH, Candidate("Areas/Cooking/Rye.md", "Rye", ("Starter",)), quoted=("Bake 32",))
    reply = {"operation": "append_to_section", "target": SOURDOUGH.path, "heading": "Starter", "text": "Bake 32"}
    with pytest.raises(OutputInvalid, match="'Starter' is not a heading of Areas/Cooking/Sourdough.md"):
        validate(reply, ["append_to_section"], found, 'Append "Bake 32" under Starter')


def test_the_tool_call_is_built_by_code_from_the_contract() -> None:
    assert tool_call("add_tag", {"tag": "x"}, SOURDOUGH) == (
        "edit_note",
        {"path": SOURDOUGH.path, "command": "add_tag", "value": "x"},
    )
    assert tool_call("add_task", {"text": "Water"}, TODAY) == (
        "edit_daily_note",
        {"command": "add_task", "date": "2026-12-03", "content": "Water"},
    )
    assert tool_call("create_note", {"name": "Plum", "text": "Prune"}, None) == (
        "edit_note",
        {"command": "create", "path": "Plum", "content": "Prune"},
    )
    assert tool_call("move_note", {"folder": "Archive"}, GARLIC) == (
        "move_note",
        {"path": GARLIC.path, "new_path": "Archive/"},
    )


def test_the_prompt_lists_only_the_operations_and_candidates_offered() -> None:
    prompt = contract_prompt(["add_task"], findings(TODAY, GARLIC))
    assert "- add_task:" in prompt and "add_tag" not in prompt
    assert "- Daily/2026-12-03.md: daily note 2026-12-03 (does not exist yet" in prompt
    assert "- Areas/Garden/Garlic.md: Garlic" in prompt
