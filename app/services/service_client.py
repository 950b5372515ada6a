"""The CLI's way into a running `librarian serve` that holds the DATA_DIR: the same answers, through its HTTP API."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import httpx

from app.process.ownership import Owner, is_held
from core.errors import AppError, InvalidRequest, NotFound, UpstreamUnavailable

# A server that holds DATA_DIR may still be loading (it takes the DATA_DIR before it listens): wait for it.
STARTUP_WAIT_SECONDS = 60.0
_POLL_SECONDS = 0.25
_TIMEOUT = httpx.Timeout(30.0, connect=5.0)


class ServiceClient:
    """Call the service that owns the DATA_DIR; every failure is an AppError with a message for the terminal."""

    def __init__(self, owner: Owner, data_dir: Path, *, api_key: str | None, on_wait: Callable[[], None]) -> None:
        if owner.url is None:
            raise InvalidRequest(f"{owner.describe()} serves no HTTP API")
        # The holder's own token is always right for it; API_KEY from this shell may belong to another setup.
        token = owner.token or api_key
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.owner = owner
        self._data_dir = data_dir
        self._on_wait = on_wait
        self._http = httpx.Client(base_url=owner.url, headers=headers, timeout=_TIMEOUT)

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def status(self) -> dict[str, Any]:
        """Return `GET /v1/index/status`."""
        return self._json("GET", "/v1/index/status")

    def search(self, query: str, *, k: int | None, folder: str | None, tags: list[str]) -> dict[str, Any]:
        """Return the body of `POST /v1/search`: `hits`, and `notice` while the server is indexing."""
        return self._json("POST", "/v1/search", json={"query": query, "k": k, "folder": folder, "tags": tags})

    def index(self, on_progress: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """Run `POST /v1/index` and return its report, reporting the server's progress while it runs."""
        outcome: dict[str, Any] = {}

        def request() -> None:
            try:
                outcome["body"] = self._json("POST", "/v1/index", timeout=httpx.Timeout(None, connect=5.0))
            except AppError as exc:
                outcome["error"] = exc

        worker = threading.Thread(target=request, name="index-request", daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(_POLL_SECONDS)
            progress = self.status().get("progress")
            if isinstance(progress, dict) and worker.is_alive():
                on_progress(progress)
        if "error" in outcome:
            raise outcome["error"]
        report: dict[str, Any] = outcome["body"]["report"]
        return report

    def ask(self, question: str) -> Iterator[str]:
        """Yield the answer's text as `POST /v1/chat/completions` streams it."""
        body = {"model": "vault-librarian", "stream": True, "messages": [{"role": "user", "content": question}]}
        headers = {"X-Conversation-Id": f"cli:{uuid.uuid4().hex}"}
        self._send(lambda: self._http.get("/health"))  # waits for a server still starting, like every request
        try:
            with self._http.stream("POST", "/v1/chat/completions", json=body, headers=headers) as response:
                if response.status_code >= 400:
                    response.read()
                    raise _answer_error(response)
                for line in response.iter_lines():
                    yield from _delta_text(line)
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc

    def request_json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """Send a request and return its JSON body; an error status becomes an AppError with the server's message."""
        return self._json(method, path, **kwargs)

    def events(self, path: str) -> Generator[dict[str, Any], None, None]:
        """Yield the JSON `data` of each server-sent event of `path` until the stream ends."""
        self._send(lambda: self._http.get("/health"))
        try:
            with self._http.stream("GET", path, timeout=httpx.Timeout(None, connect=5.0)) as response:
                if response.status_code >= 400:
                    response.read()
                    raise _answer_error(response)
                for line in response.iter_lines():
                    if line.startswith("data:"):
                        yield json.loads(line[len("data:") :].strip())
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc

    def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        response = self._send(lambda: self._http.request(method, path, **kwargs))
        if response.status_code >= 400:
            raise _answer_error(response)
        data: dict[str, Any] = response.json()
        return data

    def _send(self, call: Callable[[], httpx.Response]) -> httpx.Response:
        deadline = time.monotonic() + STARTUP_WAIT_SECONDS
        waited = False
        while True:
            try:
                return call()
            except httpx.ConnectError as exc:
                if time.monotonic() > deadline or not is_held(self._data_dir):
                    raise self._unreachable(exc) from exc
                if not waited:
                    self._on_wait()
                    waited = True
                time.sleep(_POLL_SECONDS)
            except httpx.HTTPError as exc:
                raise self._unreachable(exc) from exc

    def _unreachable(self, exc: Exception) -> UpstreamUnavailable:
        return UpstreamUnavailable(
            "the service",
            f"{self.owner.describe()} holds DATA_DIR {self._data_dir} but does not answer ({type(exc).__name__}); "
            "run the command when it is up, or stop it",
        )


# The service refusing a request it checked as the command checks it without a server ("no folder 'Nope' in the
# vault …") says it in the same words: "the service answered 404:" in front would only tell where it was checked.
_REFUSALS: dict[str, type[AppError]] = {"invalid_request": InvalidRequest, "not_found": NotFound}


def _answer_error(response: httpx.Response) -> AppError:
    try:
        error = response.json()["error"]
        message, refusal = str(error["message"]), _REFUSALS.get(error.get("code"))
    except (ValueError, KeyError, TypeError, AttributeError):
        message, refusal = response.text[:300] or response.reason_phrase, None
    if refusal is not None:
        return refusal(message)
    return AppError(f"the service answered {response.status_code}: {message}")


def _delta_text(line: str) -> Iterator[str]:
    if not line.startswith("data:"):
        return
    payload = line[len("data:") :].strip()
    if not payload or payload == "[DONE]":
        return
    chunk = json.loads(payload)
    if "error" in chunk:
        raise AppError(str(chunk["error"].get("message", "the service failed mid-answer")))
    for choice in chunk.get("choices", []):
        text = (choice.get("delta") or {}).get("content")
        if text:
            yield text
