"""Record what a real model answers the service: a proxy that saves each chat request and its raw reply as JSON.

Usage: python -m bench.recording_proxy --upstream http://127.0.0.1:8081 --port 18091 --out tests/fixtures/NEW

Point the service at it (`LLM_BASE_URL=http://127.0.0.1:18091/v1 librarian serve ...`), ask it what you want to
record, stop the proxy with Ctrl-C. Each POST .../chat/completions becomes `NNN.json` in `--out`: the request body as
the service sent it, and the reply as the server sent it (`sse`: the `data:` payloads of a streamed reply, `body`:
a whole one; `client_closed` when the service stopped reading it early). Everything else (GET /models, /props ...)
passes through unrecorded. For benchmarks and fixtures only.
"""

from __future__ import annotations

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "content-encoding"}


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="the real server's root, e.g. http://127.0.0.1:8081")
    parser.add_argument("--port", type=int, default=18091)
    parser.add_argument("--out", type=Path, required=True)
    return parser.parse_args()


class RecordingProxy(ThreadingHTTPServer):
    """Forwards every request to `upstream`; chat completions are saved to `out` as they pass."""

    def __init__(self, port: int, upstream: str, out: Path) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.upstream = upstream.rstrip("/")
        self.out = out
        self.http = httpx.Client(timeout=httpx.Timeout(1800, connect=5))
        self._lock = threading.Lock()
        self._count = len(list(out.glob("*.json")))

    def save(self, record: dict[str, Any]) -> Path:
        """Write one recorded exchange as the next numbered file."""
        with self._lock:
            self._count += 1
            path = self.out / f"{self._count:03d}.json"
        path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return path


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: RecordingProxy

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the console for the saved-file lines."""

    def do_GET(self) -> None:
        self._forward(None)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._forward(self.rfile.read(length) if length else b"")

    def _forward(self, body: bytes | None) -> None:
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
        url = f"{self.server.upstream}{self.path}"
        is_chat = body is not None and self.path.rstrip("/").endswith("/chat/completions")
        with self.server.http.stream(self.command, url, headers=headers, content=body) as response:
            self.send_response(response.status_code)
            for name, value in response.headers.items():
                if name.lower() not in HOP_HEADERS:
                    self.send_header(name, value)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            raw = bytearray()
            is_client_there = True
            for piece in response.iter_raw():
                raw += piece
                is_client_there = self._send_chunk(piece)
                if not is_client_there:
                    break  # closing the upstream stream stops the server generating, as the client meant
            if is_client_there:
                self._send_chunk(b"")
        if is_chat and body is not None:
            text = bytes(raw).decode("utf-8", "replace")
            self._record(json.loads(body), response.status_code, text, is_cut=not is_client_there)

    def _send_chunk(self, piece: bytes) -> bool:
        """Pass one chunk on; return False when the client has gone (the reply is still read and recorded)."""
        try:
            self.wfile.write(f"{len(piece):X}\r\n".encode() + piece + b"\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            return False
        return True

    def _record(self, request: dict[str, Any], status: int, text: str, *, is_cut: bool) -> None:
        record: dict[str, Any] = {"request": request, "status": status}
        if is_cut:
            record["client_closed"] = True  # the client stopped reading: the reply is what it got
        if request.get("stream"):
            record["sse"] = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        else:
            record["body"] = json.loads(text) if text.strip().startswith("{") else text
        print(f"saved {self.server.save(record)}", flush=True)


def main() -> None:
    """Serve until interrupted."""
    args = parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    proxy = RecordingProxy(args.port, args.upstream, args.out)
    print(f"recording proxy on http://127.0.0.1:{args.port} -> {args.upstream}, saving to {args.out}", flush=True)
    try:
        proxy.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        proxy.server_close()


if __name__ == "__main__":
    main()
