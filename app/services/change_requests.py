"""Whether a message asks to change notes, for fronts that must refuse such requests before loading the agent.

`librarian ask` answers one question and can never take the "yes" a proposal waits for, so it refuses a change
request at once. The detector is the chat agent's own (agent.gate.intent, a few regular expressions): importing it
here, rather than through app.services.answering, spares a relayed `ask` the agent's three-second import. That
detector may take a question for a request ("Update on the garden project?"), which costs the chat nothing; a
refusal here would, so a message ending in "?" counts only when it asks politely ("Can you add ...?").
"""

from __future__ import annotations

import re

from agent.gate.intent import looks_like_edit_request

_ASKS_TO = re.compile(
    r"^\W*(?:please\s+|pls\s+)?(?:can|could|would|will)\s+you\b|^\W*(?:kannst|könntest|würdest)\s+du\b", re.IGNORECASE
)


def is_change_request(message: str) -> bool:
    """Return True when `message` asks to change notes, and is no question that merely starts with an edit verb."""
    if not looks_like_edit_request(message):
        return False
    return not message.rstrip().endswith("?") or _ASKS_TO.match(message) is not None
