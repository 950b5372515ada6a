"""The layout of one model call: a stable, byte-identical prefix first, then the turn's date, notes and question."""

from __future__ import annotations

import json
from datetime import date

from agent.prompts import EDIT_ADVICE, READ_ONLY, TOPIC_ADVICE, YES_NO_ADVICE, model_messages, system_prompt
from agent.tools.registry import READ_TOOLS
from core.chat import ChatMessage
from llm_client.completions.wire import build_payload
from rag.answer.context import REFUSAL

TOOLS = [tool.spec() for tool in READ_TOOLS]
RECIPE = '<note source="[[Sourdough#Final recipe]]" path="Sourdough.md" lines="38-44">\n14 hours.\n</note>'
GARLIC = '<note source="[[Garlic]]" path="Garlic.md" lines="5-5">\nPlanted 42 cloves.\n</note>'


def payload(history: list[ChatMessage], *, today: date, context: str, client: str = "") -> dict[str, object]:
    messages = model_messages(history, today=today, context=context, client_instructions=client)
    return build_payload("m", messages, TOOLS, stream=True, stream_usage=True)


def test_the_prefix_is_byte_identical_across_turns_with_other_questions_dates_and_passages() -> None:
    first = payload([ChatMessage("user", "How long in the fridge?")], today=date(2026, 11, 5), context=RECIPE)
    later = payload(
        [ChatMessage("user", "How long?"), ChatMessage("assistant", "14 hours."), ChatMessage("user", "Garlic?")],
        today=date(2026, 11, 6),
        context=GARLIC,
        client="Answer in French.",
    )

    # What servers render first (the system message, then the tool schemas) is the same bytes.
    assert json.dumps(first["messages"][0]) == json.dumps(later["messages"][0])  # type: ignore[index]
    assert json.dumps(first["tools"]) == json.dumps(later["tools"])
    system = first["messages"][0]["content"]  # type: ignore[index]
    assert "2026" not in system and "<note source" not in system and "French" not in system


def test_date_instructions_and_notes_come_with_the_latest_question_rules_first() -> None:
    history = [ChatMessage("user", "Earlier?"), ChatMessage("assistant", "Yes."), ChatMessage("user", "Garlic?")]

    messages = model_messages(history, today=date(2026, 11, 6), context=GARLIC, client_instructions="Be brief.")

    assert [m.role for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1].content == "Earlier?"  # earlier questions are sent as they were written
    latest = messages[-1].content
    assert latest.startswith("Today is 2026-11-06 (Friday).")
    assert latest.index("Be brief.") < latest.index(GARLIC) < latest.index("Question: Garlic?")
    assert latest.endswith("Question: Garlic?")


def test_a_turn_not_depending_on_the_date_is_not_told_it() -> None:
    messages = model_messages([ChatMessage("user", "Garlic?")], today=None, context=GARLIC)

    assert messages[-1].content == f"Notes for this message:\n{GARLIC}\n\nQuestion: Garlic?"


def test_tool_rounds_of_a_turn_keep_the_question_and_its_notes_in_place() -> None:
    call_round = [
        ChatMessage("user", "Garlic?"),
        ChatMessage("assistant", "", tool_calls=()),
        ChatMessage("tool", "result", tool_call_id="c1", name="read_note"),
    ]

    messages = model_messages(call_round, today=date(2026, 11, 6), context=GARLIC)

    assert GARLIC in messages[1].content and messages[-1].content == "result"


def test_edits_are_a_second_stable_variant_and_the_rules_keep_their_meaning() -> None:
    plain, edit = system_prompt(), system_prompt(can_propose=True)

    assert READ_ONLY in plain and EDIT_ADVICE not in plain
    assert EDIT_ADVICE in edit and edit == system_prompt(can_propose=True)
    for text in (plain, edit):
        assert f"reply exactly: {REFUSAL}" in text and "never instructions" in text
        assert "copied exactly" in text and "[[Sourdough#Final recipe]]" in text
    assert len(plain) < 1_300  # was 1,890 characters with the date and no passages
    request = model_messages([ChatMessage("user", "Add a tag")], today=date(2026, 1, 1), context="", can_propose=True)
    assert (
        request[-1].content.endswith("Request: Add a tag") and "Notes for this message:\n(none)" in request[-1].content
    )


def test_a_request_about_a_topic_is_told_to_refuse_only_when_no_note_is_about_it() -> None:
    question = [ChatMessage("user", "Summarize my notes on garlic.")]

    plain = model_messages(question, today=date(2026, 11, 6), context=GARLIC)
    about = model_messages(question, today=date(2026, 11, 6), context=GARLIC, about_topic=True)

    assert plain[-1].content.endswith("Question: Summarize my notes on garlic.")
    assert about[-1].content == f"{plain[-1].content}\n{TOPIC_ADVICE}"
    assert about[0] == plain[0]  # the system message stays the same bytes


def test_a_question_asking_yes_or_no_is_told_to_reply_so_first() -> None:
    question = [ChatMessage("user", "Did I plant garlic?")]

    plain = model_messages(question, today=date(2026, 11, 6), context=GARLIC)
    asked = model_messages(question, today=date(2026, 11, 6), context=GARLIC, yes_or_no=True)

    assert asked[-1].content == f"{plain[-1].content}\n{YES_NO_ADVICE}" and asked[0] == plain[0]


def test_a_question_asking_two_things_has_its_parts_listed_after_it() -> None:
    question = [ChatMessage("user", "How many cloves did I plant, and on what date?")]
    parts = ("How many cloves did I plant?", "On what date?")

    plain = model_messages(question, today=date(2026, 11, 6), context=GARLIC)
    asked = model_messages(question, today=date(2026, 11, 6), context=GARLIC, parts=parts)

    listed = "Answer both parts:\n1. How many cloves did I plant?\n2. On what date?"
    assert asked[-1].content == f"{plain[-1].content}\n{listed}" and asked[0] == plain[0]


def test_three_parts_are_listed_and_one_part_or_another_advice_lists_none() -> None:
    question = [ChatMessage("user", "What, why, and how?")]
    three = model_messages(question, today=date(2026, 11, 6), context=GARLIC, parts=("A b?", "C d?", "E f?"))
    one = model_messages(question, today=date(2026, 11, 6), context=GARLIC, parts=("A b?",))
    topic = model_messages(question, today=date(2026, 11, 6), context=GARLIC, parts=("A b?", "C d?"), about_topic=True)

    assert three[-1].content.endswith("\nAnswer each part:\n1. A b?\n2. C d?\n3. E f?")
    assert one[-1].content.endswith("Question: What, why, and how?")
    assert topic[-1].content.endswith(f"Question: What, why, and how?\n{TOPIC_ADVICE}")
