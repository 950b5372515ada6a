"""OpenTelemetry behind `core.tracing`: SDK spans, exported over OTLP/HTTP. Imported only when tracing is on."""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Status, StatusCode
from opentelemetry.util.re import parse_env_headers

from core.errors import UpstreamUnavailable
from core.settings import TracingSettings
from core.tracing import Attributes, AttributeValue, Content, Span, install_tracer
from llm_client import redact
from rag.answer.secrets import redact_secrets

TRACER_NAME = "vault_librarian"
TRACES_PATH = "/v1/traces"  # appended to OTEL_EXPORTER_OTLP_ENDPOINT, as the OTLP exporter spec says for HTTP
Redact = Callable[[str], str]
REDACTED_CACHE_SIZE = 512  # distinct texts (prompts, messages, passages) kept redacted


class OpenTelemetrySpan:
    """A `core.tracing.Span` over an SDK span; content is recorded only with TRACE_CONTENT, redacted."""

    def __init__(self, span: trace.Span, redactor: Redact, *, records_content: bool, token: object | None) -> None:
        self._span = span
        self._redact = redactor
        self._records_content = records_content
        self._token = token  # set while the span is the active one (started with is_active)
        self._is_ended = False

    @property
    def records_content(self) -> bool:
        """Return True when TRACE_CONTENT is on."""
        return self._records_content

    def set_attribute(self, key: str, value: AttributeValue) -> None:
        """Record one attribute."""
        self._span.set_attribute(key, value)

    def set_content(self, key: str, content: str | Content) -> None:
        """Record `content` with credentials masked (as JSON unless it is text), only when TRACE_CONTENT is on."""
        if not self._records_content:
            return
        if isinstance(content, str):
            self._span.set_attribute(key, self._redact(content))
        else:
            self._span.set_attribute(key, json.dumps(_redacted(content, self._redact), ensure_ascii=False))

    def update_name(self, name: str) -> None:
        """Rename the span."""
        self._span.update_name(name)

    def record_error(self, error: BaseException) -> None:
        """Mark the span failed; a cancelled turn (the client went away) is marked cancelled, not failed."""
        if isinstance(error, asyncio.CancelledError | GeneratorExit):
            self._span.set_attribute("librarian.cancelled", True)
            return
        kind = type(error).__name__
        self._span.set_attribute("error.type", kind)
        # An error message can quote a note or the model's arguments: only its type, unless content is on. An
        # unreachable service's message names the service and why, which is what a trace is read for.
        if self._records_content or isinstance(error, UpstreamUnavailable):
            self._span.set_status(Status(StatusCode.ERROR, self._redact(getattr(error, "message", str(error)))))
        else:
            self._span.set_status(Status(StatusCode.ERROR, kind))

    @contextmanager
    def activated(self) -> Iterator[object]:
        """Make this span the parent of spans started in the block."""
        token = otel_context.attach(trace.set_span_in_context(self._span))
        try:
            yield self
        finally:
            otel_context.detach(token)

    def end(self) -> None:
        """End the span (and stop it being the active one)."""
        if self._is_ended:
            return
        self._is_ended = True
        if self._token is not None:
            otel_context.detach(self._token)  # type: ignore[arg-type]
            self._token = None
        self._span.end()

    def __enter__(self) -> Span:
        """Return the span."""
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace_back: TracebackType | None
    ) -> None:
        """Record an escaping error, then end the span."""
        if error is not None:
            self.record_error(error)
        self.end()


class OpenTelemetryTracer:
    """A `core.tracing.Tracer` over an SDK tracer: spans are children of the active OpenTelemetry span."""

    def __init__(self, tracer: trace.Tracer, *, redactor: Redact, records_content: bool) -> None:
        self._tracer = tracer
        self._redact = redactor
        self._records_content = records_content

    def start_span(self, name: str, attributes: Attributes, *, is_active: bool) -> Span:
        """Start a span under the active one; `is_active` makes it the active one until it ends."""
        span = self._tracer.start_span(name, attributes=dict(attributes))
        token = otel_context.attach(trace.set_span_in_context(span)) if is_active else None
        return OpenTelemetrySpan(span, self._redact, records_content=self._records_content, token=token)


def content_redactor(secrets: Iterable[str]) -> Redact:
    """Return how span content is masked: credentials in note text (detect-secrets), then keys and tokens.

    Cached: each model call of a turn repeats the instructions and the history, and detect-secrets reads a 10 KB
    prompt in tens of milliseconds.
    """
    known = tuple(secrets)

    @functools.lru_cache(maxsize=REDACTED_CACHE_SIZE)
    def redacted(text: str) -> str:
        return redact(redact_secrets(text), known)

    return redacted


def _redacted(value: object, redact_text: Redact) -> object:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {key: _redacted(item, redact_text) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(item, redact_text) for item in value]
    return value


def install_opentelemetry(
    settings: TracingSettings, processor: SpanProcessor, *, secrets: Iterable[str] = ()
) -> TracerProvider:
    """Record spans through `processor` from now on; the caller shuts the returned provider down (flushes it)."""
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: settings.service_name}))
    provider.add_span_processor(processor)
    redactor = content_redactor(secrets)
    tracer = provider.get_tracer(TRACER_NAME)
    install_tracer(OpenTelemetryTracer(tracer, redactor=redactor, records_content=settings.records_content))
    return provider


def otlp_processor(settings: TracingSettings) -> SpanProcessor:
    """Return a batching processor that POSTs spans as protobuf to OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces."""
    if settings.endpoint is None:
        raise ValueError("OTLP export needs OTEL_EXPORTER_OTLP_ENDPOINT")
    headers = parse_env_headers(settings.headers.get_secret_value(), liberal=True) if settings.headers else None
    exporter = OTLPSpanExporter(endpoint=settings.endpoint.rstrip("/") + TRACES_PATH, headers=headers)
    return BatchSpanProcessor(exporter)
