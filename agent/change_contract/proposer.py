"""Turning a change request into a proposal by code plus one constrained model reply (and at most one repair).

Code gathers the candidates and builds the schema; the model fills it in (`response_format`, a grammar where the
server has one); code validates the reply and makes the call of the existing write tool from it. The tool's own
checks (scope, the note and heading exist, the change changes something) count as validation: their message goes
back to the model in the one repair round. A proposal is stored, never applied: the edit gate shows its diff and
waits for "yes", as for every proposal. When no valid proposal comes of it the reply says so plainly, with what was
understood and how to rephrase; nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent.change_contract.candidates import gather
from agent.change_contract.due_dates import with_task_marks
from agent.change_contract.findings import Findings, TaskState
from agent.change_contract.operations import (
    OPERATIONS,
    TASK_STATES,
    asks_for_more,
    cued_operations,
    describe,
    is_new_task,
    tool_call,
)
from agent.change_contract.schema import Contract, contract_schema, offered, response_format, validate
from agent.turn import WriteToolBox
from core.chat import ChatMessage, ChatResult, Usage
from core.errors import AlreadyDone, AppError, OutOfScope
from core.ports import ChatModel
from llm_client.replies.reply_json import extract_json

# How the prompt names the tasks in each state; "other" is a task in progress (`[/]`) or of another mark.
_STATE_NAMES: dict[TaskState, str] = {"open": "open", "done": "done", "other": "in-progress or other"}
CONTRACT_TOKENS = 300  # the longest contract (a create with 500 characters of text) fits; a loop stops early
# Said when the request seems to ask for more than the one change proposed (the 0.5B dropped the rest silently).
ONE_CHANGE = (
    "I propose one change per request, so only this one is shown; once it is settled, ask for the other change in "
    "its own message."
)
OUT_OF_SCOPE = (
    "Nothing was proposed and nothing in your vault changed: only notes in the writable folders can be changed "
    "(WRITABLE_FOLDERS in the librarian's settings)."
)
NOTHING_CHANGED = "Nothing was proposed and nothing in your vault changed."
REPHRASE = (
    f"{NOTHING_CHANGED} Try naming the note and the change, e.g. "
    '“Add the tag garden to the note Garlic”, “Add a task "Water the beans" to the Garden note”, '
    '“Set the property status to done in the note X”, or “Append "…" to the Ideas section of the note X”.'
)


@dataclass(slots=True)
class ContractOutcome:
    """What the contract path made of a request: the reply text and the model usage."""

    text: str
    is_proposed: bool
    usage: list[Usage] = field(default_factory=list)


class ContractProposer:
    """Propose one change for a request through a change contract; see the module docstring."""

    def __init__(self, chat_model: ChatModel, *, max_tokens: int = CONTRACT_TOKENS) -> None:
        self._chat_model = chat_model
        self._max_tokens = max_tokens

    async def propose(
        self, request: str, writes: WriteToolBox, *, hits: Sequence[str], cited: Sequence[str] = ()
    ) -> ContractOutcome:
        """Return the outcome of proposing the change `request` asks for through `writes` (never writing).

        `cited`: the notes the previous answer linked to, what "that note" refers to.
        """
        cued = cued_operations(request)
        findings = gather(writes.reader, request, hits=hits, cited=cited, is_new_task=is_new_task(cued))
        operations = offered(cued, findings)
        if not operations:
            return ContractOutcome(_nothing_found(findings), is_proposed=False)
        schema = contract_schema(operations, findings, request)
        messages = [
            ChatMessage("system", contract_prompt(operations, findings)),
            ChatMessage("user", request),
        ]
        outcome = ContractOutcome("", is_proposed=False)
        understood: Contract | None = None
        error: AppError | None = None
        for _attempt in range(2):  # the reply, then one repair with what was wrong
            result = await self._ask(messages, schema)
            outcome.usage.append(result.usage)
            try:
                understood = with_task_marks(
                    validate(extract_json(result.content), operations, findings, request), findings
                )
                name, arguments = tool_call(understood.operation, understood.values, understood.target)
                await writes.run(name, json.dumps(arguments))
            except AppError as exc:  # a bad reply, or the write tool's checks (a note that exists, no change)
                error = exc
                if isinstance(exc, AlreadyDone):  # understood, and so already: asked again, a model may pick another
                    break
                reason = exc.message.rstrip(".")
                repair = f"That reply cannot be used: {reason}. Reply with the corrected JSON object only."
                messages = [*messages, ChatMessage("assistant", result.content), ChatMessage("user", repair)]
            else:
                outcome.text = f"I read your request as: {describe_contract(understood)}."
                if asks_for_more(request):
                    outcome.text += f" {ONE_CHANGE}"
                outcome.is_proposed = True
                return outcome
        outcome.text = _failed(understood, error)
        return outcome

    async def _ask(self, messages: Sequence[ChatMessage], schema: dict[str, object]) -> ChatResult:
        return await self._chat_model.complete(
            messages, response_format=response_format(schema), max_tokens=self._max_tokens
        )


def contract_prompt(operations: Sequence[str], findings: Findings) -> str:
    """Return the system message: the task, the operations offered and the notes that may be targeted."""
    lines = [
        "You turn one change request for an Obsidian vault into one JSON object. Reply with the JSON object only.",
        "Operations:",
        *(f"- {name}: {OPERATIONS[name].description}" for name in operations),
    ]
    # The tasks a complete or reopen may pick, per note: open ones to complete, done ones to reopen.
    states = [state for name, picked in TASK_STATES.items() if name in operations for state in picked]
    if any(OPERATIONS[name].has_target for name in operations):
        lines.append("Notes the change may target (write the path exactly):")
        for candidate in findings.candidates:
            headings = f"; headings: {', '.join(candidate.headings)}" if candidate.headings else ""
            missing = " (does not exist yet; created when the change is applied)" if not candidate.exists else ""
            tasks = "".join(
                f"; {_STATE_NAMES[state]} tasks: {' | '.join(texts)}"
                for state in states
                if (texts := candidate.task_texts((state,)))
            )
            lines.append(f"- {candidate.path}: {candidate.label}{missing}{headings}{tasks}")
    lines.append("Copy texts, names, tags and values from the request exactly; add nothing of your own.")
    return "\n".join(lines)


def describe_contract(contract: Contract) -> str:
    """Return the change a contract states, in words."""
    return describe(contract.operation, contract.values, contract.target)


def _nothing_found(findings: Findings) -> str:
    if findings.missing:  # "the Dune note" with no such note: say so, rather than change another one
        return f"I could not find the note you named: {findings.describe_missing()}. {REPHRASE}"
    if not findings.candidates:
        return f"I could not tell which note to change: the request names none I can find. {REPHRASE}"
    return f"I could not tell which change to make to {', '.join(findings.paths)}. {REPHRASE}"


def _failed(understood: Contract | None, error: AppError | None) -> str:
    what = f" I understood: {describe_contract(understood)}." if understood is not None else ""
    if isinstance(error, AlreadyDone):  # "the note already has the tag 'baking'": no rephrasing helps
        return f"Nothing to change: {error.state}.{what} {NOTHING_CHANGED}"
    reason = error.message.rstrip(".") if error is not None else "no reply could be used"
    # Naming the note again does not help with a folder no edit may write.
    advice = OUT_OF_SCOPE if isinstance(error, OutOfScope) else REPHRASE
    return f"I could not turn this request into a change I can propose: {reason}.{what} {advice}"
