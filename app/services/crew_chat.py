"""Crews from chat: "run the Daily-Briefing crew" runs it dry and shows its writes as proposals through the edit gate.

The crew's planned writes become ordinary proposals of the conversation, so the edit gate that wraps this answerer
shows their diffs, and only the user's "yes" applies exactly them (scope, staleness hash, snapshot, undo). Code
recognises the request; the model is not asked.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta

from core.chat import AnswerDone, AnswerEvent, AnswerStatus, AnswerText, TurnRequest, Usage
from core.edits import ProposedEdit
from core.errors import AppError
from core.ports import Answerer
from crews.logs.run_state import RunState, planned_write
from crews.service import CrewService
from crews.writes.apply_run import to_proposals
from edits.proposals import SqliteProposalStore

# "run the Daily-Briefing crew", "please start crew Task-Triage", "führe die Crew Daily-Briefing aus"
_REQUEST = re.compile(
    r"^\s*(?:please\s+|bitte\s+)?(?:run|start|führe|starte)\s+(?:the\s+|die\s+|den\s+)?"
    r"(?:(?:crew|team)\s+(?P<after>[\w.-]+)|(?P<before>[\w.-]+)\s+(?:crew|team))\b",
    re.IGNORECASE,
)


def crew_request(message: str) -> str | None:
    """Return the crew a message asks to run ("run the X crew"), or None."""
    match = _REQUEST.match(message[:300])
    return (match.group("after") or match.group("before")) if match else None


class CrewChatAnswerer:
    """Answer "run the X crew" with a dry run whose writes wait as proposals; pass every other turn on."""

    def __init__(
        self,
        inner: Answerer,
        crews: CrewService,
        store: SqliteProposalStore,
        *,
        ttl_minutes: float,
        clock: Callable[[], datetime],
    ) -> None:
        self._inner = inner
        self._crews = crews
        self._store = store
        self._ttl = timedelta(minutes=ttl_minutes)
        self._clock = clock

    @property
    def mode(self) -> str:
        """Return the wrapped answerer's mode."""
        return self._inner.mode

    async def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        """Run the named crew dry and store its writes as proposals, or let the wrapped answerer answer."""
        latest = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
        name = crew_request(latest)
        if name is None or self._crews.catalog().team(name) is None:
            async for event in self._inner.answer(request):
                yield event
            return
        yield AnswerStatus(f"running the {name} crew (dry run)…")
        text = await self._dry_run(name, request.conversation_id)
        yield AnswerText(text)
        yield AnswerDone(usage=Usage(0, 0, is_estimate=True))

    async def _dry_run(self, name: str, conversation_id: str) -> str:
        try:
            state = await self._crews.run(name, dry_run=True, trigger="chat")
        except AppError as exc:
            return f"The {name} crew could not run: {exc.message}"
        if state.status != "ok":
            return unfinished_dry_run(state)
        if not state.planned:
            return f"The {state.crew} crew ran (dry run {state.id}) and found nothing to change."
        for proposal in proposals_of_run(state, conversation_id, now=self._clock(), ttl=self._ttl):
            self._store.add(proposal)
        count = len(state.planned)
        return f"The {state.crew} crew ran as a dry run ({state.id}) and would make {count} change(s):"


def unfinished_dry_run(state: RunState) -> str:
    """Return what a dry run that did not end ok tells: why, then each task with its lines.

    A dry run without a model stops after its collector, and its error says that what the collector gathered is
    listed with its task: these lines are that list.
    """
    why = state.error or "see its run log"
    lines = [f"The dry run of {state.crew} ended {state.status}: {why} (run {state.id})."]
    for task in state.tasks:
        lines.append(f"- {task.id} ({task.what}): {task.status}")
        lines.extend(f"  - {line}" for line in task.lines)
    return "\n".join(lines)


def proposals_of_run(state: RunState, conversation_id: str, *, now: datetime, ttl: timedelta) -> list[ProposedEdit]:
    """Return a dry run's planned writes as proposals of the conversation (stored by the caller)."""
    writes = [planned_write(item) for item in state.planned]
    return to_proposals(writes, conversation_id=conversation_id, now=now, ttl=ttl, shown_as_crew=state.crew)
