"""The reply the quote call asks for, as a JSON schema the server constrains decoding to, and its validation.

Servers with constrained decoding (llama.cpp's json_schema, vLLM, OpenAI) can only write a reply of this shape, the
passage ids limited to those offered; elsewhere the format is dropped (llm_client.completions.refusals) and the reply is
validated here, so one repair round can name what was wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llm_client.replies.reply_json import OutputInvalid, extract_json, schema_response_format
from rag.answer.quotes import MAX_QUOTES, Quote

MAX_QUOTE_CHARS = 400  # a sentence or a table row; more is the model copying a note out
MAX_ANSWER_CHARS = 600


@dataclass(frozen=True, slots=True)
class QuoteReply:
    """What the model returned: the quotes it claims answer the question, and its answer written from them."""

    quotes: tuple[Quote, ...]
    answer: str


class InvalidQuoteReply(ValueError):
    """The reply is not the JSON asked for; the message says what is wrong, for the repair round."""


def quote_schema(passage_ids: Sequence[str]) -> dict[str, Any]:
    """Return the JSON schema of the reply: quotes naming one of `passage_ids`, then the answer."""
    quote = {
        "type": "object",
        "properties": {
            "passage": {"type": "string", "enum": list(passage_ids)},
            "quote": {"type": "string", "maxLength": MAX_QUOTE_CHARS},
        },
        "required": ["passage", "quote"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "quotes": {"type": "array", "items": quote, "maxItems": MAX_QUOTES},
            "answer": {"type": "string", "maxLength": MAX_ANSWER_CHARS},
        },
        "required": ["quotes", "answer"],
        "additionalProperties": False,
    }


def response_format(passage_ids: Sequence[str]) -> dict[str, Any]:
    """Return OpenAI's `response_format` asking for `quote_schema`."""
    return schema_response_format("quoted_answer", quote_schema(passage_ids))


def parse_reply(text: str, passage_ids: Sequence[str]) -> QuoteReply:
    """Return the reply `text` holds; raise InvalidQuoteReply saying what is wrong.

    A JSON object inside a fence, after a sentence or after a <think> block is still read (models without constrained
    decoding add them).
    """
    data = _json_object(text)
    quotes, answer = data.get("quotes"), data.get("answer", "")
    if not isinstance(quotes, list):
        raise InvalidQuoteReply('"quotes" must be a list of {"passage": ..., "quote": ...}')
    if not isinstance(answer, str):
        raise InvalidQuoteReply('"answer" must be a string')
    parsed: list[Quote] = []
    for item in quotes:
        if not isinstance(item, Mapping) or not isinstance(item.get("quote"), str):
            raise InvalidQuoteReply('each quote must be {"passage": "<id>", "quote": "<exact words>"}')
        passage = str(item.get("passage", ""))
        if passage not in passage_ids:
            raise InvalidQuoteReply(f'"passage" must be one of {", ".join(passage_ids)}, not {passage!r}')
        parsed.append(Quote(passage=passage, text=item["quote"]))
    return QuoteReply(quotes=tuple(parsed), answer=answer.strip())


def _json_object(text: str) -> dict[str, Any]:
    """Return the JSON object in a reply (llm_client.replies.reply_json.extract_json); raise InvalidQuoteReply if none.

    A reply with no "{" is prose: it is told so, not that its "[[link]]" is broken JSON.
    """
    if "{" not in text:
        raise InvalidQuoteReply("the reply must be one JSON object")
    try:
        data = extract_json(text)
    except OutputInvalid as exc:
        raise InvalidQuoteReply(exc.message) from exc
    if not isinstance(data, dict):
        raise InvalidQuoteReply("the reply must be one JSON object")
    return data
