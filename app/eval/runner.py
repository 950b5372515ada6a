"""Running golden items through a librarian's HTTP API, one conversation each, and scoring what came back.

The eval never approves a proposal: an edit item passes when the reply shows the expected proposal, and the change
log must not gain an entry for its conversation. A service that applies proposals without asking is refused.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from agent.fallback import FALLBACK_CHANGES, FALLBACK_NOTICES, FALLBACK_REFUSAL_NOTICES
from app.eval.api import LibrarianApi, ServiceMode
from app.eval.golden import GoldenItem
from app.eval.scoring import ItemScore, LinkCheck, Observation, score_item
from app.eval.totals import Totals, summarise
from core.errors import AppError, InvalidRequest

logger = logging.getLogger(__name__)

WARM_UP_WAIT_SECONDS = 120.0  # a 1.5B model on two cores loads and reads its warm-up prompts in about 30 s


class Judge(Protocol):
    """Grades an answer against the item's reference evidence."""

    async def grade(self, item: GoldenItem, reply: str) -> float | None:
        """Return a 0-1 score, or None when the judge gave none."""
        ...


@dataclass(frozen=True, slots=True)
class EvalRun:
    """A finished run: where and how it ran, each item's score, the totals."""

    info: dict[str, object]
    scores: list[ItemScore]
    totals: Totals


OnItem = Callable[[int, int, ItemScore], None]


async def run_eval(
    api: LibrarianApi,
    items: Sequence[GoldenItem],
    links: LinkCheck,
    *,
    k: int,
    judge: Judge | None = None,
    on_item: OnItem | None = None,
    stream: bool = True,
) -> EvalRun:
    """Run every item in order (one at a time: local model servers often have one slot) and score it.

    Replies are streamed, as chat apps ask for them, unless `stream` is False; a streamed reply also says how long
    the user waited for its first text.
    """
    mode = await api.mode()
    if mode.auto_applies:
        raise InvalidRequest(
            f"the service at {api.base_url} applies proposals without asking (WRITE_CONFIRM=false), so an eval "
            "could change its vault; evaluate a service with WRITE_CONFIRM=true, or let the eval start its own"
        )
    # Issue 16's first-text figure is the service's after warm-up (LLM_WARM_UP off: not waited for long).
    speed = await api.wait_for_warm_up(wait_seconds=WARM_UP_WAIT_SECONDS) if mode.mode == "agent" else None
    run_id = uuid.uuid4().hex[:8]
    info: dict[str, object] = {
        "url": api.base_url,
        "mode": mode.mode,
        "llm": mode.llm,
        "prompt_tokens_per_second": speed,
        "writes": mode.writes,
        "k": k,
        "streamed": stream,
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "run_id": run_id,
    }
    scores: list[ItemScore] = []
    for number, item in enumerate(items, start=1):
        conversation = f"eval-{run_id}-{item.id}"
        seen = await observe(api, item, mode, k=k, conversation=conversation, judge=judge, stream=stream)
        scores.append(score_item(item, seen, links))
        if on_item is not None:
            on_item(number, len(items), scores[-1])
    return EvalRun(info, scores, summarise(scores))


async def observe(
    api: LibrarianApi,
    item: GoldenItem,
    mode: ServiceMode,
    *,
    k: int,
    conversation: str,
    judge: Judge | None,
    stream: bool = True,
) -> Observation:
    """Return what the service showed for one item: search ranking, reply, changes made, the judge's grade."""
    skipped = mode.edit_skip_reason() if item.kind == "edit" else None
    if skipped is not None:
        return Observation(skipped=skipped)
    ranked: tuple[str, ...] = ()
    try:
        if item.kind == "answer":
            ranked = await api.ranked_notes(item.question, k)
        reply = await api.ask(item.question, conversation, stream=stream)
        written = await api.changed_paths(conversation)
    except AppError as exc:
        return Observation(ranked_notes=ranked, error=exc.message)
    has_model = mode.mode != "retrieval-only"
    grade = None
    if judge is not None and item.kind == "answer":
        try:
            grade = await judge.grade(item, reply.text)
        except AppError as exc:  # the item stays ungraded; its matched facts still score it
            logger.warning("the judge failed on %s: %s", item.id, exc.message)
    return Observation(
        ranked_notes=ranked,
        reply=reply.text,
        seconds=reply.seconds,
        first_token_seconds=reply.first_token_seconds,
        # Without a model the service reports estimates of the text, which say nothing about a prompt.
        prompt_tokens=reply.prompt_tokens if has_model else None,
        completion_tokens=reply.completion_tokens if has_model else None,
        written=written,
        judge=grade,
        fell_back=is_fallback_reply(reply.text),
    )


def is_fallback_reply(text: str) -> bool:
    """Return True for the passages the service shows when its LLM failed before answering."""
    return text.startswith((*FALLBACK_NOTICES, *FALLBACK_CHANGES)) or any(n in text for n in FALLBACK_REFUSAL_NOTICES)
