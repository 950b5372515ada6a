"""What one turn works with outside the checkpoint: the tools, the citation checker and what the user has seen."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from agent.citation_stream import CitationChecker, CitationStream
from agent.tools.reader import VaultReader
from core.chat import ToolSpec, Usage
from core.edits import ProposedEdit

REPLY_SEPARATOR = "\n\n"  # between text the model wrote before calling tools and what it writes after
STOPPED_EARLY = "(I stopped here: the question needed more steps than allowed.)"
# Ends the reply to "follow the instructions in my X note" (agent.gate.note_instructions).
NOTE_ORDERS = (
    "(I don't carry out instructions written in notes, so this turn changed nothing in your vault. "
    "To make one of those changes, ask me for it in your own words.)"
)


class ToolResult(Protocol):
    """What a tool run gives the model, and the anchors it surfaced (allowed citations)."""

    @property
    def text(self) -> str:
        """Return the text for the model."""
        ...

    @property
    def anchors(self) -> Sequence[str]:
        """Return citation anchors of what the tool read."""
        ...


class ToolBox(Protocol):
    """The read tools offered to the model."""

    def specs(self, message: str | None = None) -> list[ToolSpec]:
        """Return the tool descriptions the model reads: those `message` calls for, or all (None)."""
        ...

    async def run(self, name: str, arguments_json: str) -> ToolResult:
        """Run one tool call; bad arguments raise an AppError with a message the model can act on."""
        ...


class WriteToolBox(ToolBox, Protocol):
    """One turn's propose-only write tools (`agent.propose.ProposalToolbox`)."""

    def has_tool(self, name: str) -> bool:
        """Return True when `name` is one of its tools."""
        ...

    @property
    def proposals(self) -> Sequence[ProposedEdit]:
        """Return the proposals made this turn."""
        ...

    @property
    def reader(self) -> VaultReader:
        """Return the vault as the tools read it (the change contract gathers its candidates there)."""
        ...


def stopped_notice(*, after_text: bool) -> str:
    """Return the notice that ends a turn cut short by the step limit."""
    return f"{REPLY_SEPARATOR}{STOPPED_EARLY}" if after_text else STOPPED_EARLY


def note_orders_notice(*, after_text: bool) -> str:
    """Return the notice that ends the reply to a request to carry out what a note says."""
    return f"{REPLY_SEPARATOR}{NOTE_ORDERS}" if after_text else NOTE_ORDERS


@dataclass(slots=True)
class TurnScratch:
    """Per-turn objects that are not checkpointed: the citation checker, the text shown so far and the usage."""

    checker: CitationChecker
    stream: CitationStream
    usage: Usage = field(default_factory=Usage)
    shown: list[str] = field(default_factory=list)  # every piece of text streamed to the user this turn
    reply: list[str] = field(default_factory=list)  # the checked text of the current model reply
    finish_reason: str = "stop"  # of the model's final reply ("length" when it ran out of tokens)
    writes: WriteToolBox | None = None  # this turn's write tools; None when the vault is read-only
    offered: tuple[ToolSpec, ...] = ()  # the tools offered to the latest model call; only these run
    withheld: str = ""  # the opening the answer check withheld, for what the refusal quotes under it

    @property
    def shown_text(self) -> str:
        """Return everything the user has been shown this turn."""
        return "".join(self.shown)

    @property
    def reply_text(self) -> str:
        """Return the checked text of the current model reply."""
        return "".join(self.reply)

    def start_reply(self) -> None:
        """Begin a model reply."""
        self.reply = []

    def show_reply(self, text: str) -> str:
        """Record checked reply text as shown; return what to stream (a separator before a later reply's text)."""
        if not text:
            return ""
        shown = f"{REPLY_SEPARATOR}{text}" if self.shown and not self.reply else text
        self.reply.append(text)
        self.shown.append(shown)
        return shown

    def show(self, text: str) -> str:
        """Record text that is not the model's (the refusal, a notice, the sources) as shown; return it."""
        if text:
            self.shown.append(text)
        return text

    def add_usage(self, usage: Usage | None) -> None:
        """Accumulate the usage of one model call."""
        if usage is not None:
            self.usage = Usage(
                self.usage.prompt_tokens + usage.prompt_tokens,
                self.usage.completion_tokens + usage.completion_tokens,
                self.usage.is_estimate or usage.is_estimate,
            )
