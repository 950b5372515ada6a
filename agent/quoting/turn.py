"""One quote-first answer in a chat turn: ask for quotes, verify them, stream the answer or the refusal."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from agent.quoting.answer import not_said_refusal, quoted_answer
from agent.quoting.call import ask_for_quotes
from agent.quoting.prompt import offered_passages, quote_messages
from agent.turn import TurnScratch
from core.chat import ChatMessage
from core.ports import ChatModel
from rag.answer.context import is_refusal
from rag.answer.quotes import verified_quotes

logger = logging.getLogger(__name__)

Write = Callable[[Any], None]


@dataclass(frozen=True, slots=True)
class QuoteInputs:
    """What the quote call reads: the model, the conversation for it, the turn's passages and the date."""

    chat_model: ChatModel
    history: list[ChatMessage]  # agent.history.model_history, this turn's question last
    context: str  # the turn's passages as `<note>` elements (rag.answer.context)
    today: date | None  # None: the question does not depend on it (agent.prompts.turn_preamble)
    fit: Callable[[list[ChatMessage]], Awaitable[list[ChatMessage]]]  # into the model's context window


async def quoted_reply(inputs: QuoteInputs, scratch: TurnScratch, write: Write) -> str | None:
    """Show the answer from verified quotes, or the refusal; return the reply's checked text.

    None when there are no passages, or the model's reply was unreadable even after the repair round: the turn is
    then answered in one plain completion, as before quoting.
    """
    passages = offered_passages(inputs.context)
    if not passages:
        return None
    write({"status": "reading the notes…"})
    messages = await inputs.fit(quote_messages(inputs.history, passages, today=inputs.today))
    call = await ask_for_quotes(inputs.chat_model, messages, [passage.id for passage in passages])
    for usage in call.usages:
        scratch.add_usage(usage)
    if call.reply is None:
        logger.info("the quote reply was unreadable after a repair round; answering in one completion")
        return None
    verified = verified_quotes(call.reply.quotes, passages)
    logger.debug(
        "quotes: %d offered by the model, %d verified; offered %r, verified %r, answer %r",
        len(call.reply.quotes),
        len(verified),
        call.reply.quotes,
        verified,
        call.reply.answer,
    )
    if not verified or is_refusal(call.reply.answer):
        text = not_said_refusal(passages)
    else:
        question = (inputs.history[-1].content or "") if inputs.history else ""
        text = quoted_answer(call.reply.answer, verified, passages, question=question)
    scratch.start_reply()
    shown = scratch.show_reply(await scratch.stream.feed(text)) + scratch.show_reply(scratch.stream.flush())
    if shown:
        write({"text": shown})
    return scratch.reply_text
