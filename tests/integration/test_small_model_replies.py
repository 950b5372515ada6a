"""Real replies of Qwen2.5-Coder 0.5B (tests/fixtures/small_model_replies), replayed over the real HTTP API.

The model writes its tool calls as text, and often invents tool names. The user must never see such JSON: a call
of an offered tool runs (a write tool proposes, nothing is written before a yes), a call of an invented tool runs
nothing and the model is told which tools exist.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from agent.call_feedback import REPEATED_CALL
from agent.turn import STOPPED_EARLY
from app.wiring import Services
from core.settings import Settings
from llm_client.replies.call_hold import MAX_TRAILING_CHARS
from tests.integration.edit_flow_support import PROPOSAL_ID, Librarian, librarian_factory
from tests.recorded_replies import all_recorded, recorded
from tests.scripted_llm import ScriptedLLMServer, Turn
from tests.vault_state import vault_hashes

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

SHOWN_CALL = re.compile(r"""["'](?:name|arguments|parameters)["']\s*:|<tool_call>|```json""")


@pytest.fixture
def librarian(settings: Settings, services: Services, llm: ScriptedLLMServer) -> Iterator[Librarian]:
    with librarian_factory(settings, services, llm, "files") as factory:
        yield factory.start()


def test_every_recorded_reply_is_read_from_a_real_streamed_recording() -> None:
    replies = all_recorded()
    assert len(replies) >= 3
    assert all(reply.pieces or reply.calls for reply in replies)
    assert all(bool(reply.offered) != reply.name.endswith("no-tools") for reply in replies)


COMMAND_HINT = 'it is a command of edit_note: call edit_note with "command"'


@pytest.mark.parametrize(
    ("name", "invented", "told_how"),
    [
        # A command of two offered tools (edit_note's and daily_note's add_task): which one is meant is not known.
        ("p2-edit-task-rye-flour-flat.1", "add_task", COMMAND_HINT),  # the arguments beside the name
    ],
)
def test_a_call_of_an_invented_tool_is_neither_run_nor_shown_and_the_model_is_told(
    librarian: Librarian, llm: ScriptedLLMServer, settings: Settings, name: str, invented: str, told_how: str
) -> None:
    reply = recorded(name)
    assert not reply.calls and reply.text.startswith(f'{{"name": "{invented}"')  # what the user saw before
    before = vault_hashes(settings.vault_path)
    llm.add(reply.turn(), Turn.text("I could not make that change with the tools I have."))

    answer = librarian.chat().say(reply.question)

    assert not SHOWN_CALL.search(answer) and invented not in answer
    assert answer.startswith("I could not make that change")
    told = [m for m in llm.chat_requests[1].messages if m["role"] == "tool"]
    assert len(told) == 1 and told[0]["content"].startswith(f"Error: there is no tool '{invented}'; {told_how}")
    assert llm.chat_requests[1].messages[-2]["tool_calls"][0]["function"]["name"] == invented
    assert not re.search(PROPOSAL_ID, answer) and vault_hashes(settings.vault_path) == before


def test_a_recorded_plain_answer_streams_as_it_was_written(librarian: Librarian, llm: ScriptedLLMServer) -> None:
    reply = recorded("p1-question-sourdough.1")
    llm.add(reply.turn())

    answer = librarian.chat(stream=True).say(reply.question)

    assert answer.startswith(reply.text)


def test_flat_repeated_calls_of_an_offered_tool_run_once_each_and_their_errors_go_back_to_the_model(
    librarian: Librarian, llm: ScriptedLLMServer, settings: Settings
) -> None:
    reply = recorded("p2-edit-tag-baking-repeated.1")
    assert reply.text.count('{"name": "edit_note"') == 4  # two calls, each written twice, arguments beside the name
    before = vault_hashes(settings.vault_path)
    llm.add(reply.turn(), Turn.text("The edit needs a command; I could not propose it."))

    answer = librarian.chat().say(reply.question)

    assert not SHOWN_CALL.search(answer) and answer.startswith("The edit needs a command")
    second = llm.chat_requests[1].messages
    calls = second[-3]["tool_calls"]
    assert [call["function"]["name"] for call in calls] == ["edit_note", "edit_note"]
    assert all('"path": "Areas/Cooking/Sourdough.md"' in call["function"]["arguments"] for call in calls)
    results = [m["content"] for m in second if m["role"] == "tool"]
    assert len(results) == 2 and all("'command' is required" in result for result in results)
    assert vault_hashes(settings.vault_path) == before


def test_a_call_repeated_after_it_failed_is_not_run_again_and_a_call_written_without_tools_is_never_shown(
    librarian: Librarian, llm: ScriptedLLMServer
) -> None:
    loop = [recorded(f"p2-edit-tag-baking-loop.{n}") for n in (1, 2, 3)]
    without_tools = recorded("p2-edit-tag-baking-loop.4-no-tools")
    assert loop[0].text.startswith("```json") and all('"name": "tags"' in reply.text for reply in loop)
    assert not without_tools.offered and without_tools.text.startswith('{"name": "tags"')  # no tools, still JSON
    llm.add(*(reply.turn() for reply in loop), without_tools.turn())

    answer = librarian.chat(stream=True).say(loop[0].question)

    assert answer.startswith(STOPPED_EARLY) and not SHOWN_CALL.search(answer)
    last = llm.chat_requests[-1]
    assert len(llm.chat_requests) == 4 and "tools" not in last.json  # the rounds ran out
    results = [m["content"] for m in last.messages if m["role"] == "tool"]
    assert results[0].startswith("Error: invalid arguments for tags: unknown parameter 'k'")
    assert [result.startswith(REPEATED_CALL) for result in results] == [False, True, True]
    assert all(result.endswith(results[0]) for result in results)


def test_a_command_sent_to_the_wrong_tool_fails_with_the_tool_that_takes_it(
    librarian: Librarian, llm: ScriptedLLMServer
) -> None:
    reply = recorded("p2-edit-tag-baking-wrong-tool.1")
    assert reply.text == '{"name": "tags", "arguments": {"command": "add_tag", "tag": "baking"}}'
    llm.add(reply.turn(), Turn.text("I could not add the tag."))

    librarian.chat().say(reply.question)

    told = [m["content"] for m in llm.chat_requests[1].messages if m["role"] == "tool"]
    assert len(told) == 1 and told[0].startswith("Error: invalid arguments for tags: 'command'")
    assert told[0].endswith(' \'add_tag\' is a command of edit_note: call edit_note with "command": "add_tag".')


NO_PATH = "Error: invalid arguments for edit_note: 'path' is required."


@pytest.mark.parametrize(
    ("name", "command", "result"),
    [
        ("p2-edit-property-passport-flat.1", "set_property", "Proposed change "),  # its arguments beside the name
        ("p1-edit-tag-baking.1", "add_tag", NO_PATH),  # its "tag" goes to value
        ("p2-edit-tag-baking-short.1", "add_tag", NO_PATH),  # "add_tag/remove_tag/add_alias", a brace short
        ("p1-edit-task-rye-flour.1", "add_task", "Error: the note has no heading 'Ideas'"),  # the model's heading
    ],
)
def test_a_call_named_by_one_tools_command_runs_as_that_tool_and_only_proposes(
    librarian: Librarian, llm: ScriptedLLMServer, settings: Settings, name: str, command: str, result: str
) -> None:
    reply = recorded(name)
    before = vault_hashes(settings.vault_path)
    llm.add(reply.turn(), Turn.text("Done."))

    answer = librarian.chat().say(reply.question)

    assert not SHOWN_CALL.search(answer.split("**Proposed change")[0])
    called = llm.chat_requests[1].messages[-2]["tool_calls"][0]["function"]
    assert called["name"] == "edit_note" and json.loads(called["arguments"])["command"] == command
    told = [m["content"] for m in llm.chat_requests[1].messages if m["role"] == "tool"]
    assert told[0].startswith(result)
    assert vault_hashes(settings.vault_path) == before  # proposed at most, never written


def test_an_invented_command_call_without_its_property_is_told_what_is_missing_not_another_tool(
    librarian: Librarian, llm: ScriptedLLMServer, settings: Settings
) -> None:
    invented, follows = recorded("p2-edit-property-passport-hint.1"), recorded("p2-edit-property-passport-hint.2")
    assert invented.text.startswith('```json\n{\n  "name": "set_property"')  # arguments beside an invented name
    before = vault_hashes(settings.vault_path)
    llm.add(invented.turn(), follows.turn(), Turn.text("The change needs the property's name."))

    answer = librarian.chat().say(invented.question)

    assert not SHOWN_CALL.search(answer)
    told = llm.chat_requests[1].messages[-1]["content"]
    assert told == "Error: edit_note set_property needs 'property'"  # its value "done" is no command of tasks
    assert vault_hashes(settings.vault_path) == before


def test_a_reply_that_runs_on_after_its_calls_is_cut_off_so_the_server_stops_generating(
    librarian: Librarian, llm: ScriptedLLMServer
) -> None:
    invented, runaway = recorded("p2-edit-tag-baking-runaway.1"), recorded("p2-edit-tag-baking-runaway.2")
    assert runaway.text.startswith('{"name": "add_tag"')
    assert len(runaway.text) > runaway.text.index("\n") + MAX_TRAILING_CHARS  # enough to be cut off
    slow = runaway.turn()  # streamed slowly enough that the client closes it before its end
    llm.add(invented.turn(), Turn(pieces=slow.pieces, delay_per_token=0.002), Turn.text("I could not add the tag."))

    answer = librarian.chat().say(invented.question)

    assert answer.startswith("I could not add the tag.") and not SHOWN_CALL.search(answer)
    assert llm.abandoned_streams == 1  # the stream was closed, so the server stopped generating
    results = [m["content"] for m in llm.chat_requests[2].messages if m["role"] == "tool"]
    assert results[0] == "Error: edit_note add_tag needs 'value' as text"  # run as edit_note's add_tag
    assert results[1:] == [f"{REPEATED_CALL} It failed with: {results[0]}"]  # its first call, sent again


def test_a_real_conversation_of_calls_written_as_text_ends_in_a_proposal_and_nothing_is_written(
    librarian: Librarian, llm: ScriptedLLMServer, settings: Settings
) -> None:
    # Qwen2.5-Coder 0.5B asked for a task: an invented tool, told it is edit_note's command, then the right call.
    rounds = [recorded(f"p2-edit-task-rye-flour-proposal.{n}") for n in (1, 2, 3)]
    last = recorded("p2-edit-task-rye-flour-proposal.4-no-tools")
    assert all(not reply.calls for reply in (*rounds, last))  # never one structured call
    before = vault_hashes(settings.vault_path)
    llm.add(*(reply.turn() for reply in rounds), last.turn())

    answer = librarian.chat(stream=True).say(rounds[0].question)

    assert not SHOWN_CALL.search(answer.split("**Proposed change")[0])  # no JSON above the gate's proposal
    assert len(re.findall(PROPOSAL_ID, answer)) == 1 and "+- [ ] buy rye flour" in answer
    assert vault_hashes(settings.vault_path) == before  # proposed, not written
    ran = [m for m in llm.chat_requests[-1].messages if m["role"] == "tool"]
    assert any(m["content"].startswith("Proposed change ") for m in ran)
