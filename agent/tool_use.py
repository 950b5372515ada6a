"""Whether the chat model is offered tools: decided per process and model id from what it does with them.

The rule (LLM_TOOLS=auto): a model is offered tools until UNUSABLE_REPLIES rounds that offered them have ended
in an unusable reply (empty, or a call written as text whose JSON does not decode) while the model has not made
one call of an offered tool (structured or written as text) since the service started. From then on that model
answers each turn in one completion without tools, from the passages retrieved for the question (citations still
checked). Each unusable reply is itself never shown: its turn is answered again without tools. Two, not one,
because a small model that does call tools still breaks a call now and then (Qwen2.5 0.5B: recorded).

Questions (no change asked) are answered in one completion from the passages until the model has made a
structured tool call (`tool_calls` in its reply; agent/prompt_cache.py asks for one at start). A model that writes
its calls as text instead (Qwen2.5 0.5B and 1.5B) looped on questions: search after search, then "needed more
steps than allowed", in 10 of the golden set's 20 answerable questions, with four to nine thousand prompt tokens
a turn; a question naming a day or links ("how many links does the chain have") still got tools and looped. Its
change requests still get tools: its calls written as text are run.
LLM_TOOLS=on always offers tools, LLM_TOOLS=off never does.

Change requests to a model not seen making a structured call (and with LLM_TOOLS=off) go through a change contract
instead of free tool calls (`uses_contract`, agent/change_contract/): code finds the candidate notes and the model
fills in a JSON schema bound to them.
"""

from __future__ import annotations

import logging
from typing import Literal

logger = logging.getLogger(__name__)

ToolsSetting = Literal["auto", "on", "off"]
UNUSABLE_REPLIES = 2


class ToolUse:
    """Remembers, per model id, whether the model calls tools; says whether to offer them."""

    def __init__(self, setting: ToolsSetting = "auto") -> None:
        self._setting = setting
        self._callers: set[str] = set()  # models that made a tool call since the start
        self._structured: set[str] = set()  # models that made one as `tool_calls`, not written as text
        self._unusable: dict[str, int] = {}  # unusable replies per model that has made no call
        self._without: set[str] = set()  # models answered without tools from now on

    def is_offered(self, model: str) -> bool:
        """Return True when `model` is offered tools this turn."""
        if self._setting == "auto":
            return model not in self._without
        return self._setting == "on"

    def is_offered_on_questions(self, model: str) -> bool:
        """Return True when a question (a message asking no change) to `model` is offered tools."""
        if self._setting == "auto":
            return model in self._structured and model not in self._without
        return self._setting == "on"

    def uses_contract(self, model: str) -> bool:
        """Return True when a change request to `model` goes through a change contract (agent/change_contract/).

        Every model but one seen making a structured tool call (the warm-up probe asks for one), unless LLM_TOOLS=on:
        free tool calls let a small model pick tools and arguments at will (Qwen2.5-Coder 0.5B proposed 1 of the
        golden set's 5 edits that way), while a contract bounds its choice to what code found.
        """
        if self._setting == "auto":
            return model not in self._structured
        return self._setting == "off"

    def record(self, model: str, *, has_called: bool, is_unusable: bool, is_structured: bool = False) -> None:
        """Note what `model` did with a round that offered tools; switch it to no tools when the rule says so.

        `is_structured`: the call came as `tool_calls` (not written as text).
        """
        if has_called and is_structured:
            self._structured.add(model)
        if has_called:
            self._callers.add(model)
            return
        if not is_unusable or self._setting != "auto" or model in self._callers or model in self._without:
            return
        self._unusable[model] = self._unusable.get(model, 0) + 1
        if self._unusable[model] < UNUSABLE_REPLIES:
            return
        self._without.add(model)
        logger.warning(
            "the model %s gave %d unusable replies when offered tools and has made no tool call since the start: "
            "answering it without tools from now on (one completion per turn from the retrieved passages, "
            "citations still checked; LLM_TOOLS=on keeps offering tools)",
            model,
            self._unusable[model],
        )

    def describe(self, model: str) -> str:
        """Return how tools are used with `model`, for /ready."""
        if self._setting == "off":
            return "off (LLM_TOOLS=off); changes by contract"
        if self._setting != "auto":
            return f"{self._setting} (LLM_TOOLS={self._setting})"
        if model in self._structured:
            return "on (the model has made tool calls)"
        if model in self._without:
            return "off (the model made no tool call and gave unusable replies when offered tools); changes by contract"
        questions = "questions answered in one completion"
        if model in self._callers:
            return f"changes by contract (the model writes its tool calls as text); {questions}"
        return f"changes by contract (no structured tool call seen yet); {questions}"
