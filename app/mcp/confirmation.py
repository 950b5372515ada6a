"""Asking the user, not the model: an MCP elicitation that shows exactly what will change, answered in the client.

The answer is the elicitation's `action`, which the client sets from what its user did; nothing the model passes
as a tool argument reaches it. Clients on a handshake-era connection (up to 2025-11-25) are asked with a
server-to-client `elicitation/create` request; on 2026-07-28 connections the tool returns the question as an
`InputRequiredResult`, and the client's retry carries the answer. There the question's digest travels in
`request_state` (sealed by the SDK's `RequestStateBoundary`), so an answer counts only for the exact text the user
was shown: if the proposals changed in between, the user is asked again.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp_types.version import is_version_at_least

Answer = Literal["accept", "decline", "cancel", "unsupported"]
CONFIRM_KEY = "confirm"
# No fields: the decision is the action itself (accept / decline / cancel), which no form value can fake.
CONFIRM_FORM: dict[str, Any] = {"type": "object", "properties": {}}
_INPUT_REQUIRED_SINCE = "2026-07-28"


def can_elicit(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Return True when the client declared form elicitation (a bare `elicitation: {}` means form, per the spec)."""
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None or (elicitation.form is None and elicitation.url is not None):
        return False
    return is_returned_question(ctx) or ctx.session.can_send_request


def is_returned_question(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Return True on connections where a tool returns its question instead of sending a request (2026-07-28+)."""
    return is_version_at_least(ctx.protocol_version, _INPUT_REQUIRED_SINCE)


def digest(message: str) -> str:
    """Return a short digest of the question text, which the answer must refer to."""
    return hashlib.sha256(message.encode("utf-8")).hexdigest()[:32]


async def ask_user(
    ctx: ServerRequestContext[Any, Any],
    message: str,
    *,
    input_responses: dict[str, Any] | None,
    request_state: str | None,
) -> Answer | types.InputRequiredResult:
    """Ask the user to accept `message`; return their answer, or the question to return to a 2026-07-28 client.

    Args:
        ctx: the tool call's request context.
        message: exactly what the user is asked to accept.
        input_responses: the retry's answers (2026-07-28), keyed as asked.
        request_state: the retry's echoed state (2026-07-28), unsealed by the SDK.

    """
    if not can_elicit(ctx):
        return "unsupported"
    if not is_returned_question(ctx):
        result = await ctx.session.elicit_form(message, CONFIRM_FORM, related_request_id=ctx.request_id)
        return result.action
    answer = (input_responses or {}).get(CONFIRM_KEY)
    if isinstance(answer, types.ElicitResult) and request_state == digest(message):
        return answer.action
    question = types.ElicitRequest(params=types.ElicitRequestFormParams(message=message, requested_schema=CONFIRM_FORM))
    return types.InputRequiredResult(input_requests={CONFIRM_KEY: question}, request_state=digest(message))
