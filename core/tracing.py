"""Spans around a turn's work (retrieval, model calls, tools, edits), recorded by the tracer the entry point installed.

Inner layers call `span` or `start_span` and set attributes; they never import a tracing library. Until an entry
point installs a tracer (app/process/tracing.py does when OTEL_EXPORTER_OTLP_ENDPOINT is set), both return one
shared span that does nothing, so tracing off costs a function call and imports nothing. Note text and prompts go
through `Span.set_content`, which records only when the user turned TRACE_CONTENT on (redacted even then).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from types import TracebackType
from typing import Protocol

AttributeValue = str | bool | int | float | Sequence[str] | Sequence[int] | Sequence[float] | Sequence[bool]
Attributes = Mapping[str, AttributeValue]
Content = Sequence[object] | Mapping[str, object]  # JSON-shaped: lists, dicts, strings, numbers, None

# OpenTelemetry's GenAI semantic conventions, where they name what we record; our own keys start with "librarian.".
OPERATION = "gen_ai.operation.name"
REQUEST_MODEL = "gen_ai.request.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
TOOL_NAME = "gen_ai.tool.name"
CONVERSATION = "gen_ai.conversation.id"


class Span(Protocol):
    """One timed operation; as a context manager it records an escaping error and ends on exit."""

    @property
    def records_content(self) -> bool:
        """Return True when `set_content` records (TRACE_CONTENT): build costly content only then."""
        ...

    def set_attribute(self, key: str, value: AttributeValue) -> None:
        """Record one attribute (counts, names, verdicts: never note text or prompts)."""
        ...

    def set_content(self, key: str, content: str | Content) -> None:
        """Record note text, a prompt or a reply, redacted, only when TRACE_CONTENT is on.

        `content` is text, or JSON-shaped data (recorded as JSON) whose every string is redacted on its own.
        """
        ...

    def update_name(self, name: str) -> None:
        """Rename the span once more is known (the model an endpoint chose)."""
        ...

    def record_error(self, error: BaseException) -> None:
        """Mark the span failed by `error` (its type; its message only with TRACE_CONTENT)."""
        ...

    def activated(self) -> AbstractContextManager[object]:
        """Make this span the parent of spans started inside the block (never hold it across a `yield`)."""
        ...

    def end(self) -> None:
        """End the span (once; later calls do nothing)."""
        ...

    def __enter__(self) -> Span:
        """Return the span."""
        ...

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Record `error` if one escapes, then end the span."""
        ...


class Tracer(Protocol):
    """Starts spans as children of the active one (implemented over OpenTelemetry in app/process/tracing.py)."""

    def start_span(self, name: str, attributes: Attributes, *, is_active: bool) -> Span:
        """Start a span; `is_active` makes it the parent of spans started until it ends (not across a yield)."""
        ...


class _NoSpan:
    """The span handed out while no tracer is installed: one shared instance, every method does nothing."""

    records_content = False

    def set_attribute(self, key: str, value: AttributeValue) -> None:
        """Do nothing."""

    def set_content(self, key: str, content: str | Content) -> None:
        """Do nothing."""

    def update_name(self, name: str) -> None:
        """Do nothing."""

    def record_error(self, error: BaseException) -> None:
        """Do nothing."""

    def activated(self) -> AbstractContextManager[object]:
        """Return a block that changes nothing."""
        return nullcontext()

    def end(self) -> None:
        """Do nothing."""

    def __enter__(self) -> Span:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        return None


NO_SPAN: Span = _NoSpan()
_EMPTY: Attributes = {}
# Process-wide like OpenTelemetry's own provider: set once by the entry point (tests install and remove theirs).
_installed: list[Tracer] = []


def install_tracer(tracer: Tracer | None) -> None:
    """Record spans with `tracer` from now on (None: stop recording)."""
    _installed[:] = [tracer] if tracer is not None else []


def is_tracing() -> bool:
    """Return True when a tracer is installed (callers skip building attributes otherwise)."""
    return bool(_installed)


def span(name: str, attributes: Attributes = _EMPTY) -> Span:
    """Return a span that is active until it ends: use it in a `with` block with no `yield` inside."""
    return _installed[0].start_span(name, attributes, is_active=True) if _installed else NO_SPAN


def start_span(name: str, attributes: Attributes = _EMPTY) -> Span:
    """Return a span that is not made active (safe across `yield`); the caller ends it."""
    return _installed[0].start_span(name, attributes, is_active=False) if _installed else NO_SPAN
