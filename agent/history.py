"""Reconciling the history a client resends with the checkpointed conversation: never duplicated, never empty."""

from __future__ import annotations

from agent.state import MessageRecord

INTERRUPTED_TOOL_RESULT = "The tool call was interrupted and has no result."


def _dialogue(records: list[MessageRecord]) -> list[tuple[str, str]]:
    # What a client sees and resends: user messages and final answers, not the tool-calling steps between.
    return [
        (r["role"], r.get("content", "").strip())
        for r in records
        if r["role"] == "user" or (r["role"] == "assistant" and not r.get("tool_calls"))
    ]


def reconcile(stored: list[MessageRecord], incoming: list[MessageRecord]) -> list[MessageRecord]:
    """Return the conversation to answer from: the stored one plus the client's new messages.

    Clients resend the whole history each turn. When the stored dialogue (user and assistant texts) is a prefix
    of what the client sent, only the new messages are appended, so nothing is duplicated and tool messages
    of earlier turns are kept. When the client edited or regenerated history, its version wins.
    """
    client = [r for r in incoming if r["role"] != "system"]
    stored_dialogue = _dialogue(stored)
    client_dialogue = _dialogue(client)
    if stored and client_dialogue[: len(stored_dialogue)] == stored_dialogue:
        new = client_dialogue[len(stored_dialogue) :]
        merged = repair_dangling_tool_calls(stored)
        merged.extend({"role": role, "content": content} for role, content in new)
        return merged
    return repair_dangling_tool_calls(client)


def repair_dangling_tool_calls(records: list[MessageRecord]) -> list[MessageRecord]:
    """Add a result for every tool call that has none (a turn cut off mid-tools), as OpenAI servers require."""
    repaired: list[MessageRecord] = []
    answered = {r.get("tool_call_id") for r in records if r["role"] == "tool"}
    for record in records:
        repaired.append(record)
        for call in record.get("tool_calls", ()):
            if call["id"] not in answered:
                repaired.append(
                    {
                        "role": "tool",
                        "tool_call_id": call["id"],
                        "name": call["name"],
                        "content": INTERRUPTED_TOOL_RESULT,
                    }
                )
    return repaired


def client_instructions(incoming: list[MessageRecord]) -> str:
    """Return the client's own system prompt (e.g. Obsidian Copilot's), which follows our rules, not replaces them."""
    return "\n\n".join(r.get("content", "") for r in incoming if r["role"] == "system" and r.get("content"))
