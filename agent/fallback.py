"""Answering from the notes alone when the configured LLM endpoint fails before the answer starts."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from urllib.parse import urlsplit

from agent.retrieval_only import RetrievalOnlyAnswerer
from core.chat import AnswerEvent, AnswerText, TurnRequest
from core.errors import UpstreamUnavailable
from core.ports import Answerer
from llm_client.secrets.redaction import redact
from rag.answer.passages import NO_MODEL_CHANGES, NO_MODEL_NOTICE, NO_MODEL_REFUSAL_NOTICE

logger = logging.getLogger(__name__)

# Replies name no host or port (an API client need not learn where the LLM runs); the log line does.
UNREACHABLE_NOTICE = "The language model is unreachable, so here are the most relevant passages from your notes:"
UNREACHABLE_REFUSAL_NOTICE = "(The language model is unreachable, so replies are passages from your notes.)"
UNREACHABLE_CHANGES = "Changes need a language model, and the language model is unreachable; try again later."
# When the endpoint was reached but failed (an error status, a reply broken off while its opening was held, an empty
# or malformed reply): "unreachable" would send the user to check a server that is up.
FAILED_NOTICE = "The language model failed to answer, so here are the most relevant passages from your notes:"
FAILED_REFUSAL_NOTICE = "(The language model failed to answer, so replies are passages from your notes.)"
FAILED_CHANGES = "Changes need a language model, and the language model failed to answer; try again later."
FALLBACK_NOTICES = (UNREACHABLE_NOTICE, FAILED_NOTICE)
FALLBACK_REFUSAL_NOTICES = (UNREACHABLE_REFUSAL_NOTICE, FAILED_REFUSAL_NOTICE)
FALLBACK_CHANGES = (UNREACHABLE_CHANGES, FAILED_CHANGES)
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")
_ADDRESS = re.compile(r"\s*\('[^']*', \d+\)|\b[\w.-]+:\d{2,5}\b")  # ('127.0.0.1', 11434), localhost:1234
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
            endpoints: the LLM base URLs, named in the log line (credentials in them are redacted), never in replies.
            secrets: values to redact from the log line besides the generic credential patterns (the API key).

        """
        self._primary = primary
        self._fallback = fallback
        self._endpoints = ", ".join(redact(url, secrets) for url in endpoints) or "(none configured)"
        self._hosts = tuple(host for url in endpoints if (host := urlsplit(url).hostname))
        self._notices = {
            False: {
                NO_MODEL_NOTICE: UNREACHABLE_NOTICE,
                NO_MODEL_REFUSAL_NOTICE: UNREACHABLE_REFUSAL_NOTICE,
                NO_MODEL_CHANGES: UNREACHABLE_CHANGES,
            },
            True: {
                NO_MODEL_NOTICE: FAILED_NOTICE,
                NO_MODEL_REFUSAL_NOTICE: FAILED_REFUSAL_NOTICE,
                NO_MODEL_CHANGES: FAILED_CHANGES,
            },
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
        was_reached = False
        try:
            async for event in events:
                if isinstance(event, AnswerText) and event.text:
                    has_text = True
                    self._is_degraded = False
                yield event
            return
        except UpstreamUnavailable as exc:
            if exc.service != "llm":
                raise
            if has_text:
                shown = self._for_client(exc)
                if shown is exc:
                    raise
                raise shown from exc
            was_reached = exc.was_reached
            logger.warning(
                "the LLM at %s failed before answering; replying with passages: %s", self._endpoints, exc.message
            )
        finally:
            # Close the primary now, so a cancelled turn stops its model call instead of waiting for GC.
            if isinstance(events, AsyncGenerator):
                await events.aclose()
        self._is_degraded = True
        async for event in self._fallback.answer(request):
            yield self._with_notice(event, was_reached=was_reached)

    def _for_client(self, exc: UpstreamUnavailable) -> UpstreamUnavailable:
        """Return the error an API client sees: the failure without the endpoint's address (logged instead)."""
        shown = _ADDRESS.sub("", _URL.sub("the language model", exc.message))
        for host in self._hosts:
            shown = shown.replace(host, "the language model's host")
        if shown == exc.message:
            return exc  # e.g. "the model returned an empty answer": nothing to hide
        logger.warning("the LLM at %s failed while answering: %s", self._endpoints, exc.message)
        return UpstreamUnavailable("llm", shown.removeprefix("llm is unavailable: "), was_reached=exc.was_reached)

    def _with_notice(self, event: AnswerEvent, *, was_reached: bool) -> AnswerEvent:
        """Replace the fallback's "no model is configured" line: a model is configured, it just did not answer."""
        if not isinstance(event, AnswerText):
            return event
        line = event.text.rstrip("\n")
        notice = self._notices[was_reached].get(line)
        return event if notice is None else AnswerText(notice + event.text[len(line) :])
