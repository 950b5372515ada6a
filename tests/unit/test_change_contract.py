"""The change contract's pure parts: which operations a request's words call for, the schema, validation, calls."""

from __future__ import annotations

from datetime import date

import jsonschema
import pytest

from agent.change_contract.candidates import Candidate, CandidateTask, Findings
from agent.change_contract.findings import NoteTask
from agent.change_contract.operations import GENERAL, asks_for_more, cued_operations, tool_call
from agent.change_contract.proposer import contract_prompt
from agent.change_contract.request_values import new_folder, quoted_values, values_after
from agent.change_contract.request_words import given_names, gives_text, template_phrase
from agent.change_contract.schema import contract_schema, offered, response_format, validate
from llm_client.replies.reply_json import OutputInvalid

SOURDOUGH = Candidate("Areas/Cooking/Sourdough.md", "Sourdough", ("Final recipe", "Failures worth remembering"))
GARLIC = Candidate("Areas/Garden/Garlic.md", "Garlic")
TODAY = Candidate("Daily/2026-12-03.md", "daily note 2026-12-03", day=date(2026, 12, 3), exists=False)


def findings(
    *candidates: Candidate,
    quoted: tuple[str, ...] = (),
    folders: tuple[str, ...] = (),
    names: tuple[str, ...] = (),
    task: str = "",
) -> Findings:
    return Findings(candidates=candidates, quoted=quoted, folders=folders, is_named=True, names=names, task=task)


@pytest.mark.parametrize(
    ("request_text", "operations"),
    [
        ("Add the tag baking-log to the Sourdough note.", ["add_tag"]),
        ("Remove the tag baking from Sourdough", ["remove_tag"]),
        ('Add a task "Tag the photos" to the Garlic note.', ["add_task"]),  # words inside quotes do not count
        ("Set the property status to active in the Balcony Irrigation note.", ["set_property"]),
        ('Append "Bake 32" to the Failures worth remembering section of the Sourdough note.', ["append_to_section"]),
        ('Create a note called Plum Pruning with the text "Prune in August."', ["create_note"]),
        ("In the How To folder, create a note called Plumbing Plan", ["create_note"]),
        ("Move the Garlic note to Archive", ["move_note"]),
        ("Delete the Podcast to try note", ["delete_note"]),
        ("Add a line about watering to my Garlic note", list(GENERAL)),
        ("Remind me to water the garlic tomorrow", ["add_task"]),
    ],
)
def test_the_request_words_narrow_the_operations_offered(request_text: str, operations: list[str]) -> None:
    assert cued_operations(request_text) == operations


@pytest.mark.parametrize(
    ("request_text", "operations"),
    [
        ('Mark the task "send Steph the mockups" as done in 2023-09-12 Meeting with Steph', ["complete_task"]),
        ("Tick off the battery task in the smoke detector note", ["complete_task"]),
        ("Hake die Aufgabe Batterien kaufen ab", ["complete_task"]),
        ("Reopen the passport photo task", ["reopen_task"]),
        ('Add a task "Mark the beds as done" to the Garlic note', ["add_task"]),  # words inside quotes
        ("Add a task to Garlic: check off the beds", ["add_task"]),  # the words after a colon are the text
        ("Add a task to Garlic: compare the price range in the Archive", ["add_task"]),
    ],
)
def test_a_task_marked_done_or_reopened_is_no_new_task(request_text: str, operations: list[str]) -> None:
    assert cued_operations(request_text) == operations


def test_a_task_to_mark_is_one_of_the_notes_own_tasks_in_the_right_state() -> None:
    tasks = (
        CandidateTask("Buy three 9 V batteries 🔽", "open", 15),
        CandidateTask("Test the alarm", "done", 16),
        CandidateTask("Call the landlord", "other", 17),  # in progress: completed by marking it done, not a toggle
    )
    smoke = Candidate("TaskNotes/Replace smoke detector batteries.md", "Replace smoke detector batteries", tasks=tasks)
    found = findings(smoke)

    assert offered(["complete_task", "reopen_task"], found) == ["complete_task", "reopen_task"]
    schema = contract_schema(["complete_task"], found, "Mark the battery task as done")
    assert schema["properties"]["task"] == {
        "type": "string",
        "enum": ["Buy three 9 V batteries 🔽", "Call the landlord"],
    }
    assert contract_schema(["reopen_task"], found, "x")["properties"]["task"]["enum"] == ["Test the alarm"]
    prompt = contract_prompt(["complete_task"], found)
    assert "open tasks: Buy three 9 V batteries 🔽; in-progress or other tasks: Call the landlord" in prompt
    assert "Test the alarm" not in prompt

    reply = {"operation": "complete_task", "target": smoke.path, "task": "Buy three 9 V batteries 🔽"}
    contract = validate(reply, ["complete_task"], found, "Mark the battery task as done")
    assert tool_call(contract.operation, contract.values, contract.target) == (
        "edit_note",
        {"command": "complete_task", "path": smoke.path, "line": 15, "content": "Buy three 9 V batteries 🔽"},
    )
    in_progress = validate({**reply, "task": "Call the landlord"}, ["complete_task"], found, "Mark it done")
    assert tool_call(in_progress.operation, in_progress.values, in_progress.target)[1]["line"] == 17
    reopened = validate({**reply, "operation": "reopen_task", "task": "Test the alarm"}, ["reopen_task"], found, "x")
    assert tool_call(reopened.operation, reopened.values, reopened.target)[1]["command"] == "toggle_task"
    with pytest.raises(OutputInvalid, match="'task' must be one of"):
        validate({**reply, "task": "Test the alarm"}, ["complete_task"], found, "Mark it done")
    other = Candidate("Areas/Garden/Garlic.md", "Garlic", tasks=(CandidateTask("Buy straw", "open", 9),))
    with pytest.raises(OutputInvalid, match="'Buy straw' is not a task of TaskNotes/Replace smoke detector"):
        validate({**reply, "task": "Buy straw"}, ["complete_task"], findings(smoke, other), "Mark it done")
    assert offered(["complete_task"], findings(GARLIC)) == []  # no open task to mark


def test_a_task_written_out_without_its_tags_is_the_one_offered() -> None:
    # obsidian-tasks-demo (stop 58): every task holds the global filter, so "Bake a cake" wrote out none of ACME's
    # "#task Bake a cake 🔼 🛫 2021-11-25", all were offered, and the 0.5B marked another one done.
    tasks = (
        CandidateTask("#task Cook dinner ⏫ ⏳ 2021-11-23", "open", 9),
        CandidateTask("#task Bake a cake 🔼 🛫 2021-11-25", "open", 10),
        CandidateTask("This checklist item is not a task", "open", 15),
    )
    acme = Candidate("ACME.md", "ACME", tasks=tasks)

    schema = contract_schema(["complete_task"], findings(acme), "Mark the task Bake a cake in ACME as done")

    assert schema["properties"]["task"]["enum"] == ["#task Bake a cake 🔼 🛫 2021-11-25"]


def test_a_task_note_named_is_completed_by_its_status_and_a_checkbox_written_out_by_its_line() -> None:
    photos = CandidateTask("Get new biometric passport photos taken 📅 2020-03-01 ⏫", "open", 14)
    passport = Candidate(
        "TaskNotes/Renew passport.md",
        "Renew passport",
        tasks=(photos,),
        note_task=NoteTask("Renew passport", "open", "status", "done", "open"),
    )
    found = findings(passport)

    def choices(request: str) -> list[str]:
        return list(contract_schema(["complete_task"], found, request)["properties"]["task"]["enum"])

    assert choices("Mark Renew passport as done") == ["Renew passport"]
    assert choices("Mark get new biometric passport photos taken as done in Renew passport") == [photos.text]
    assert choices("Tick off the passport task") == [photos.text, "Renew passport"]  # the note's own task last
    # Named as the place of another task, the note is not the task asked for.
    assert choices("Tick off the photo task in the Renew passport note") == [photos.text]
    assert choices("Tick off the photo task in Renew passport") == [photos.text]
    reply = {"operation": "complete_task", "target": passport.path, "task": "Renew passport"}
    contract = validate(reply, ["complete_task"], found, "Mark Renew passport as done")
    assert tool_call(contract.operation, contract.values, contract.target) == (
        "edit_note",
        {"path": passport.path, "command": "set_property", "property": "status", "value": "done"},
    )
    done = Candidate(
        "T/Cancel.md", "Cancel", note_task=NoteTask("Cancel streaming", "done", "state", "finished", "todo")
    )
    assert offered(["complete_task", "reopen_task"], findings(done)) == ["reopen_task"]
    reopened = validate(
        {"operation": "reopen_task", "target": done.path, "task": "Cancel streaming"},
        ["reopen_task"],
        findings(done),
        "Reopen Cancel streaming",
    )
    assert tool_call(reopened.operation, reopened.values, reopened.target)[1] == {
        "path": done.path,
        "command": "set_property",
        "property": "state",
        "value": "todo",
    }


@pytest.mark.parametrize(
    ("request_text", "more"),
    [
        ("Set the rating of Blade Runner to 9 and add the tag cyberpunk to it", True),
        ("Add the tag classic to Catan and to Futurama", True),
        ("Tag Kyoto and the note Tokyo with japan", True),
        ("Füge den Tag reise zu Kyoto hinzu und setze status auf done", True),
        ("Create a note called Tips and Tricks", False),
        ('Add a task "buy salt and pepper and add flour" to the Garlic note', False),  # inside the quotes
        ("Add salt and pepper to the shopping list note", False),
        ("Add the tag baking-log to the Sourdough note.", False),
        ("Create a note called Research and Notes", False),  # one name
        ("Add the tag x to Garlic and link it from the Sourdough note", True),
    ],
)
def test_a_second_change_joined_to_the_first_is_noticed(request_text: str, more: bool) -> None:
    assert asks_for_more(request_text) is more


@pytest.mark.parametrize(
    ("request_text", "name", "template", "has_text"),
    [
        ("Create a note called Dune in the References folder using the Movie Template", "Dune", "Movie", False),
        ("Create a note called Kickoff from the template Meeting", "Kickoff", "Meeting", False),
        ("Create a note called Sci-fi MOC linking my notes about science fiction", "Sci-fi MOC", "", False),
        ('Create a note called Plum Pruning with the text "Prune in August."', "Plum Pruning", "", True),
        ("Create a note called Ideas: garden, bread", "Ideas", "", True),
        ("Create a note called Ideas", "Ideas", "", False),
        ("Create a note called Kyoto with the Travel template and the text hello", "Kyoto", "Travel", True),
        ("Create a note called Groceries listing milk and eggs", "Groceries", "", True),
        # "Template" capitalised inside a name is part of it; the vault decides where it has such a template
        ("Create a note called Notes from the Template Workshop", "Notes from the Template Workshop", "", False),
        ('Create a note called "Notes from the Template Workshop"', "Notes from the Template Workshop", "", False),
        (
            "Create a note named Notes from the Template Workshop with the text hi",
            "Notes from the Template Workshop",
            "",
            True,
        ),
        ("Create a note called Kickoff from the template Meeting with the text hi", "Kickoff", "Meeting", True),
    ],
)
def test_a_new_notes_name_template_and_whether_it_is_given_text_are_read_from_the_request(
    request_text: str, name: str, template: str, has_text: bool
) -> None:
    assert given_names(request_text) == (name,)
    assert (template_phrase(request_text), gives_text(request_text)) == (template, has_text)


@pytest.mark.parametrize(
    ("request_text", "folder"),
    [
        ("Archive the Catan note", "Archive"),
        ("Move Catan into a new folder called Games", "Games"),
        ('Move the Catan note into a new folder "Board games".', "Board games"),
        ("Move Catan to the Board Games folder.", "Board Games"),
        ("Move Catan to Archive", ""),  # no folder word: an existing folder or nothing
        ("Add the tag archive to Catan", ""),
    ],
)
def test_a_move_may_name_a_folder_to_make(request_text: str, folder: str) -> None:
    assert new_folder(request_text) == folder


@pytest.mark.parametrize(
    ("request_text", "field", "values"),
    [
        ("Add the alias 京都 to the Kyoto note.", "alias", ("京都",)),
        ('Add the alias "Old Kyoto" to Kyoto', "alias", ("Old Kyoto",)),
        ("Add the tag favorite to The Machine Stops.", "tag", ("favorite",)),
        ("Ajoute le tag lecture à la note The Machine Stops", "tag", ("lecture",)),
        ("Remove the tag #draft from Garlic", "tag", ("draft",)),
        ("Add an alias to Garlic: Knoblauch", "alias", ()),  # the value is elsewhere: not bound
        ("Give the Kyoto note an alias of 京都", "alias", ()),
    ],
)
def test_a_tag_or_alias_is_the_value_right_after_its_word(request_text: str, field: str, values: tuple[str]) -> None:
    assert values_after(request_text, field) == values


def test_the_alias_is_bound_to_the_value_the_request_gives_it() -> None:
    # The 0.5B gave the alias "Kyoto" (the note's own name, in the request too) for "Add the alias 京都 ...".
    kyoto = Candidate("References/Kyoto.md", "Kyoto")
    schema = contract_schema(["add_alias"], findings(kyoto), "Add the alias 京都 to the Kyoto note.")
    assert schema["properties"]["alias"] == {"type": "string", "enum": ["京都"]}
    spaced = contract_schema(["add_tag"], findings(kyoto), "Tag the Kyoto note with travel")  # no tag after "Tag"
    assert "pattern" in spaced["properties"]["tag"]


def test_quoted_values_are_found_in_straight_curly_and_german_quotes() -> None:
    assert quoted_values('Add "a b" and “c d” and „e f“ and "a b" again') == ("a b", "c d", "e f")


@pytest.mark.parametrize(
    ("request_text", "names"),
    [
        ('Create a note called Plum Pruning with the text "Prune the plum tree in August."', ("Plum Pruning",)),
        ('Create a note called "Plum Pruning" with the text "Prune in August."', ("Plum Pruning",)),
        ("Create a note called [[Plum Pruning]]", ("Plum Pruning",)),
        ("Make a new note named Reading List: Dune, Hyperion", ("Reading List",)),
        ("Create a note titled Garden Plan 2027.", ("Garden Plan 2027",)),
        ("Create a note called v1.2 plans containing the release steps", ("v1.2 plans",)),
        ("Create a note called Plum Pruning note", ("Plum Pruning",)),
        ("Create a note called Plum Pruning in the Garden folder", ("Plum Pruning",)),
        ('Create a note called Plumbing Plan in the How To folder with the text "x"', ("Plumbing Plan",)),
        ("Create a note called Living in Berlin", ("Living in Berlin",)),
        ('Erstelle eine Notiz namens Pflaumen mit dem Text "Im August"', ("Pflaumen",)),
        ("Rename the Garlic note to Garlic 2026", ("Garlic 2026",)),
        ("Rename Notes to self to Inbox notes", ("self to Inbox notes", "Inbox notes")),  # the model picks
        ("Rename Draft to Back to School", ("Back to School", "School")),
        ("Create a note called Meeting with Bob", ("Meeting with Bob",)),  # offered "Meeting" too, the 0.5B took it
        ("Create a note called Mr. Smith", ("Mr. Smith",)),
        ('Erstelle eine Notiz namens Einkauf der Woche mit dem Text "x"', ("Einkauf der Woche",)),
        ("Erstelle eine Notiz namens Pflanzplan im Ordner Garten", ("Pflanzplan",)),
        ("Create a note called What is RAG?", ()),  # a name Obsidian refuses is never offered
        ('Rename [[Garlic]] as "Knoblauch"', ("Knoblauch",)),
        ("Create a MOC of my notes on baking", ()),
    ],
)
def test_the_name_a_request_gives_a_note_is_found(request_text: str, names: tuple[str, ...]) -> None:
    assert given_names(request_text) == names


def test_a_given_name_binds_the_name_and_is_no_text_to_copy() -> None:
    request = 'Create a note called "Plum Pruning" with the text "Prune the plum tree in August."'
    found = findings(quoted=quoted_values(request), names=given_names(request))
    schema = contract_schema(["create_note"], found, request)
    assert schema["properties"]["name"]["enum"] == ["Plum Pruning"]
    assert schema["properties"]["text"]["enum"] == ["Prune the plum tree in August."]
    # The real 0.5B's reply to this request (run of 2026-12-03), rejected where the name was only a pattern.
    invented = {"operation": "create_note", "name": "Inbox Prune the plum tree in August, after the harvest.",
                "text": "Prune the plum tree in August."}  # fmt: skip
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(invented, schema)
    unnamed = 'Create a note with the text "Prune in August."'
    name = contract_schema(["create_note"], findings(quoted=quoted_values(unnamed)), unnamed)["properties"]["name"]
    assert "pattern" in name and "enum" not in name


def test_a_heading_the_request_names_is_the_only_heading_allowed_and_the_title_heading_yields() -> None:
    auckland = Candidate("Tests/Pacific-Auckland.md", "Pacific-Auckland", ("Pacific-Auckland", "Run the test", "Notes"))
    request = 'Append "Check the timezone first." to the "Run the test" section of Pacific-Auckland'
    schema = contract_schema(["append_to_section"], findings(auckland, quoted=quoted_values(request)), request)
    assert schema["properties"]["heading"]["enum"] == ["Run the test"]
    named_by_title = "Append a line to the Pacific-Auckland section of Pacific-Auckland"
    heading = contract_schema(["append_to_section"], findings(auckland), named_by_title)["properties"]["heading"]
    assert heading["enum"] == ["Pacific-Auckland"]  # the only heading named
    unnamed = contract_schema(["append_to_section"], findings(auckland), "Append it to the end")["properties"]
    assert unnamed["heading"]["enum"] == list(auckland.headings)
    text = 'Append "see the notes" to the run the test section of Pacific-Auckland'  # quoted text names no heading
    heading = contract_schema(["append_to_section"], findings(auckland), text)["properties"]["heading"]
    assert heading["enum"] == ["Run the test"]


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
    # The model's "Books" for the request's "books": the tag is written as the user spelled it.
    cased = validate(
        {"operation": "add_tag", "target": SOURDOUGH.path, "tag": "Books"}, ["add_tag"], found, "Add the tag books"
    )
    assert cased.values == {"tag": "books"}
    # Written as the model wrote it when the request holds it so, not as a note's name spells it.
    garden = validate(
        {"operation": "add_tag", "target": SOURDOUGH.path, "tag": "garden"},
        ["add_tag"],
        found,
        "In the Garden Plan 2027 note, add the tag garden",
    )
    assert garden.values == {"tag": "garden"}


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
    assert tool_call("create_note", {"name": "Plum", "text": "Prune", "folder": "Areas/Garden"}, None)[1] == {
        "command": "create",
        "path": "Areas/Garden/Plum",
        "content": "Prune",
    }
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


def test_a_new_tasks_words_found_by_code_are_the_only_text_the_model_may_give() -> None:
    request = "Add a task to call the plumber to today's daily note"
    found = findings(TODAY, task="call the plumber")
    schema = contract_schema(["add_task"], found, request)

    assert schema["properties"]["text"] == {"type": "string", "enum": ["call the plumber"]}
    with pytest.raises(OutputInvalid, match="text"):
        validate({"operation": "add_task", "target": TODAY.path, "text": "call plumber today's daily note"},
                 ["add_task"], found, request)  # fmt: skip
    contract = validate({"operation": "add_task", "target": TODAY.path, "text": "call the plumber"}, ["add_task"],
                        found, request)  # fmt: skip
    assert contract.values["text"] == "call the plumber"


def test_a_task_paired_with_another_note_found_is_marked_in_the_one_note_holding_it() -> None:
    potatoes = CandidateTask("Order seed potatoes 📅 2027-02-01", "open", 21)
    daily = Candidate("Daily/2026-11-02.md", "daily note 2026-11-02", tasks=(potatoes,))
    inventory = Candidate(
        "Areas/Garden/Seed Inventory.md", "Seed Inventory", tasks=(CandidateTask("Sow peas", "open", 4),)
    )
    found = Findings(candidates=(inventory, daily), quoted=(), folders=(), is_named=False)
    request = "Mark the task 'Order seed potatoes' as done"
    # The 1.5B's reply, twice: the daily note's task, the inventory as its target.
    reply = {"operation": "complete_task", "target": inventory.path, "task": potatoes.text}

    contract = validate(reply, ["complete_task"], found, request)

    assert tool_call(contract.operation, contract.values, contract.target) == (
        "edit_note",
        {"command": "complete_task", "path": daily.path, "line": 21, "content": potatoes.text},
    )
    # A note the request names is the one meant: its lacking the task is said, not mended by another note.
    named = Findings(candidates=(inventory, daily), quoted=(), folders=(), is_named=True)
    with pytest.raises(OutputInvalid, match="is not a task of Areas/Garden/Seed Inventory.md"):
        validate(reply, ["complete_task"], named, "Mark 'Order seed potatoes' as done in the Seed Inventory")
    twice = Candidate("Daily/2026-11-03.md", "daily note 2026-11-03", tasks=(potatoes,))  # which one is not known
    both = Findings(candidates=(inventory, daily, twice), quoted=(), folders=(), is_named=False)
    with pytest.raises(OutputInvalid, match="is not a task of Areas/Garden/Seed Inventory.md"):
        validate(reply, ["complete_task"], both, request)


def test_a_property_value_keeps_the_requests_spelling_and_a_composed_one_stays() -> None:
    request = "Set the status of the Garlic note to paused"
    reply = {"operation": "set_property", "target": GARLIC.path, "property": "status", "value": "Paused"}

    contract = validate(reply, ["set_property"], findings(GARLIC), request)

    assert contract.values["value"] == "paused"  # the 1.5B wrote "Paused"; the note's other values are lower case
    composed = validate({**reply, "value": "2026-12-06"}, ["set_property"], findings(GARLIC), "Set started to today")
    assert composed.values["value"] == "2026-12-06"  # not in the request's words: kept as the model wrote it
