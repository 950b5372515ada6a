"""ScriptedLLMServer: a real OpenAI-compatible HTTP server on 127.0.0.1 that plays scripted turns for tests."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.scripted_llm_turns import ScriptedToolCall, Turn, split_tokens
from tests.scripted_llm_wire import completion_body, stream_events, word_count

__all__ = ["RecordedRequest", "ScriptedLLMServer", "ScriptedToolCall", "Turn", "free_port", "split_tokens"]

DEFAULT_MODEL = "scripted-model"
Script = Iterable[Turn] | Callable[[dict[str, Any]], Turn]


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    json: Any = None  # the parsed body, None for GET

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Return the chat messages of a POST /chat/completions body."""
        return list((self.json or {}).get("messages", []))

    @property
    def response_format(self) -> dict[str, Any] | None:
        """Return the `response_format` the request asked for, or None."""
        body = self.json if isinstance(self.json, dict) else {}
        value = body.get("response_format")
        return value if isinstance(value, dict) else None


@dataclass
class _State:
    script: Callable[[dict[str, Any]], Turn] | None
    queue: deque[Turn] = field(default_factory=deque)
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    sockets: set[socket.socket] = field(default_factory=set)
    calls_made: int = 0
    abandoned: int = 0  # streams the client closed before their end


class ScriptedLLMServer:
    """An OpenAI-compatible server on 127.0.0.1 in a background thread, answering from a script of Turns."""

    def __init__(
        self,
        script: Script = (),
        *,
        api_key: str | None = None,
        models: Sequence[str] = (DEFAULT_MODEL,),
        delay_per_token: float = 0.0,
        reject_stream_options: bool = False,
        reject_response_format: bool = False,
        reject_max_tokens: bool = False,
        reject_temperature: bool = False,
        routes: Mapping[str, Any] | None = None,
        tokenize: Callable[[str], list[int]] | None = None,
        port: int = 0,
    ) -> None:
        """Prepare the server (start it with `with` or start()).

        Args:
            script: turns played in order, or a function from the request JSON to a Turn.
            api_key: when set, requests without `Authorization: Bearer <api_key>` get a 401 that echoes the header.
            models: listed by GET /models; a chat request naming another model gets a 404, as OpenAI answers.
            delay_per_token: seconds between streamed tokens.
            reject_stream_options: answer 400 to any request with `stream_options`, like older servers.
            reject_response_format: answer 400 to any request with `response_format`, as llama.cpp did before
                it took json_schema.
            reject_max_tokens: answer 400 to `max_tokens` naming `max_completion_tokens`, as OpenAI's reasoning
                models do. Either cap is honoured: a longer reply stops there, with finish_reason "length".
            reject_temperature: answer 400 to a `temperature` other than 1, as OpenAI's reasoning models do.
            routes: more JSON endpoints, "METHOD /path" -> body (or (status, body)), e.g. "GET /props" for
                llama.cpp's server properties; they win over the built-in routes.
            tokenize: answer `POST /tokenize` as llama.cpp's server does, `{"content": text}` -> `{"tokens": [...]}`,
                with this tokenizer (None: no such route, as on other servers).
            port: 0 for a free port.
        """
        self.api_key = api_key
        self.models = tuple(models)
        self.delay_per_token = delay_per_token
        self.reject_stream_options = reject_stream_options
        self.reject_response_format = reject_response_format
        self.reject_max_tokens = reject_max_tokens
        self.reject_temperature = reject_temperature
        self.routes = dict(routes or {})
        self.tokenize = tokenize
        self._state = _State(script=script if callable(script) else None)
        if not callable(script):
            self._state.queue.extend(script)
        self._requested_port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """Return the port the server listens on."""
        if self._server is None:
            raise RuntimeError("the scripted LLM server is not running")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """Return the OpenAI base URL, e.g. http://127.0.0.1:PORT/v1."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Return every request received so far."""
        with self._state.lock:
            return list(self._state.requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """Return the POST /chat/completions requests received so far."""
        return [r for r in self.requests if r.method == "POST" and r.path.endswith("/chat/completions")]

    @property
    def abandoned_streams(self) -> int:
        """Return how many streamed replies the client closed before their end (a cancelled model call)."""
        with self._state.lock:
            return self._state.abandoned

    @property
    def turns_left(self) -> int:
        """Return how many queued turns have not been played."""
        with self._state.lock:
            return len(self._state.queue)

    def add(self, *turns: Turn) -> None:
        """Queue more turns."""
        with self._state.lock:
            self._state.queue.extend(turns)

    def start(self) -> ScriptedLLMServer:
        """Listen and serve in a daemon thread."""
        self._state.stopping.clear()
        server = ThreadingHTTPServer(("127.0.0.1", self._requested_port), _Handler)
        server.daemon_threads = True
        server.block_on_close = False
        server.owner = self  # type: ignore[attr-defined]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and drop open connections (keep-alive clients see the server go away)."""
        if self._server is None:
            return
        self._state.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        with self._state.lock:
            for sock in list(self._state.sockets):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join()
        self._server = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _next_turn(self, body: dict[str, Any]) -> Turn | None:
        state = self._state
        if state.script is not None:
            return state.script(body)
        with state.lock:
            return state.queue.popleft() if state.queue else None

    def _next_call_id(self) -> str:
        with self._state.lock:
            self._state.calls_made += 1
            return f"call_{self._state.calls_made}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streaming, like real servers
    # Real servers (asyncio, uvicorn) set TCP_NODELAY; without it each small SSE write waits for a delayed ACK.
    disable_nagle_algorithm = True
    server: ThreadingHTTPServer

    @property
    def owner(self) -> ScriptedLLMServer:
        return self.server.owner  # type: ignore[attr-defined, no-any-return]

    def setup(self) -> None:
        super().setup()
        with self.owner._state.lock:
            self.owner._state.sockets.add(self.connection)

    def finish(self) -> None:
        with self.owner._state.lock:
            self.owner._state.sockets.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_GET(self) -> None:
        self._record(None)
        if not self._is_authorized() or self._send_route():
            return
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "scripted"} for m in self.owner.models]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, _error_body(f"no route {self.path}", "not_found"))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._record(raw.decode("utf-8", "replace"))
            self._send_json(400, _error_body("We could not parse the JSON body of your request.", "invalid_json"))
            return
        self._record(body)
        if not self._is_authorized() or self._send_route():
            return
        if self.path.rstrip("/") == "/tokenize" and self.owner.tokenize is not None:
            self._send_json(200, {"tokens": self.owner.tokenize(str(body.get("content", "")))})
        elif not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, _error_body(f"no route {self.path}", "not_found"))
        elif self.owner.reject_stream_options and "stream_options" in body:
            self._send_json(400, _error_body("Unrecognized request argument supplied: stream_options", None))
        elif self.owner.reject_response_format and "response_format" in body:
            rf_type = (body.get("response_format") or {}).get("type")
            message = f'response_format type must be one of "text" or "json_object", but got: {rf_type}'
            self._send_json(400, {"error": {"code": 400, "message": message, "type": "invalid_request_error"}})
        elif self.owner.reject_max_tokens and "max_tokens" in body:
            message = (  # OpenAI's words, for o1 and later reasoning models
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead."
            )
            self._send_json(400, _error_body(message, "unsupported_parameter"))
        elif self.owner.reject_temperature and body.get("temperature", 1) != 1:
            message = (
                f"Unsupported value: 'temperature' does not support {body['temperature']} with this model. "
                "Only the default (1) value is supported."
            )
            self._send_json(400, _error_body(message, "unsupported_value"))
        elif body.get("model") not in self.owner.models:
            message = f"The model `{body.get('model')}` does not exist or you do not have access to it."
            self._send_json(404, _error_body(message, "model_not_found"))
        else:
            self._play(body)

    def _play(self, body: dict[str, Any]) -> None:
        try:
            turn = self.owner._next_turn(body)
        except Exception as exc:  # a broken script function: tell the test, not just hang up
            self._send_json(500, _error_body(f"ScriptedLLMServer: the script raised {exc!r}", None))
            return
        if turn is None:
            self._send_json(500, _error_body("ScriptedLLMServer: no scripted turn left for this request", None))
            return
        turn = _capped(turn, body.get("max_tokens") or body.get("max_completion_tokens"))
        if turn.delay and self.owner._state.stopping.wait(turn.delay):
            return
        if turn.disconnect_after == 0:
            self.close_connection = True  # no response at all: the client sees the server hang up
            return
        if turn.status != 200:
            self._send_error_turn(turn)
            return
        calls = tuple(ScriptedToolCall(c.name, c.arguments, c.id or self.owner._next_call_id()) for c in turn.calls)
        usage = turn.usage or (word_count(body), len(turn.pieces) + len(calls))
        if not body.get("stream"):
            if turn.disconnect_after is not None:
                self.close_connection = True
                return
            reply = completion_body(turn, calls, body["model"], usage if turn.report_usage else None)
            self._send_json(200, reply)
            return
        self._stream(turn, calls, body, usage)

    def _stream(
        self, turn: Turn, calls: tuple[ScriptedToolCall, ...], body: dict[str, Any], usage: tuple[int, int]
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        include_usage = turn.report_usage and bool((body.get("stream_options") or {}).get("include_usage"))
        per_token = self.owner.delay_per_token if turn.delay_per_token is None else turn.delay_per_token
        try:
            for index, event in enumerate(stream_events(turn, calls, body["model"], usage if include_usage else None)):
                if turn.disconnect_after is not None and index > turn.disconnect_after:
                    # Leave the chunked body unterminated: the client sees an incomplete read.
                    self.close_connection = True
                    return
                if index > 1 and per_token and self.owner._state.stopping.wait(per_token):
                    return
                if turn.hold is not None and index == turn.hold_after and not self._wait_for(turn.hold):
                    return
                self._write_chunk(f"data: {event}\n\n".encode())
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away mid-stream
            with self.owner._state.lock:
                self.owner._state.abandoned += 1

    def _wait_for(self, event: threading.Event) -> bool:
        """Wait until `event` is set; False when the server stops first."""
        while not event.wait(0.05):
            if self.owner._state.stopping.is_set():
                return False
        return True

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _send_error_turn(self, turn: Turn) -> None:
        if isinstance(turn.body, str):
            self._send_raw(turn.status, turn.body.encode(), "text/plain")
            return
        body = dict(turn.body) if turn.body is not None else _error_body(f"scripted error {turn.status}", None)
        if turn.echo_headers:
            body["request_headers"] = dict(self.headers.items())
        self._send_json(turn.status, body)

    def _send_route(self) -> bool:
        """Answer from `routes` when one matches this method and path (query string ignored)."""
        route = self.owner.routes.get(f"{self.command} {self.path.split('?', 1)[0]}")
        if route is None:
            return False
        status, body = route if isinstance(route, tuple) else (200, route)
        self._send_json(status, body)
        return True

    def _is_authorized(self) -> bool:
        expected = self.owner.api_key
        presented = self.headers.get("Authorization", "")
        if expected is None or presented == f"Bearer {expected}":
            return True
        # Like a careless provider or proxy: the error repeats the header it got.
        message = f"Incorrect API key provided. Authorization: {presented or '(none)'}"
        self._send_json(401, _error_body(message, "invalid_api_key"))
        return False

    def _record(self, body: Any) -> None:
        headers = {name.lower(): value for name, value in self.headers.items()}
        with self.owner._state.lock:
            self.owner._state.requests.append(RecordedRequest(self.command, self.path, headers, body))

    def _send_json(self, status: int, body: Mapping[str, Any]) -> None:
        self._send_raw(status, json.dumps(body).encode(), "application/json")

    def _send_raw(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _capped(turn: Turn, max_tokens: object) -> Turn:
    """Return `turn` cut to `max_tokens` text tokens, as a server stops a reply at its cap (calls cut with it)."""
    if not isinstance(max_tokens, int) or len(turn.pieces) <= max_tokens:
        return turn
    return replace(turn, pieces=turn.pieces[:max_tokens], calls=(), finish_reason="length")


def _error_body(message: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}}


def free_port() -> int:
    """Return a port on 127.0.0.1 that nothing listens on (connections to it are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
