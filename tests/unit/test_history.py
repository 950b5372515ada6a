"""Reconciling resent client history with the stored conversation."""

from __future__ import annotations

from typing import Any

from agent.history import (
    EARLIER_CHARS,
    EARLIER_MESSAGES,
    INTERRUPTED_TOOL_RESULT,
    client_instructions,
    model_history,
    reconcile,
    repair_dangling_tool_calls,
)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str, **extra: object) -> dict[str, Any]:
    return {"role": "assistant", "content": text, **extra}


def test_a_resent_history_appends_only_the_new_message() -> None:
    stored = [
        user("q1"),
        assistant("", tool_calls=[{"id": "c1", "name": "read_note", "arguments": "{}"}]),
        {"role": "tool", "tool_call_id": "c1", "name": "read_note", "content": "note"},
        assistant("a1"),
    ]
    incoming = [{"role": "system", "content": "client prompt"}, user("q1"), assistant("a1"), user("q2")]

    merged = reconcile(stored, incoming)

    assert merged == [*stored, user("q2")]


def test_a_first_turn_starts_from_the_client_history_without_system_messages() -> None:
    merged = reconcile([], [{"role": "system", "content": "x"}, user("hello")])

    assert merged == [user("hello")]


def test_an_edited_history_replaces_the_stored_one() -> None:
    stored = [user("q1"), assistant("a1")]
    incoming = [user("q1 edited"), assistant("a1"), user("q2")]

    assert reconcile(stored, incoming) == incoming


def test_dangling_tool_calls_get_a_result() -> None:
    cut_off = [user("q"), assistant("", tool_calls=[{"id": "c9", "name": "tags", "arguments": "{}"}])]

    repaired = repair_dangling_tool_calls(cut_off)

    assert repaired[-1] == {"role": "tool", "tool_call_id": "c9", "name": "tags", "content": INTERRUPTED_TOOL_RESULT}


def test_client_instructions_are_the_clients_system_messages() -> None:
    assert client_instructions([{"role": "system", "content": "Be brief."}, user("q")]) == "Be brief."


def tool_step(call_id: str) -> list[dict[str, Any]]:
    return [
        assistant("", tool_calls=[{"id": call_id, "name": "read_note", "arguments": "{}"}]),
        {"role": "tool", "tool_call_id": call_id, "name": "read_note", "content": "note text"},
    ]


# Open WebUI with native tools resends its own tool steps; the edge passes role and content only.
CLIENT_TOOL_STEPS: list[dict[str, Any]] = [assistant(""), {"role": "tool", "content": "weather: sunny"}]


def test_a_first_turn_drops_the_clients_tool_messages_and_empty_assistant_messages() -> None:
    incoming = [user("weather?"), *CLIENT_TOOL_STEPS, assistant("Sunny."), user("q2")]

    assert reconcile([], incoming) == [user("weather?"), assistant("Sunny."), user("q2")]


def test_the_clients_tool_messages_do_not_break_the_prefix_match() -> None:
    stored = [user("q1"), *tool_step("c1"), assistant("a1")]
    incoming = [user("q1"), assistant("a1"), user("weather?"), *CLIENT_TOOL_STEPS, assistant("Sunny."), user("q3")]

    merged = reconcile(stored, incoming)

    assert merged == [*stored, user("weather?"), assistant("Sunny."), user("q3")]


def test_an_edited_history_keeps_only_the_clients_texts() -> None:
    stored = [user("q1"), assistant("a1")]
    incoming = [user("q1 edited"), *CLIENT_TOOL_STEPS, assistant("a1"), user("q2")]

    assert reconcile(stored, incoming) == [user("q1 edited"), assistant("a1"), user("q2")]


def test_the_model_reads_this_turns_tool_steps_but_not_earlier_ones() -> None:
    records = [user("q1"), *tool_step("c1"), assistant("a1"), user("q2"), *tool_step("c2")]

    assert model_history(records) == [user("q1"), assistant("a1"), user("q2"), *tool_step("c2")]


def test_the_earlier_dialogue_is_capped_in_messages_and_starts_with_a_question() -> None:
    earlier = [message for n in range(20) for message in (user(f"q{n}"), assistant(f"a{n}"))]

    sent = model_history([*earlier, user("now")])

    assert len(sent) == EARLIER_MESSAGES + 1
    assert sent[0] == user("q12") and sent[-2:] == [assistant("a19"), user("now")]


def test_earlier_answers_are_read_without_the_cautions_and_lists_code_added() -> None:
    answer = "It rests 14 hours at 24 °C [[Sourdough#Final recipe]]. Sources: the recipe, below."
    shown = (
        f"{answer}\n\n*(Not in the notes searched: 24. Check this number against the sources.)*"
        "\n\nSources:\n- [[Sourdough#Final recipe]]\n"
    )
    refusal = "The notes don't say when."  # the model's own words: kept, unlike the service's refusal
    closest = '\n\nClosest in your notes:\n- "Planted 40 cloves." [[Garlic]]'
    records = [
        user("q1"),
        assistant(shown),
        user("q2"),
        assistant(f"{refusal}{closest}\n\nNotes searched:\n- [[Garlic]]"),
    ]
    this_turn = [user("q3"), assistant(shown)]  # this turn's own records are the model's: left as they are

    sent = model_history([*records, *this_turn])

    assert sent == [user("q1"), assistant(answer), user("q2"), assistant(refusal), *this_turn]


def test_earlier_exchanges_that_told_nothing_are_left_out() -> None:
    # Shown an earlier refusal, the 1.5B refused the next question too, its note first among the passages.
    refused = [user("q1"), assistant("I couldn't find this in your notes.\n\nNotes searched:\n- [[Garlic]]")]
    sourced = [user("Which note says that?"), assistant("My last answer came from these notes:\n\nSources:\n- [[A]]")]
    records = [*refused, user("q2"), assistant("a2"), *sourced, user("now")]

    assert model_history(records) == [user("q2"), assistant("a2"), user("now")]


def test_the_earlier_dialogue_is_capped_in_characters() -> None:
    long_answer = "x" * (EARLIER_CHARS - 1)
    records = [user("q1"), assistant("a1"), user("q2"), assistant(long_answer), user("now")]

    sent = model_history(records)

    assert sent == [user("now")]  # q2 + its long answer would pass the cap; the answer alone must not lead
    assert model_history([user("q2"), assistant("y" * 50), user("now")])[0] == user("q2")
