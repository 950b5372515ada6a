"""Reconciling resent client history with the stored conversation."""

from __future__ import annotations

from agent.history import INTERRUPTED_TOOL_RESULT, client_instructions, reconcile, repair_dangling_tool_calls


def user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text}


def assistant(text: str, **extra: object) -> dict[str, object]:
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
