"""Reconciling the history a client resends with the checkpointed conversation: never duplicated, never empty."""

from __future__ import annotations

from collections.abc import Iterable

from agent.answer_footer import latest_question, without_footer
from agent.source_question import asks_for_sources
from agent.state import MessageRecord, turn_start
from rag.answer.context import is_refusal

INTERRUPTED_TOOL_RESULT = "The tool call was interrupted and has no result."

# What the model reads of earlier turns: their dialogue only, at most about 8 exchanges and 6,000 characters, so
# a small local context window keeps the system prompt and this turn's notes. The checkpoint keeps everything.
EARLIER_MESSAGES = 16
EARLIER_CHARS = 6_000


def _is_dialogue(record: MessageRecord) -> bool:
    # What a client sees and resends: user messages and final answers, not the tool-calling steps between.
    if record["role"] == "user":
        return True
    return record["role"] == "assistant" and not record.get("tool_calls") and bool(record.get("content", "").strip())


def _dialogue(records: list[MessageRecord]) -> list[tuple[str, str]]:
    return [(r["role"], r.get("content", "").strip()) for r in records if _is_dialogue(r)]


def client_dialogue(incoming: list[MessageRecord]) -> list[MessageRecord]:
    """Return the user and assistant texts of a client's history.

    Tool messages and tool-calling steps of the client's own tools (Open WebUI native tools) are dropped: the
    edge passes role and content only, and a tool message without its call is rejected by OpenAI servers.
    """
    return [
        {"role": r["role"], "content": r.get("content", "")}
        for r in incoming
        if r["role"] == "user" or (r["role"] == "assistant" and r.get("content", "").strip())
    ]


def reconcile(stored: list[MessageRecord], incoming: list[MessageRecord]) -> list[MessageRecord]:
    """Return the conversation to answer from: the stored one plus the client's new messages.

    Clients resend the whole history each turn. When the stored dialogue (user and assistant texts) is a prefix
    of what the client sent, only the new messages are appended, so nothing is duplicated and tool messages
    of earlier turns are kept. When the client edited or regenerated history, its version wins.
    """
    client = client_dialogue(incoming)
    stored_dialogue = _dialogue(stored)
    if stored and _dialogue(client)[: len(stored_dialogue)] == stored_dialogue:
        merged = repair_dangling_tool_calls(stored)
        merged.extend(client[len(stored_dialogue) :])
        return merged
    return client


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


def model_history(records: list[MessageRecord]) -> list[MessageRecord]:
    """Return what the model reads of a conversation: this turn whole, earlier turns as capped dialogue.

    Earlier answers lose what code added after them (`agent.answer_footer.without_footer`). Earlier exchanges that
    told nothing are left out (`_telling`).

    This turn starts at the latest user message. Earlier turns' tool steps are left out (their answers carry
    what they found) and only their last EARLIER_MESSAGES messages within EARLIER_CHARS characters are kept,
    starting at a user message, as strict chat templates require.
    """
    start = turn_start(records)
    kept: list[MessageRecord] = []
    chars = 0
    for record in reversed(_telling(r for r in records[:start] if _is_dialogue(r))):
        content = record.get("content", "")
        if record["role"] == "assistant":  # what it said, not the sources lists and cautions code added after it
            content = without_footer(content)
        chars += len(content)
        if len(kept) == EARLIER_MESSAGES or chars > EARLIER_CHARS:
            break
        kept.append({"role": record["role"], "content": content})
    kept.reverse()
    while kept and kept[0]["role"] != "user":
        kept.pop(0)
    turn = records[start:]
    if turn and turn[0]["role"] == "user":  # "Summarize the first one" of a list, as the note it names
        turn = [{**turn[0], "content": latest_question(records)}, *turn[1:]]
    return [*kept, *turn]


def _telling(dialogue: Iterable[MessageRecord]) -> list[MessageRecord]:
    """Return the dialogue without exchanges that told nothing: a refusal, or "which note says that?" and its reply.

    Shown an earlier "I couldn't find this in your notes.", the 1.5B refused the next question too, with the note
    that answers it first among the passages; a list of where an answer came from is no answer to read again.
    """
    kept: list[MessageRecord] = []
    for record in dialogue:
        answers = record["role"] == "assistant" and kept and kept[-1]["role"] == "user"
        if answers and (is_refusal(record.get("content", "")) or asks_for_sources(kept[-1].get("content", ""))):
            kept.pop()
            continue
        kept.append(record)
    return kept


def client_instructions(incoming: list[MessageRecord]) -> str:
    """Return the client's own system prompt (e.g. Obsidian Copilot's), which follows our rules, not replaces them."""
    return "\n\n".join(r.get("content", "") for r in incoming if r["role"] == "system" and r.get("content"))
