"""The read tools as the agent graph uses them: specs for the model, and one async entry point per call."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from agent.tools.bases import BASES
from agent.tools.cues import cued_specs
from agent.tools.daily import DAILY_NOTE
from agent.tools.links import LINKS
from agent.tools.metadata import PROPERTIES, TAGS
from agent.tools.notes import READ_NOTE, VAULT
from agent.tools.outcome import DEFAULT_MAX_CHARS, Reply, ToolOutcome, cap_reply, redact_reply
from agent.tools.reader import VaultReader
from agent.tools.search import SEARCH_NOTES
from agent.tools.tasks import TASKS
from agent.tools.templates import TEMPLATES
from core.chat import ToolSpec
from core.errors import InvalidRequest
from core.tracing import OPERATION, TOOL_NAME, span


class ReadTool(Protocol):
    """What the registry needs of a tool (`agent.tools.definition.Tool` implements it)."""

    @property
    def name(self) -> str:
        """Return the name the model calls the tool by."""
        ...

    @property
    def cues(self) -> tuple[str, ...]:
        """Return the words of a message that call for the tool (empty: always offered)."""
        ...

    def spec(self) -> ToolSpec:
        """Return the name, description and parameter schema shown to the model."""
        ...

    def call(self, reader: VaultReader, arguments: Mapping[str, object]) -> Reply:
        """Validate the arguments and run the tool (blocking)."""
        ...


# Search and read first: small models lean towards the first tools they are shown.
READ_TOOLS: tuple[ReadTool, ...] = (
    SEARCH_NOTES,
    READ_NOTE,
    VAULT,
    LINKS,
    TAGS,
    PROPERTIES,
    TASKS,
    DAILY_NOTE,
    TEMPLATES,
    BASES,
)


def parse_arguments(tool: str, arguments_json: str) -> dict[str, object]:
    """Return the model's arguments as a JSON object ("" and null mean none), or raise InvalidRequest."""
    text = arguments_json.strip()
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRequest(
            f"the arguments for {tool} are not valid JSON ({exc.msg} at position {exc.pos}); "
            'send one JSON object such as {"command": "...", "note": "..."}'
        ) from exc
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidRequest(f"the arguments for {tool} must be a JSON object, not {type(value).__name__}")
    return value


async def run_traced(name: str, arguments_json: str, run: Callable[[str, str], ToolOutcome]) -> ToolOutcome:
    """Run one blocking tool call in a worker thread, in an `execute_tool` span (name, error type, result size)."""
    with span(f"execute_tool {name}", {OPERATION: "execute_tool", TOOL_NAME: name}) as traced:
        traced.set_content("gen_ai.tool.call.arguments", arguments_json)
        outcome = await asyncio.to_thread(run, name, arguments_json)
        traced.set_attribute("librarian.tool.result_chars", len(outcome.text))
        traced.set_attribute("librarian.tool.anchors", len(outcome.anchors))
        traced.set_content("gen_ai.tool.call.result", outcome.text)
        return outcome


class ToolRegistry:
    """Offer the read tools to the model and run its calls; failures raise InvalidRequest or NotFound."""

    def __init__(
        self, reader: VaultReader, *, tools: Sequence[ReadTool] = READ_TOOLS, max_chars: int = DEFAULT_MAX_CHARS
    ) -> None:
        self._reader = reader
        self._tools = {tool.name: tool for tool in tools}
        self._max_chars = max_chars
        self._specs: list[ToolSpec] | None = None

    def specs(self, message: str | None = None) -> list[ToolSpec]:
        """Return the specs of the tools `message` calls for (`agent.tools.cues`; None: all), in offering order."""
        # Built once: the schemas never change, and rebuilding them per model call blocked the event loop.
        if self._specs is None:
            self._specs = [tool.spec() for tool in self._tools.values()]
        return cued_specs(list(self._tools.values()), self._specs, message)

    def has_tool(self, name: str) -> bool:
        """Return True when `name` is one of the registry's tools."""
        return name in self._tools

    def run_blocking(self, name: str, arguments_json: str) -> ToolOutcome:
        """Run one tool call in the calling thread; see `run`."""
        tool = self._tools.get(name)
        if tool is None:
            raise InvalidRequest(f"there is no tool '{name}'; the tools are: {', '.join(self._tools)}")
        result = tool.call(self._reader, parse_arguments(name, arguments_json))
        if self._reader.redacts_secrets:  # every read tool's way to the model (search hits are masked already)
            result = redact_reply(result)
        return cap_reply(result, self._max_chars)

    async def run(self, name: str, arguments_json: str) -> ToolOutcome:
        """Run one tool call in a worker thread and return its capped text and the anchors it shows.

        Raises:
            InvalidRequest: unknown tool, malformed JSON or arguments, a path outside the vault; the message
                says what to send instead, so it can go back to the model as the tool's error result.
            NotFound: the note, heading, folder, daily note, template, base or view does not exist.

        """
        return await run_traced(name, arguments_json, self.run_blocking)
