"""Whether a message asks to change notes, for fronts that must refuse such requests before loading the agent.

`librarian ask` answers one question and can never take the "yes" a proposal waits for, so it refuses a change
request at once. The detector is the chat agent's own (agent.gate.intent, a few regular expressions): importing it
here, rather than through app.services.answering, spares a relayed `ask` the agent's three-second import.
"""

from __future__ import annotations

from agent.gate.intent import is_surely_change_request


def is_change_request(message: str) -> bool:
    """Return True when `message` asks to change notes (`agent.gate.intent.is_surely_change_request`)."""
    return is_surely_change_request(message)
