"""Answering from the notes alone when the configured LLM endpoint fails before the answer starts."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterator, Sequence

from agent.llm.redaction import redact
from agent.retrieval_only import RetrievalOnlyAnswerer
from core.chat import AnswerEvent, AnswerText, TurnRequest
from core.errors import UpstreamUnavailable
from core.ports import Answerer
from rag.answer.passages import NO_MODEL_NOTICE, NO_MODEL_REFUSAL_NOTICE

logger = logging.getLogger(__name__)

UNREACHABLE_NOTICE = (
    "The language model at {endpoints} is unreachable, so here are the most relevant passages from your notes:"
)
UNREACHABLE_REFUSAL_NOTICE = (
    "(The language model at {endpoints} is unreachable, so replies are passages from your notes.)"
)
DEGRADED_MODE = "agent (retrieval-only while the LLM is unreachable)"


class FallbackAnswerer:
    """Answer with the primary (the agent); if its LLM fails before any text, answer with retrieved passages.

    Once text has been shown the failure is raised as it is, so the edge ends the reply with an error; a
    passages reply glued onto half an answer would read as one answer.
    """

    def __init__(
        self,
        primary: Answerer,
        fallback: RetrievalOnlyAnswerer,
        *,
        endpoints: Sequence[str],
        secrets: Sequence[str] = (),
    ) -> None:
        """Wrap `primary`.

        Args:
            primary: the answerer that needs the LLM.
            fallback: the answerer used when the LLM fails before the answer starts.
            endpoints: the LLM base URLs, named in the notice line (credentials in them are redacted).
            secrets: values to redact from the notice besides the generic credential patterns (the API key).

        """
        self._primary = primary
        self._fallback = fallback
        shown = ", ".join(redact(url, secrets) for url in endpoints) or "(none configured)"
        self._notices = {
            NO_MODEL_NOTICE: UNREACHABLE_NOTICE.format(endpoints=shown),
            NO_MODEL_REFUSAL_NOTICE: UNREACHABLE_REFUSAL_NOTICE.format(endpoints=shown),
        }
        self._is_degraded = False

    @property
    def mode(self) -> str:
        """Return the primary's mode, or the degraded mode while the last turn had to fall back."""
        return DEGRADED_MODE if self._is_degraded else self._primary.mode

    async def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        """Yield the primary's answer, or the passages reply when the LLM failed before the first text."""
        events = self._primary.answer(request)
        has_text = False
        try:
            async for event in events:
                if isinstance(event, AnswerText) and event.text:
                    has_text = True
                    self._is_degraded = False
                yield event
            return
        except UpstreamUnavailable as exc:
            if exc.service != "llm" or has_text:
                raise
            logger.warning("the LLM failed before answering; replying with passages: %s", exc.message)
        finally:
            # Close the primary now, so a cancelled turn stops its model call instead of waiting for GC.
            if isinstance(events, AsyncGenerator):
                await events.aclose()
        self._is_degraded = True
        async for event in self._fallback.answer(request):
            yield self._with_notice(event)

    def _with_notice(self, event: AnswerEvent) -> AnswerEvent:
        """Replace the fallback's "no model is configured" line: a model is configured, it just did not answer."""
        if not isinstance(event, AnswerText):
            return event
        line = event.text.rstrip("\n")
        notice = self._notices.get(line)
        return event if notice is None else AnswerText(notice + event.text[len(line) :])
