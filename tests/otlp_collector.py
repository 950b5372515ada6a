"""OtlpCollector: a real OTLP/HTTP trace receiver on 127.0.0.1 (POST /v1/traces, protobuf), like Jaeger's port 4318."""

from __future__ import annotations

import gzip
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

TRACES_PATH = "/v1/traces"
PROTOBUF = "application/x-protobuf"


@dataclass(frozen=True)
class ReceivedSpan:
    """One span as the collector decoded it."""

    name: str
    trace_id: str
    span_id: str
    parent_span_id: str  # "" for a root span
    attributes: dict[str, Any]
    service_name: str


@dataclass(frozen=True)
class ReceivedExport:
    """One POST /v1/traces: its headers (lower-case names) and spans."""

    headers: dict[str, str]
    spans: tuple[ReceivedSpan, ...]


class OtlpCollector:
    """Accept OTLP/HTTP protobuf exports in a background thread; anything else gets a 404 or a 415."""

    def __init__(self) -> None:
        self._exports: list[ReceivedExport] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def endpoint(self) -> str:
        """Return the base URL to set as OTEL_EXPORTER_OTLP_ENDPOINT."""
        if self._server is None:
            raise RuntimeError("the collector is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def exports(self) -> list[ReceivedExport]:
        """Return every export received so far."""
        with self._lock:
            return list(self._exports)

    @property
    def spans(self) -> list[ReceivedSpan]:
        """Return every span received so far, in arrival order."""
        return [span for export in self.exports for span in export.spans]

    def receive(self, headers: dict[str, str], body: bytes) -> None:
        """Decode one export request and keep it."""
        request = ExportTraceServiceRequest.FromString(body)
        spans = []
        for resource_spans in request.resource_spans:
            resource = {kv.key: _value(kv.value) for kv in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                spans += [
                    ReceivedSpan(
                        name=span.name,
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_span_id=span.parent_span_id.hex(),
                        attributes={kv.key: _value(kv.value) for kv in span.attributes},
                        service_name=str(resource.get("service.name", "")),
                    )
                    for span in scope_spans.spans
                ]
        with self._lock:
            self._exports.append(ReceivedExport(headers, tuple(spans)))

    def __enter__(self) -> OtlpCollector:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.collector = self  # type: ignore[attr-defined]
        self._server = server
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, kind) if kind else None


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the http.server API
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path != TRACES_PATH:
            self._reply(404, b"")
            return
        if self.headers.get("Content-Type") != PROTOBUF:
            self._reply(415, b"")
            return
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.server.collector.receive(headers, body)  # type: ignore[attr-defined]
        self._reply(200, ExportTraceServiceResponse().SerializeToString())

    def _reply(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", PROTOBUF)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the http.server API
        """Keep the test output quiet."""
