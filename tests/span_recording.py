"""Recording this process's spans in memory, as app/process/tracing.py would export them (SDK's in-memory exporter)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from app.process.otel_tracer import install_opentelemetry
from app.process.tracing import all_secrets
from core.settings import Settings
from core.tracing import install_tracer


@contextmanager
def recording(settings: Settings) -> Iterator[InMemorySpanExporter]:
    """Record spans while the block runs, with `settings`' TRACE_CONTENT and secrets; stop recording after it."""
    exporter = InMemorySpanExporter()
    provider = install_opentelemetry(settings.tracing, SimpleSpanProcessor(exporter), secrets=all_secrets(settings))
    try:
        yield exporter
    finally:
        install_tracer(None)
        provider.shutdown()
