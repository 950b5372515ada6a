"""Change requests through POST /v1/chat/completions by change contract: the golden set's edits from the 0.5B's
recorded replies, the repair round, a plain "could not" that writes nothing, and an endpoint refusing the schema.

The fixtures in tests/fixtures/change_contract_replies/ are real replies of Qwen2.5-Coder 0.5B (Q4_K_M GGUF behind
llama.cpp's llama-server, temperature 0.2): `python -m bench.recording_proxy --upstream http://127.0.0.1:8081
--port 18091 --out DIR`, then `python -m bench.answer_quality --kind edit --llm http://127.0.0.1:18091/v1` (which
serves the librarian over a copy of sample_vault with LLM_TOOLS=auto: the warm-up probe saw the call written as
text, so each change went through a contract). Each file is one recorded model call: the request the service sent
(system prompt, request, `response_format`) and the server's whole reply (`body`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.change_contract.proposer import ONE_CHANGE
from agent.tools.reader import local_now
from app.wiring import Services
from core.settings import Settings
from tests.integration.edit_flow_support import LibrarianFactory, librarian_factory
from tests.recorded_replies import load_recording
from tests.scripted_llm import ScriptedLLMServer, Turn
from tests.vault_state import vault_hashes

FIXTURES = Path(__file__).parents[1] / "fixtures" / "change_contract_replies"
SOURDOUGH = "Areas/Cooking/Sourdough.md"
GARLIC = "Areas/Garden/Garlic.md"
# (fixture, path proposed, diff line added): the golden set's kind: edit items (bench/golden/sample_vault.yaml).
GOLDEN = [
    ("tag-sourdough", SOURDOUGH, "+  - baking-log"),
    ("task-garlic", GARLIC, "+- [ ] Buy straw for the garlic mulch"),
    ("property-irrigation", "Projects/Balcony Irrigation.md", "+status: active"),
    ("append-sourdough-failure", SOURDOUGH, "+Bake 32: a 16 hour cold retard was still fine."),
    ("create-plum-pruning", "Inbox/Plum Pruning.md", "+Prune the plum tree in August, after the harvest."),
]


@pytest.fixture
def factory(settings: Settings, services: Services, llm: ScriptedLLMServer) -> Iterator[LibrarianFactory]:
    services.reindexer.run_once()  # retrieval hits are the candidates when a request names no note
    with librarian_factory(settings, services, llm, "files") as made:
        yield made


@pytest.mark.parametrize(("name", "path", "added"), GOLDEN, ids=[name for name, _, _ in GOLDEN])
def test_the_golden_edits_are_proposed_from_the_recorded_replies_of_the_small_model(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path, name: str, path: str, added: str
) -> None:
    recorded = load_recording(FIXTURES / f"{name}.json")
    llm.add(recorded.turn())
    librarian = factory.start(llm_tools="auto")
    hashes = vault_hashes(vault)
    chat = librarian.chat()

    shown = chat.say(recorded.question)

    sent = llm.chat_requests[0].json
    # The prompt and schema the reply was recorded for: a change to either needs a new recording.
    assert sent["messages"] == recorded.request["messages"] and "tools" not in sent
    assert sent["response_format"] == recorded.request["response_format"]
    assert f"`{path}`" in shown and added in shown and "nothing is written yet" in shown
    assert vault_hashes(vault) == hashes
    assert "Applied 1 change" in chat.say("yes")
    assert added[1:] in (vault / path).read_text(encoding="utf-8")


def contract(**fields: str) -> Turn:
    return Turn.text(json.dumps(fields))


def test_an_invalid_reply_gets_one_repair_with_the_reason_and_the_repaired_one_is_proposed(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    # What a server that ignores the schema may send: a path that is no candidate, then the right one.
    invented = {"operation": "add_tag", "target": "Secret/Garlic.md", "tag": "mulch"}
    llm.add(contract(**invented))
    llm.add(contract(operation="add_tag", target=GARLIC, tag="mulch"))
    librarian = factory.start(llm_tools="auto")

    shown = librarian.chat().say("Add the tag mulch to the Garlic note.")

    first, repair = (request.json for request in llm.chat_requests)
    assert "'target' must be one of: Areas/Garden/Garlic.md" in repair["messages"][-1]["content"]
    assert repair["messages"][-2] == {"role": "assistant", "content": json.dumps(invented)}
    assert first["messages"] == repair["messages"][:2]
    assert f"`{GARLIC}`" in shown and "+  - mulch" in shown


def test_a_request_joining_two_changes_gets_the_one_proposed_and_is_told_the_other_was_left(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    # The 0.5B proposed only the tag of "set the rating ... and add the tag ...", and the reply did not say so.
    llm.add(contract(operation="add_tag", target=GARLIC, tag="mulch"))
    llm.add(contract(operation="add_tag", target=SOURDOUGH, tag="baking-log"))
    chat = factory.start(llm_tools="auto").chat()

    both = chat.say("Set the property status to done in the Garlic note and add the tag mulch to it.")
    chat.say("no")
    one = chat.say("Add the tag baking-log to the Sourdough note.")

    assert "+  - mulch" in both and ONE_CHANGE in both
    assert "+  - baking-log" in one and ONE_CHANGE not in one


def test_a_correction_of_the_proposal_is_proposed_as_the_earlier_request_with_the_value_swapped(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    # Read as a request of its own, "actually make it 'mulch' not 'straw'" names no note (the 0.5B proposed a new
    # note, or the turn was refused as a question).
    llm.add(contract(operation="add_tag", target=GARLIC, tag="straw"))
    llm.add(contract(operation="add_tag", target=GARLIC, tag="mulch"))
    chat = factory.start(llm_tools="auto").chat()

    first = chat.say("Add the tag straw to the Garlic note.")
    corrected = chat.say("actually make it 'mulch' not 'straw'")
    applied = chat.say("yes")

    assert "+  - straw" in first
    asked = [request.json["messages"][-1]["content"] for request in llm.chat_requests]
    assert asked == ["Add the tag straw to the Garlic note.", "Add the tag mulch to the Garlic note."]
    assert "(Discarded the proposed change" in corrected and "“Add the tag mulch to the Garlic note.”" in corrected
    assert "+  - mulch" in corrected and "Applied 1 change" in applied
    text = (vault / GARLIC).read_text(encoding="utf-8")
    assert "  - mulch" in text and "  - straw" not in text


def test_a_task_marked_done_is_checked_in_its_note_not_added_again(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    # The contract offered only add_task for "mark the task ... as done": the 0.5B added a second, open copy.
    smoke = "TaskNotes/Replace smoke detector batteries.md"
    llm.add(contract(operation="complete_task", target=smoke, task="Buy three 9 V batteries 🔽"))
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Mark the task Buy three 9 V batteries as done in the Replace smoke detector batteries note")

    schema = llm.chat_requests[0].json["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["operation"]["enum"] == ["complete_task"]
    assert "-- [ ] Buy three 9 V batteries 🔽" in shown and "+- [x] Buy three 9 V batteries 🔽" in shown
    assert "Applied 1 change" in chat.say("yes")
    text = (vault / smoke).read_text(encoding="utf-8")
    assert "- [x] Buy three 9 V batteries 🔽" in text and "- [ ] Buy three" not in text


def test_a_task_note_marked_done_gets_its_status_set_not_its_checkbox_ticked(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    # TaskNotes/Renew passport.md is a task (the TaskNotes plugin's way) holding one checkbox of its own.
    passport = "TaskNotes/Renew passport.md"
    llm.add(contract(operation="complete_task", target=passport, task="Renew passport"))
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Mark Renew passport as done")

    schema = llm.chat_requests[0].json["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["task"]["enum"] == ["Renew passport"]
    assert "-status: open" in shown and "+status: done" in shown and "+- [x]" not in shown
    assert "Applied 1 change" in chat.say("yes")
    text = (vault / passport).read_text(encoding="utf-8")
    assert "\nstatus: done\n" in text and "- [ ] Get new biometric passport photos taken" in text


def test_a_new_note_asked_for_without_text_starts_from_the_template_named_and_gets_no_invented_text(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    # Asked for text, the 0.5B wrote its own ("a movie by James Cameron ... released in 2012"), and no template.
    llm.add(contract(operation="create_note", name="Dune Kickoff", text=""))
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Create a note called Dune Kickoff in the Meetings folder using the Meeting Template")

    schema = llm.chat_requests[0].json["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["text"] == {"type": "string", "enum": [""]}
    assert "create the note “Meetings/Dune Kickoff” from the template “Meeting Template”" in shown
    assert "+# Dune Kickoff" in shown and "+  - meeting" in shown  # the template, filled in
    assert "Applied 1 change" in chat.say("yes")
    assert (vault / "Meetings/Dune Kickoff.md").read_text(encoding="utf-8").startswith("---\ntags:\n  - meeting\n")


def test_a_move_into_a_new_folder_is_offered_that_folder(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    # "Move Catan into a new folder called Games" got "I could not tell which change to make": no such folder.
    llm.add(contract(operation="move_note", target=GARLIC, folder="Allotment"))
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Move the Garlic note into a new folder called Allotment")

    schema = llm.chat_requests[0].json["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["folder"] == {"type": "string", "enum": ["Allotment"]}
    assert "`Allotment/Garlic.md`" in shown
    assert "Applied 1 change" in chat.say("yes")
    assert (vault / "Allotment/Garlic.md").exists() and not (vault / GARLIC).exists()


def test_a_request_the_contract_cannot_satisfy_is_answered_plainly_and_nothing_is_proposed(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    hashes = vault_hashes(vault)
    # A target that is none of the notes offered, twice: the reply, then its repair.
    llm.add(contract(operation="add_tag", target="Areas/Cooking/Sourdough", tag="baking"))
    llm.add(contract(operation="add_tag", target="Areas/Cooking/Sourdough", tag="baking"))
    librarian = factory.start(llm_tools="auto")
    chat = librarian.chat()

    shown = chat.say("Add the tag bread to the Sourdough note.")

    assert "I could not turn this request into a change I can propose" in shown and "Nothing was proposed" in shown
    assert "nothing is written yet" not in shown and len(llm.chat_requests) == 2
    chat.say("yes")
    assert vault_hashes(vault) == hashes


def test_a_change_the_note_already_has_is_answered_as_nothing_to_change_without_asking_again(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    hashes = vault_hashes(vault)
    llm.add(contract(operation="add_tag", target=SOURDOUGH, tag="baking"))  # the tag is there already
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Add the tag baking to the Sourdough note.")

    # Asked again, a model could only pick another note or tag: the request was understood and is satisfied.
    assert shown.startswith("Nothing to change: the note already has the tag 'baking'.")
    assert f"I understood: add the tag “baking” to `{SOURDOUGH}`" in shown and "Nothing was proposed" in shown
    assert "Try naming the note" not in shown and len(llm.chat_requests) == 1
    assert vault_hashes(vault) == hashes


def test_a_note_outside_the_writable_folders_is_refused_with_that_reason_not_a_rephrasing_hint(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    hashes = vault_hashes(vault)
    llm.add(contract(operation="add_task", target=GARLIC, text="Buy straw"))
    llm.add(contract(operation="add_task", target=GARLIC, text="Buy straw"))
    chat = factory.start(llm_tools="auto", writable_folders=["Inbox"]).chat()

    shown = chat.say('Add a task "Buy straw" to the Garlic note.')

    assert f"'{GARLIC}' is outside the writable folders (Inbox/)" in shown
    assert "only notes in the writable folders can be changed" in shown and "Try naming the note" not in shown
    chat.say("yes")
    assert vault_hashes(vault) == hashes


def test_an_endpoint_refusing_the_schema_is_asked_without_it_and_the_reply_is_still_validated(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    llm.reject_response_format = True  # llama.cpp before json_schema support
    llm.add(contract(operation="add_task", target=GARLIC, text="Buy straw"))

    shown = factory.start(llm_tools="auto").chat().say('Add a task "Buy straw" to the Garlic note.')

    refused, asked_again = (request.json for request in llm.chat_requests)
    assert "response_format" in refused and "response_format" not in asked_again
    assert "+- [ ] Buy straw" in shown


def test_a_model_seen_making_structured_calls_keeps_the_free_agent(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.tool_call("edit_note", {"command": "add_tag", "path": "Garlic", "value": "mulch"}), Turn.text("Done."))

    shown = factory.start(llm_tools="on").chat().say("Add the tag mulch to the Garlic note.")

    assert "response_format" not in llm.chat_requests[0].json and "+  - mulch" in shown


def test_that_note_in_a_change_request_is_the_note_the_previous_answer_cited(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    # Seen with the 1.5B on kepano-obsidian: "add the tag favorite to that note" went to a note with a "Favorites"
    # heading (a retrieval hit for the tag's word), not to the note the answer before had cited.
    llm.add(Turn.text("42 cloves were planted on 8 November 2026 [[Garlic]]."))
    llm.add(contract(operation="add_tag", target=GARLIC, tag="mulch"))
    chat = factory.start(llm_tools="auto").chat()

    assert "[[Garlic]]" in chat.say("How many garlic cloves did I plant?")
    shown = chat.say("Add the tag mulch to that note")

    schema = llm.chat_requests[-1].json["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["target"]["enum"] == [GARLIC]  # the cited note is the only candidate
    assert f"`{GARLIC}`" in shown and "+  - mulch" in shown


def test_a_note_named_in_the_request_that_does_not_exist_gets_no_proposal_on_another_note(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    # Seen with the 0.5B on kepano-obsidian: no note "Dune", so the tag went to a daily note retrieval found.
    llm.add(contract(operation="add_tag", target="Daily/2026-11-16.md", tag="favorite"))
    hashes = vault_hashes(vault)
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Add the tag favorite to the Dune note.")
    appended = chat.say('Append "Reread in 2027" to the Dune note.')  # no new note "Dune" offered instead

    assert llm.chat_requests == []
    for reply in (shown, appended):
        assert "I could not find the note you named: no note called “Dune” was found" in reply
        assert "nothing is written yet" not in reply
    chat.say("yes")
    assert vault_hashes(vault) == hashes


def test_a_new_task_naming_no_note_is_offered_todays_daily_note_first(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    # Users expect "add a task to buy milk" in today's note; the retrieval hits for its words were offered first.
    today = f"Daily/{local_now().date().isoformat()}.md"
    llm.add(contract(operation="add_task", target=today, text="buy milk"))
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Add a task to buy milk")

    sent = llm.chat_requests[0].json
    assert sent["response_format"]["json_schema"]["schema"]["properties"]["target"]["enum"][0] == today
    assert f"(write the path exactly):\n- {today}: daily note" in sent["messages"][0]["content"]
    assert "+- [ ] buy milk" in shown


def test_a_due_date_the_request_gives_a_new_task_is_written_as_the_vaults_tasks_write_theirs(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    # "… due on 2099-03-01" is the task's deadline: no words of the task, and no daily note of that day to put it in.
    llm.add(contract(operation="add_task", target=GARLIC, text="Buy straw"))
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Add a task to the Garlic note: Buy straw due on 2099-03-01")

    schema = llm.chat_requests[0].json["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["target"]["enum"] == [GARLIC]
    assert "add the task “Buy straw 📅 2099-03-01”" in shown
    assert "+- [ ] Buy straw 📅 2099-03-01" in shown
    assert "Applied 1 change" in chat.say("yes")
    assert "- [ ] Buy straw 📅 2099-03-01" in (vault / GARLIC).read_text(encoding="utf-8")


def test_what_the_request_is_read_as_is_the_task_line_proposed_with_the_tasks_plugins_filter(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    # obsidian-tasks-demo (stop 58): "I read your request as: add the task “call the plumber …”" over a diff adding
    # "#task call the plumber …", the vault's global filter.
    plugin = vault / ".obsidian" / "plugins" / "obsidian-tasks-plugin"
    plugin.mkdir(parents=True)
    (plugin / "data.json").write_text('{"globalFilter": "#task"}', encoding="utf-8")
    llm.add(contract(operation="add_task", target=GARLIC, text="Buy straw"))
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Add a task to the Garlic note: Buy straw due on 2099-03-01")

    assert "add the task “#task Buy straw 📅 2099-03-01”" in shown
    assert "+- [ ] #task Buy straw 📅 2099-03-01" in shown


def test_a_task_of_a_task_list_named_by_its_place_is_the_one_marked_done(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    # "Mark the second one as done" after a task list reads as "Mark the task “Buy three 9 V batteries” in [[Replace
    # smoke detector batteries]] as done" (rag/answer/list_references.py): the contract gets that note and task.
    smoke = "TaskNotes/Replace smoke detector batteries.md"
    llm.add(contract(operation="complete_task", target=smoke, task="Buy three 9 V batteries 🔽"))
    chat = factory.start(llm_tools="auto").chat()

    listed = chat.say("What tasks are in my Replace smoke detector batteries note?")
    shown = chat.say("Mark the second one as done")  # the first is the task note itself

    assert listed.splitlines()[2].startswith("- [ ] Buy three 9 V batteries 🔽 [[Replace smoke detector batteries")
    asked = llm.chat_requests[0].json["messages"][-1]["content"]
    assert "Mark the task “Buy three 9 V batteries” in [[Replace smoke detector batteries]] as done" in asked
    assert "+- [x] Buy three 9 V batteries 🔽" in shown


def test_a_task_in_progress_named_by_its_place_is_marked_done_not_reopened(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    # After "What tasks am I working on right now?" (tasks `[/]`), "Mark the second one as done" was answered "I
    # could not tell which change to make": the contract offered open `[ ]` tasks only, and a toggle would reopen it.
    day = "Daily/2026-11-02.md"
    task = "Read up on RabbitMQ → Kafka migrations for work"
    llm.add(contract(operation="complete_task", target=day, task=task))
    chat = factory.start(llm_tools="auto").chat()

    listed = chat.say("What tasks am I working on right now?")
    shown = chat.say("Mark the second one as done")

    assert listed.splitlines()[2] == f"- [/] {task} [[2026-11-02#Plan]]"
    prompt = llm.chat_requests[0].json["messages"][0]["content"]
    assert f"in-progress or other tasks: {task}" in prompt
    assert f"-- [/] {task}" in shown and f"+- [x] {task}" in shown
    assert "Applied 1 change" in chat.say("yes")
    text = (vault / day).read_text(encoding="utf-8")
    assert f"- [x] {task}" in text and f"- [/] {task}" not in text and f"- [ ] {task}" not in text


def test_a_property_already_holding_the_value_asked_is_nothing_to_change(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    hashes = vault_hashes(vault)
    assert "\nstatus: paused\n" in (vault / "Projects/Balcony Irrigation.md").read_text(encoding="utf-8")
    llm.add(
        contract(operation="set_property", target="Projects/Balcony Irrigation.md", property="status", value="paused")
    )
    chat = factory.start(llm_tools="auto").chat()

    shown = chat.say("Set the status of the Balcony Irrigation note to paused")

    assert shown.startswith("Nothing to change: the note is already as asked"), shown
    assert "Try naming the note" not in shown and len(llm.chat_requests) == 1 and vault_hashes(vault) == hashes
