"""The quote call: constrained to the schema where the server can, validated always, repaired once where not."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent.quoting.schema import InvalidQuoteReply, QuoteReply, parse_reply, response_format
from core.chat import ChatMessage, Usage
from core.ports import ChatModel

QUOTE_TOKENS = 400  # three quotes of a sentence or two and a short answer; a reply cut here is repaired or dropped
REPAIR_REQUEST = (
    "Your reply could not be read: {error}. Reply again with only the JSON object: "
    '{{"quotes": [{{"passage": "<id>", "quote": "<exact words>"}}], "answer": "<answer>"}}.'
)


@dataclass(frozen=True, slots=True)
class QuoteCall:
    """What the quote call gave: the reply (None when even the repair was unreadable) and each call's usage."""

    reply: QuoteReply | None
    usages: tuple[Usage, ...]
    repaired: bool = False  # the first reply was unreadable and the second was asked for


async def ask_for_quotes(
    chat_model: ChatModel,
    messages: Sequence[ChatMessage],
    passage_ids: Sequence[str],
    *,
    max_tokens: int = QUOTE_TOKENS,
) -> QuoteCall:
    """Ask for quotes and an answer; when the reply is not the JSON asked for, ask once more saying what was wrong.

    The second request repeats the first word for word with the bad reply and the correction after it, so a
    server's prompt cache reads only the new part.
    """
    wanted = response_format(passage_ids)
    first = await chat_model.complete(messages, response_format=wanted, max_tokens=max_tokens)
    try:
        return QuoteCall(parse_reply(first.content, passage_ids), (first.usage,))
    except InvalidQuoteReply as exc:
        error = str(exc)
    repair = [
        *messages,
        ChatMessage(role="assistant", content=first.content),
        ChatMessage(role="user", content=REPAIR_REQUEST.format(error=error)),
    ]
    second = await chat_model.complete(repair, response_format=wanted, max_tokens=max_tokens)
    try:
        reply: QuoteReply | None = parse_reply(second.content, passage_ids)
    except InvalidQuoteReply:
        reply = None
    return QuoteCall(reply, (first.usage, second.usage), repaired=True)
