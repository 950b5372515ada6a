"""An optional judge model: an OpenAI-compatible endpoint that grades an answer 0-1 against the reference evidence.

The eval does not need it (facts are matched in code); a judge adds a score for answers worded unlike the facts.
"""

from __future__ import annotations

import json
import re

from pydantic import SecretStr

from app.eval.golden import GoldenItem
from core.chat import ChatMessage
from core.settings import LlmSettings
from llm_client import OpenAICompatibleChatModel

JUDGE_RULES = """\
You grade an assistant's answer to a question about the user's notes. You get the question, reference evidence \
quoted from the notes, the key facts a correct answer states, and the answer. Score 1 when the answer states \
every key fact correctly and adds nothing the evidence contradicts, 0 when it is wrong, refuses or misses the \
point, and in between for partly correct answers. Reply with JSON only: \
{"score": <0 to 1>, "reason": "<one sentence>"}"""
GRADE_FORMAT: dict[str, object] = {
    "type": "json_schema",
    "json_schema": {
        "name": "grade",
        "schema": {
            "type": "object",
            "properties": {"score": {"type": "number", "minimum": 0, "maximum": 1}, "reason": {"type": "string"}},
            "required": ["score", "reason"],
        },
    },
}
_NUMBER = re.compile(r"(?<![\d.])(?:0(?:\.\d+)?|1(?:\.0+)?|\.\d+)(?![\d.])")


def parse_grade(text: str) -> float | None:
    """Return the score of a judge's reply: the JSON `score`, else the first number from 0 to 1 in the text."""
    try:
        data = json.loads(text.strip().removeprefix("```json").removesuffix("```"))
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("score"), int | float) and not isinstance(data["score"], bool):
        return min(1.0, max(0.0, float(data["score"])))
    found = _NUMBER.search(text)
    return float(found[0]) if found else None


class AnswerJudge:
    """Grade answers with a model at an OpenAI-compatible endpoint (implements app.eval.runner.Judge)."""

    def __init__(self, base_url: str, *, model: str | None, api_key: str | None, timeout_seconds: float) -> None:
        settings = LlmSettings(
            base_urls=(base_url,),
            api_key=SecretStr(api_key) if api_key else None,
            model=model,
            connect_timeout_seconds=10.0,
            read_timeout_seconds=timeout_seconds,
            retries=1,
            probe_local_ports=False,
            # The judge's own call, not the librarian's settings: no tools, no warm-up, a short reply, no sampling.
            endpoint_keys=(),
            tools="off",
            context_tokens=None,
            warm_up=False,
            max_tokens=256,
            temperature=0.0,
        )
        self._model = OpenAICompatibleChatModel(settings)

    async def aclose(self) -> None:
        """Close the endpoint's connections."""
        await self._model.aclose()

    async def grade(self, item: GoldenItem, reply: str) -> float | None:
        """Return the judge's 0-1 score for `reply` to the item, or None when its reply holds no score."""
        reply_is = [f"the reply to the question is {item.answer_is!r}"] if item.answer_is is not None else []
        facts = "\n".join(f"- {' / '.join(fact)}" for fact in [*item.facts, reply_is] if fact)
        evidence = "\n".join(f"> {quote}" for quote in item.evidence)
        prompt = (
            f"Question: {item.question}\n\nReference evidence:\n{evidence}\n\nKey facts:\n{facts}\n\nAnswer:\n{reply}"
        )
        messages = [ChatMessage(role="system", content=JUDGE_RULES), ChatMessage(role="user", content=prompt)]
        result = await self._model.complete(messages, response_format=GRADE_FORMAT)
        return parse_grade(result.content)
